package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/golden"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/stats"
)

// latencies returns a ms distribution of the given samples, with n
// failures (+Inf) added.
func latencies(inf int, samples ...float64) Distribution {
	h := newLatencyHistogram()
	for _, v := range samples {
		recordLatency(h, ms(v))
	}
	for range inf {
		recordInf(h)
	}
	return distributionOf(h, UnitMS, nil)
}

func TestPercentileAndFraction(t *testing.T) {
	t.Parallel()
	var oneToThousand []float64
	for i := 1; i <= 1000; i++ {
		oneToThousand = append(oneToThousand, float64(i))
	}
	d := latencies(0, oneToThousand...)
	halfFailed := latencies(2, 10, 20)
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"p50", d.Percentile(50), 500},
		{"p75", d.Percentile(75), 750},
		{"p99.9", d.Percentile(99.9), 999},
		{"p100", d.Percentile(100), 1000},
		{"p99.9 field", d.P999, 999},
		{"cdf at 500", d.FractionAtOrBelow(500), 0.5},
		{"cdf at 0.5", d.FractionAtOrBelow(0.5), 0},
		{"cdf at 10000", d.FractionAtOrBelow(10000), 1},
		{"cdf below 0", d.FractionAtOrBelow(-1), 0},
		{"failures p25", halfFailed.Percentile(25), 10},
		{"failures p75", halfFailed.Percentile(75), math.Inf(1)},
		{"failures never meet a threshold", halfFailed.FractionAtOrBelow(1e12), 0.5},
		{"empty percentile", Distribution{Unit: UnitMS}.Percentile(50), math.NaN()},
		{"empty cdf", Distribution{Unit: UnitMS}.FractionAtOrBelow(1), math.NaN()},
		{"broken histogram", Distribution{Unit: UnitMS, Count: 1, Histogram: "!!"}.Percentile(50), math.NaN()},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	// The CDF and the percentiles agree.
	for _, p := range []float64{10, 50, 90, 99} {
		if f := d.FractionAtOrBelow(d.Percentile(p)); f < p/100 {
			t.Errorf("FractionAtOrBelow(p%v) = %v < %v", p, f, p/100)
		}
	}
}

