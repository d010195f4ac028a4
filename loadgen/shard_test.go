package loadgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		want    Shard
		wantErr string
	}{
		{in: "0/1", want: Shard{0, 1}},
		{in: "2/3", want: Shard{2, 3}},
		{in: " 7 / 8 ", want: Shard{7, 8}},
		{in: "3/3", wantErr: "0 <= INDEX < COUNT"},
		{in: "-1/3", wantErr: "0 <= INDEX < COUNT"},
		{in: "0/0", wantErr: "0 <= INDEX < COUNT"},
		{in: "1", wantErr: "INDEX/COUNT"},
		{in: "a/b", wantErr: "INDEX/COUNT"},
		{in: "", wantErr: "INDEX/COUNT"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseShard(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "shard ") {
					t.Fatalf("ParseShard(%q) = %v, %v; want an error naming the shard and %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if got.String() != strings.ReplaceAll(tt.in, " ", "") {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestShardShare(t *testing.T) {
	tests := []struct {
		name    string
		s       Shard
		p       Profile
		want    Profile
		wantErr string
	}{
		{name: "unsharded", s: Shard{}, p: Profile{Mode: ModeSynchronous}, want: Profile{Mode: ModeSynchronous}},
		{name: "rate", s: Shard{1, 4}, p: Profile{Mode: ModeConstant, Rate: 10}, want: Profile{Mode: ModeConstant, Rate: 2.5}},
		{name: "rate with cap", s: Shard{2, 3}, p: Profile{Mode: ModePoisson, Rate: 9, MaxConcurrency: 7, Seed: 3}, want: Profile{Mode: ModePoisson, Rate: 3, MaxConcurrency: 2, Seed: 3}},
		{name: "rate cap too small", s: Shard{2, 3}, p: Profile{Mode: ModeConstant, Rate: 9, MaxConcurrency: 2}, wantErr: "Profile.MaxConcurrency 2 split over 3 shards"},
		{name: "concurrency first gets extra", s: Shard{0, 3}, p: Profile{Mode: ModeConcurrent, Concurrency: 5}, want: Profile{Mode: ModeConcurrent, Concurrency: 2}},
		{name: "concurrency last", s: Shard{2, 3}, p: Profile{Mode: ModeConcurrent, Concurrency: 5}, want: Profile{Mode: ModeConcurrent, Concurrency: 1}},
		{name: "no worker", s: Shard{2, 3}, p: Profile{Mode: ModeConcurrent, Concurrency: 2}, wantErr: "Profile.Concurrency 2 split over 3 shards"},
		{name: "throughput default", s: Shard{1, 2}, p: Profile{Mode: ModeThroughput}, want: Profile{Mode: ModeThroughput, MaxConcurrency: 256}},
		{name: "synchronous", s: Shard{0, 2}, p: Profile{Mode: ModeSynchronous, Concurrency: 1}, wantErr: "synchronous"},
		{name: "bad shard", s: Shard{3, 3}, p: Profile{Mode: ModeConstant, Rate: 1}, wantErr: "shard 3/3: want INDEX/COUNT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.Share(tt.p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "shard ") {
					t.Fatalf("Share = %+v, %v; want an error naming the shard and %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Share = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// shardRun runs the levels ps with shard s (the zero Shard: unsharded) in
// its own synctest bubble, returning every record and every level result.
func shardRun(t *testing.T, s Shard, ps []Profile, lim Limits) ([]Record, []LevelResult) {
	t.Helper()
	var recs []Record
	var results []LevelResult
	synctest.Test(t, func(t *testing.T) {
		var opts []Option
		if !s.IsZero() {
			opts = append(opts, WithShard(s.Index, s.Count))
		}
		g := newBubbled(newFake(30*time.Millisecond), okWorkload, opts...)
		var sink MemorySink
		for i, p := range ps {
			res, err := g.Run(t.Context(), i, p, lim, &sink)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, res)
		}
		recs = sink.Records()
	})
	return recs, results
}

// arrival is a request's level, seq and ScheduledAt counted from its
// level's start (each process starts a level when its previous one ends).
type arrival struct {
	Level int
	Seq   int64
	At    time.Duration
}

func arrivals(recs []Record, res []LevelResult) []arrival {
	out := make([]arrival, len(recs))
	for i, r := range recs {
		out[i] = arrival{r.Level, r.Seq, r.ScheduledAt - res[r.Level].Start}
	}
	slices.SortFunc(out, func(a, b arrival) int { return int(a.Seq - b.Seq) })
	return out
}

// TestShardsUnionIsPlan checks docs/cli.md#distributed-runs: the shards of a
// seeded open-loop plan send, together, exactly the arrivals (times from the
// level's start, and seqs) that one process sends, without overlap, and agree
// on the levels' seq ranges and, where the plan fixes them, windows.
func TestShardsUnionIsPlan(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		ps   []Profile
		lim  Limits
	}{
		{"constant by duration", []Profile{{Mode: ModeConstant, Rate: 20}, {Mode: ModeConstant, Rate: 50}}, Limits{MaxDuration: time.Second, Warmup: 200 * ms, Cooldown: 100 * ms}},
		{"poisson by requests", []Profile{{Mode: ModePoisson, Rate: 40, Seed: 7}, {Mode: ModePoisson, Rate: 80, Seed: 8}}, Limits{MaxRequests: 31}},
		{"poisson request trims", []Profile{{Mode: ModePoisson, Rate: 40, Seed: 9}}, Limits{MaxRequests: 40, WarmupRequests: 5, CooldownRequests: 4}},
		{"constant with cap", []Profile{{Mode: ModeConstant, Rate: 100, MaxConcurrency: 8}}, Limits{MaxDuration: 500 * ms, WarmupRequests: 3}},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s/%d shards", tt.name, n), func(t *testing.T) {
				wantRecs, wantRes := shardRun(t, Shard{}, tt.ps, tt.lim)
				want := arrivals(wantRecs, wantRes)
				// The plan fixes a window's ends unless one of them is the
				// level's end (which waits for the last response).
				planWindow := tt.lim.MaxDuration > 0 || tt.lim.CooldownRequests > 0
				rel := func(r LevelResult) Window {
					return Window{Start: r.Window.Start - r.Start, End: r.Window.End - r.Start}
				}
				var got []arrival
				for i := range n {
					recs, res := shardRun(t, Shard{i, n}, tt.ps, tt.lim)
					for _, r := range recs {
						if k := r.Seq - res[r.Level].FirstSeq; k%int64(n) != int64(i) {
							t.Errorf("shard %d/%d sent request k = %d (seq %d)", i, n, k, r.Seq)
						}
					}
					for l := range res {
						w := wantRes[l]
						if res[l].FirstSeq != w.FirstSeq || res[l].Planned != w.Planned || planWindow && rel(res[l]) != rel(w) {
							t.Errorf("shard %d/%d level %d: first seq %d planned %d window %+v; one process: %d %d %+v",
								i, n, l, res[l].FirstSeq, res[l].Planned, rel(res[l]), w.FirstSeq, w.Planned, rel(w))
						}
						if res[l].Shard != (Shard{i, n}) {
							t.Errorf("level result shard %v, want %d/%d", res[l].Shard, i, n)
						}
						in := 0
						for _, r := range recs {
							if res[l].InWindow(&r) {
								in++
							}
						}
						if in == 0 && res[l].Scheduled > 3 {
							t.Errorf("shard %d/%d level %d: no record in the window", i, n, l)
						}
					}
					got = append(got, arrivals(recs, res)...)
				}
				slices.SortFunc(got, func(a, b arrival) int { return int(a.Seq - b.Seq) })
				if !slices.Equal(got, want) {
					t.Fatalf("union of %d shards: %d arrivals, one process: %d\n got %v\nwant %v", n, len(got), len(want), got, want)
				}
				// The window trims keep the same requests, whoever sent them.
				inWant, inGot := 0, 0
				for _, r := range wantRecs {
					if wantRes[r.Level].InWindow(&r) {
						inWant++
					}
				}
				for i := range n {
					recs, res := shardRun(t, Shard{i, n}, tt.ps, tt.lim)
					for _, r := range recs {
						if res[r.Level].InWindow(&r) {
							inGot++
						}
					}
				}
				if planWindow && inGot != inWant {
					t.Errorf("%d records in the shards' windows, %d in one process's", inGot, inWant)
				}
			})
		}
	}
}

// TestShardsClosedLoop checks that closed-loop shards split the
// concurrency and the request budget, with disjoint seqs that cover the
// single-process range.
func TestShardsClosedLoop(t *testing.T) {
	const n = 3
	p := Profile{Mode: ModeConcurrent, Concurrency: 5}
	lim := Limits{MaxRequests: 20}
	var seqs []int64
	for i := range n {
		synctest.Test(t, func(t *testing.T) {
			f := newFake(50 * time.Millisecond)
			g := newBubbled(f, okWorkload, WithShard(i, n))
			var sink MemorySink
			res, err := g.Run(t.Context(), 0, p, lim, &sink)
			if err != nil {
				t.Fatal(err)
			}
			wantConc := []int64{2, 2, 1}[i]
			if got := f.maxIn.Load(); got != wantConc {
				t.Errorf("shard %d: %d in flight, want %d", i, got, wantConc)
			}
			if res.Planned != 20 || g.NextSeq() != 20 {
				t.Errorf("shard %d: planned %d, next seq %d; want 20, 20", i, res.Planned, g.NextSeq())
			}
			for _, r := range sink.Records() {
				if r.Seq%n != int64(i) || r.Status != StatusOK {
					t.Errorf("shard %d sent seq %d (%s)", i, r.Seq, r.Status)
				}
				seqs = append(seqs, r.Seq)
			}
		})
	}
	slices.Sort(seqs)
	for k, s := range seqs {
		if s != int64(k) {
			t.Fatalf("shards sent seqs %v, want 0..19 once each", seqs)
		}
	}
	if len(seqs) != 20 {
		t.Fatalf("shards sent %d requests, want 20", len(seqs))
	}
}

func TestShardErrors(t *testing.T) {
	tests := []struct {
		name    string
		opt     Option
		p       Profile
		wantErr string
	}{
		{"index out of range", WithShard(3, 3), Profile{Mode: ModeConstant, Rate: 1}, "shard 3/3"},
		{"zero count", WithShard(0, 0), Profile{Mode: ModeConstant, Rate: 1}, "WithShard(0, 0)"},
		{"no worker", WithShard(2, 3), Profile{Mode: ModeConcurrent, Concurrency: 2}, "Profile.Concurrency 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newBubbled(newFake(time.Millisecond), okWorkload, tt.opt)
			var sink MemorySink
			_, err := g.Run(t.Context(), 0, tt.p, Limits{MaxRequests: 5}, &sink)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Run: %v, want an error containing %q", err, tt.wantErr)
			}
			if sink.Len() != 0 {
				t.Errorf("%d records written by a refused level", sink.Len())
			}
		})
	}
}