func TestLatencyClamp(t *testing.T) {
	t.Parallel()
	d := latencies(0, -5, 2*float64(time.Hour/time.Millisecond))
	if d.Min != 0 || !near(d.Max, float64(time.Hour/time.Millisecond)) || d.Inf != 0 || math.IsInf(d.Mean, 0) {
		t.Errorf("clamped = %+v", d)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	a, b := latencies(1, 1, 2, 3), latencies(0, 4, 5)
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := latencies(1, 1, 2, 3, 4, 5); !reflect.DeepEqual(m, want) {
		t.Errorf("merge = %+v\nwant    %+v", m, want)
	}
	if m2, err := Merge(Distribution{}, a); err != nil || !reflect.DeepEqual(m2, a) {
		t.Errorf("merge with zero value = %+v, %v", m2, err)
	}
	tok := distributionOf(newTokenHistogram(), UnitTokens, nil)
	for _, tc := range []struct {
		name string
		a, b Distribution
		want string
	}{
		{"units differ", a, Distribution{Unit: UnitTokens, Count: 0}, "cannot merge"},
		{"unknown unit", Distribution{Unit: "s"}, Distribution{}, "unknown distribution unit"},
		{"corrupt", a, Distribution{Unit: UnitMS, Count: 1, Histogram: "bm90IGEgaGlzdG9ncmFt"}, "decode"},
		{"count disagrees", a, Distribution{Unit: UnitMS, Count: 7, Histogram: b.Histogram}, "count is 7"},
		{"count without histogram", a, Distribution{Unit: UnitMS, Count: 3}, "no histogram"},
		{"tokens into ms", tok, a, "cannot merge"},
	} {
		if tc.name == "tokens into ms" {
			tc.a.Count = 0
		}
		if _, err := Merge(tc.a, tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// randomRecords returns a level's worth of varied records: ok streams of
// random shape, failures, cancellations, some sent outside the window.
func randomRecords(rng *rand.Rand, n int) []*loadgen.Record {
	var recs []*loadgen.Record
	for i := range n {
		sched := time.Duration(rng.Int64N(int64(12 * time.Second)))
		sent := sched + time.Duration(rng.Int64N(int64(15*time.Millisecond)))
		r := &loadgen.Record{Seq: int64(i), ScheduledAt: sched, SentAt: sent, PromptTokens: 50 + rng.IntN(500),
			RequestedOutputTokens: 64}
		switch x := rng.IntN(20); {
		case x == 0:
			r.Status, r.ErrorKind, r.DoneAt = loadgen.StatusError, loadgen.ErrorHTTP, sent+ms(3)
			recs = append(recs, r)
			continue
		case x == 1:
			r.Status, r.ErrorKind = loadgen.StatusTimeout, loadgen.ErrorIdleTimeout
		case x == 2:
			r.Status, r.ErrorKind = loadgen.StatusCancelled, loadgen.ErrorCancelled
		default:
			r.Status = loadgen.StatusOK
		}
		t := sent + time.Duration(rng.Int64N(int64(300*time.Millisecond)))
		chunks := 1 + rng.IntN(64)
		total := 0
		for range chunks {
			k := int32(1 + rng.IntN(3))
			r.ChunkTimes = append(r.ChunkTimes, t)
			r.ChunkTokens = append(r.ChunkTokens, k)
			total += int(k)
			t += time.Duration(rng.Int64N(int64(40 * time.Millisecond)))
		}
		r.FirstTokenAt, r.FirstContentAt, r.LastTokenAt = r.ChunkTimes[0], r.ChunkTimes[0], r.ChunkTimes[chunks-1]
		r.DoneAt = r.LastTokenAt + ms(1)
		r.OutputTokens = total + rng.IntN(2) // usage sometimes disagrees with the chunk counts
		r.ServerOutputTokens, r.LocalOutputTokens = r.OutputTokens, r.OutputTokens+rng.IntN(2)
		recs = append(recs, r)
	}
	return recs
}

func TestMergeShardsEqualsWhole(t *testing.T) {
	t.Parallel()
	recs := randomRecords(rand.New(rand.NewPCG(1, 2)), 3000)
	const k = 3
	profile := loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 300, MaxConcurrency: 0}
	window := loadgen.Window{Start: 2 * time.Second, End: 11 * time.Second}
	good := func(r *loadgen.Record) bool { d, _ := r.TTFT(); return d < ms(150) }
	whole := summarize(Config{Level: 2, Profile: profile, Window: window, Good: good, CPUSeconds: 3, WallSeconds: 12}, recs...)

	var parts []Summary
	for i := range k {
		var shard []*loadgen.Record
		for _, r := range recs {
			if r.Seq%k == int64(i) {
				shard = append(shard, r)
			}
		}
		p := profile
		p.Rate /= k
		parts = append(parts, summarize(Config{Level: 2, Profile: p, Window: window, Good: good, CPUSeconds: 1, WallSeconds: 12}, shard...))
	}
	merged, err := MergeSummaries(parts...)
	if err != nil {
		t.Fatal(err)
	}

	// Distributions, counts, the window and the warnings are exact.
	dists := func(s Summary) []Distribution {
		return []Distribution{s.TTFT, s.TTFTCorrected, s.TTFOT, s.ITL, s.ICL, s.E2E, s.Lag,
			s.TTFTErrorAdjusted, s.E2EErrorAdjusted, s.TokensPerChunk, s.PromptTokens, s.OutputTokens}
	}
	wd, md := dists(whole), dists(merged)
	for i := range wd {
		if !reflect.DeepEqual(wd[i], md[i]) {
			t.Errorf("distribution %d differs:\nwhole  %+v\nmerged %+v", i, wd[i], md[i])
		}
	}
	if whole.TTFTErrorAdjusted.Inf == 0 || whole.TTFT.Count < 1000 {
		t.Fatalf("test data too tame: %d failures, %d ok", whole.TTFTErrorAdjusted.Inf, whole.TTFT.Count)
	}
	if !reflect.DeepEqual(whole.Requests, merged.Requests) {
		t.Errorf("requests:\nwhole  %+v\nmerged %+v", whole.Requests, merged.Requests)
	}
	if whole.Window != merged.Window || whole.WindowSeconds != merged.WindowSeconds || whole.Profile != merged.Profile {
		t.Errorf("window, profile: %+v %+v, want %+v %+v", merged.Window, merged.Profile, whole.Window, whole.Profile)
	}
	if codes(whole.Warnings) != codes(merged.Warnings) || whole.ErrorRate != merged.ErrorRate || whole.Goodput.Requests != merged.Goodput.Requests {
		t.Errorf("warnings %q vs %q, error rate %v vs %v", codes(whole.Warnings), codes(merged.Warnings), whole.ErrorRate, merged.ErrorRate)
	}
	// Rates add, up to float rounding.
	for _, r := range []struct {
		name        string
		whole, part float64
	}{
		{"output tok/s", whole.OutputTokensPerSecond, merged.OutputTokensPerSecond},
		{"input tok/s", whole.InputTokensPerSecond, merged.InputTokensPerSecond},
		{"cached input tok/s", whole.CachedInputTokensPerSecond, merged.CachedInputTokensPerSecond},
		{"total tok/s", whole.TotalTokensPerSecond, merged.TotalTokensPerSecond},
		{"req/s", whole.RequestsPerSecond, merged.RequestsPerSecond},
		{"mean in flight", whole.MeanConcurrency, merged.MeanConcurrency},
		{"goodput req/s", whole.Goodput.RequestsPerSecond, merged.Goodput.RequestsPerSecond},
		{"goodput tok/s", whole.Goodput.OutputTokensPerSecond, merged.Goodput.OutputTokensPerSecond},
		{"target", whole.Client.TargetRate, merged.Client.TargetRate},
		{"achieved", whole.Client.AchievedRate, merged.Client.AchievedRate},
		{"ratio", whole.Client.AchievedRatio, merged.Client.AchievedRatio},
		{"cpu s", whole.Client.CPUSeconds, merged.Client.CPUSeconds},
	} {
		if math.Abs(r.whole-r.part) > 1e-9*math.Abs(r.whole) {
			t.Errorf("%s: whole %v, merged %v", r.name, r.whole, r.part)
		}
	}
	// Intervals: Wilson's are exact, the batch-means ones equal up to float
	// rounding (their sub-window counts add).
	if whole.ErrorRateCI != merged.ErrorRateCI || whole.Goodput.FractionCI != merged.Goodput.FractionCI {
		t.Errorf("Wilson intervals: whole %v %v, merged %v %v", whole.ErrorRateCI, whole.Goodput.FractionCI, merged.ErrorRateCI, merged.Goodput.FractionCI)
	}
	if whole.Batches.Used != merged.Batches.Used {
		t.Errorf("batches used: whole %d, merged %d", whole.Batches.Used, merged.Batches.Used)
	}
	for _, c := range []struct {
		name          string
		whole, merged stats.Interval
	}{
		{"output tok/s", whole.OutputTokensPerSecondCI, merged.OutputTokensPerSecondCI},
		{"req/s", whole.RequestsPerSecondCI, merged.RequestsPerSecondCI},
		{"goodput tok/s", whole.Goodput.OutputTokensPerSecondCI, merged.Goodput.OutputTokensPerSecondCI},
		{"goodput req/s", whole.Goodput.RequestsPerSecondCI, merged.Goodput.RequestsPerSecondCI},
	} {
		if c.whole.IsZero() || math.Abs(c.whole.Lo-c.merged.Lo) > 1e-9*c.whole.Hi || math.Abs(c.whole.Hi-c.merged.Hi) > 1e-9*c.whole.Hi {
			t.Errorf("%s interval: whole %v, merged %v", c.name, c.whole, c.merged)
		}
	}
	if merged.Client.PeakInFlight < whole.Client.PeakInFlight {
		t.Errorf("merged peak %d below the whole's %d: not an upper bound", merged.Client.PeakInFlight, whole.Client.PeakInFlight)
	}
}

func TestMergeSummariesWindowsAndErrors(t *testing.T) {
	a := summarize(Config{Window: loadgen.Window{Start: 0, End: 10 * time.Second}}, paced(10, 0, ms(5))...)
	a.Warnings = append(a.Warnings, Warning{Code: "tokenizer_guess", Level: 0, Message: "kept"})
	b := summarize(Config{Window: loadgen.Window{Start: time.Second, End: 12 * time.Second}}, paced(10, 0, ms(5))...)
	m, err := MergeSummaries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Window != (loadgen.Window{Start: 0, End: 12 * time.Second}) || m.WindowSeconds != 12 {
		t.Errorf("hull = %+v", m.Window)
	}
	if got := codes(m.Warnings); got != string(WarnShardWindowsDiffer)+",tokenizer_guess" {
		t.Errorf("warnings = %q", got)
	}
	if _, err := MergeSummaries(); err == nil {
		t.Error("no parts: no error")
	}
	c := b
	c.Level = 4
	if _, err := MergeSummaries(a, c); err == nil || !strings.Contains(err.Error(), "level 4") {
		t.Errorf("level mismatch: %v", err)
	}
	c = b
	c.TTFT.Histogram = "garbage"
	if _, err := MergeSummaries(a, c); err == nil || !strings.Contains(err.Error(), "ttft") {
		t.Errorf("corrupt histogram: %v", err)
	}
}

func TestDistributionJSON(t *testing.T) {
	t.Parallel()
	d := latencies(3, 10, 20)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mean":"inf"`, `"p99":"inf"`, `"inf":3`, `"min":10`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Distribution
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("round trip = %+v, want %+v", back, d)
	}
	if err := json.Unmarshal([]byte(`{"mean":"fast"}`), &back); err == nil {
		t.Error(`"fast" accepted as a number`)
	}
	nan := Distribution{Mean: math.NaN(), Min: math.Inf(-1)}
	if b, err := json.Marshal(nan); err != nil || !bytes.Contains(b, []byte(`"mean":null`)) || !bytes.Contains(b, []byte(`"min":"-inf"`)) {
		t.Errorf("NaN, -Inf = %s, %v", b, err)
	}
}

// TestSummaryGolden pins the JSON of a Summary. Regenerate with
// go test ./metrics -run '^TestSummaryGolden$' -update.
func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	recs := randomRecords(rand.New(rand.NewPCG(7, 7)), 40)
	recs = append(recs, failure(40, 5000, loadgen.ErrorHTTP), failure(41, 6000, loadgen.ErrorDisconnect))
	s := summarize(Config{Level: 1, Profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 4, MaxConcurrency: 8},
		Window: loadgen.Window{Start: time.Second, End: 11 * time.Second}, CPUSeconds: 0.5, WallSeconds: 12,
		Good: func(r *loadgen.Record) bool { d, _ := r.TTFT(); return d < ms(200) }}, recs...)
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "summary.golden.json")
	golden.Check(t, path, got)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.TTFTErrorAdjusted, s.TTFTErrorAdjusted) || back.Requests.Sent != s.Requests.Sent {
		t.Error("golden summary does not decode back to the same values")
	}
}

func TestLive(t *testing.T) {
	t.Parallel()
	l := NewLive()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				r := stream(int64(i), 0, float64(1+i%100), 1, 1, 1)
				if i%50 == 0 {
					r = failure(int64(i), 0, loadgen.ErrorHTTP)
				}
				l.Add(r)
				_ = l.Stats()
			}
		}()
	}
	wg.Wait()
	s := l.Stats()
	if s.Done != 1000 || s.Failed != 20 || s.OutputTokens != 2*980 {
		t.Errorf("stats = %+v", s)
	}
	if math.Abs(s.TTFTP99-99) > 1 {
		t.Errorf("TTFT p99 = %v ms, want ≈ 99", s.TTFTP99)
	}
	l.Reset()
	if s := l.Stats(); s != (LiveStats{}) {
		t.Errorf("after reset: %+v", s)
	}
}
