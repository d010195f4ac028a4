package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// shardRecords returns n varied records of level 0: ok streams of random
// shape, failures and cancellations, some sent outside the window.
func shardRecords(rng *rand.Rand, n int) []loadgen.Record {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	recs := make([]loadgen.Record, n)
	for i := range recs {
		r := &recs[i]
		sched := time.Duration(i) * ms(4) // 250 req/s
		sent := sched + time.Duration(rng.Int64N(int64(ms(10))))
		*r = loadgen.Record{Seq: int64(i), ScheduledAt: sched, SentAt: sent, PromptTokens: 50 + rng.IntN(500),
			PromptTokensSource: loadgen.SourceServer, RequestedOutputTokens: 64}
		switch x := rng.IntN(25); {
		case x == 0:
			r.Status, r.ErrorKind, r.DoneAt = loadgen.StatusError, loadgen.ErrorHTTP, sent+ms(3)
			continue
		case x == 1:
			r.Status, r.ErrorKind = loadgen.StatusCancelled, loadgen.ErrorCancelled
		default:
			r.Status = loadgen.StatusOK
		}
		t := sent + time.Duration(rng.Int64N(int64(ms(300))))
		chunks := 1 + rng.IntN(40)
		total := 0
		for range chunks {
			k := int32(1 + rng.IntN(2))
			r.ChunkTimes = append(r.ChunkTimes, t)
			r.ChunkTokens = append(r.ChunkTokens, k)
			total += int(k)
			t += time.Duration(rng.Int64N(int64(ms(30))))
		}
		r.FirstTokenAt, r.FirstContentAt, r.LastTokenAt = r.ChunkTimes[0], r.ChunkTimes[0], r.ChunkTimes[chunks-1]
		r.DoneAt = r.LastTokenAt + ms(1)
		r.OutputTokens, r.OutputTokensSource = total, loadgen.SourceServer
	}
	return recs
}

// summarizeShard accumulates the records of recs that shard s owns (all
// of them for the zero Shard) as the harness does for a shard's level.
func summarizeShard(t *testing.T, recs []loadgen.Record, p loadgen.Profile, s loadgen.Shard, w loadgen.Window, obj slo.Objective) (metrics.Summary, []loadgen.Record) {
	t.Helper()
	share, err := s.Share(p)
	if err != nil {
		t.Fatal(err)
	}
	acc := metrics.NewAccumulator(metrics.Config{Level: 0, Profile: share, Window: w, Good: obj.Good,
		CPUSeconds: 1, WallSeconds: 12, MaxLag: obj.MaxLag()})
	var mine []loadgen.Record
	for _, r := range recs {
		if s.Owns(r.Seq) {
			acc.Add(&r)
			mine = append(mine, r)
		}
	}
	return acc.Summary(), mine
}

// writeShard writes a shard's run.json and requests.jsonl as `run --shard`
// does.
func writeShard(t *testing.T, dir string, run results.Run, recs []loadgen.Record) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, results.RequestsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	enc := loadgen.NewEncoder(f)
	for i := range recs {
		if err := enc.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func readRun(t *testing.T, dir string) results.Run {
	t.Helper()
	run, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestMergeEqualsSingleProcess checks docs/cli.md#merge: the same records,
// split by seq % k into k shards' run.json and merged by `gollm-bench merge`,
// give the single-process summary: distributions (HDR histograms), counts,
// window and verdict exactly, rates up to float rounding.
func TestMergeEqualsSingleProcess(t *testing.T) {
	t.Parallel()
	recs := shardRecords(rand.New(rand.NewPCG(3, 4)), 3000)
	profile := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 250}
	window := loadgen.Window{Start: time.Second, End: 11 * time.Second}
	obj, err := slo.Parse("ttft_p99<=250ms,error_rate<=5%")
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := summarizeShard(t, recs, profile, loadgen.Shard{}, window, obj)
	if whole.TTFT.Count < 2000 || whole.Requests.Failed == 0 {
		t.Fatalf("test data too tame: %d ok, %d failed", whole.TTFT.Count, whole.Requests.Failed)
	}
	for _, k := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("%d shards", k), func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "R1")
			for i := range k {
				s := loadgen.Shard{Index: i, Count: k}
				sum, mine := summarizeShard(t, recs, profile, s, window, obj)
				run := results.Run{
					RunID:  "R1",
					Config: results.Config{Command: "run", Profile: "constant", Rates: []float64{250}, Seed: 42, Shard: s.String()},
					Result: sweep.Result{Kind: sweep.KindRate, Objective: obj, StopReason: sweep.StopCompleted, Levels: []sweep.LevelOutcome{{
						Index: 0, Phase: sweep.PhaseGrid, Profile: profile, OfferedLoad: 250, Unit: "req/s", Summary: sum, Verdict: obj.Evaluate(sum),
					}}},
				}
				writeShard(t, filepath.Join(dir, results.ShardDir(i)), run, mine)
			}
			code, stdout, stderr := cli(t, context.Background(), "merge", dir, "--format", "csv")
			if code != exitcode.OK && code != exitcode.SLOFailed {
				t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
			}
			merged := readRun(t, dir)
			if merged.Config.Shards != k || merged.Config.Shard != "" || len(merged.Result.Levels) != 1 {
				t.Fatalf("merged config shards %d shard %q, %d levels", merged.Config.Shards, merged.Config.Shard, len(merged.Result.Levels))
			}
			lv := merged.Result.Levels[0]
			m := lv.Summary
			dists := func(s metrics.Summary) []metrics.Distribution {
				return []metrics.Distribution{s.TTFT, s.TTFTCorrected, s.TTFOT, s.ITL, s.ICL, s.E2E, s.Lag,
					s.TTFTErrorAdjusted, s.E2EErrorAdjusted, s.TokensPerChunk, s.PromptTokens, s.OutputTokens}
			}
			wd, md := dists(whole), dists(m)
			for i := range wd {
				if !reflect.DeepEqual(wd[i], md[i]) {
					t.Errorf("distribution %d differs:\nwhole  %+v\nmerged %+v", i, wd[i], md[i])
				}
			}
			if !reflect.DeepEqual(whole.Requests, m.Requests) || whole.Goodput.Requests != m.Goodput.Requests || whole.ErrorRate != m.ErrorRate {
				t.Errorf("requests:\nwhole  %+v goodput %d\nmerged %+v goodput %d", whole.Requests, whole.Goodput.Requests, m.Requests, m.Goodput.Requests)
			}
			if whole.Window != m.Window || whole.Profile != m.Profile {
				t.Errorf("window %+v profile %+v, want %+v %+v", m.Window, m.Profile, whole.Window, whole.Profile)
			}
			for _, r := range []struct {
				name          string
				whole, merged float64
			}{
				{"output tok/s", whole.OutputTokensPerSecond, m.OutputTokensPerSecond},
				{"input tok/s", whole.InputTokensPerSecond, m.InputTokensPerSecond},
				{"req/s", whole.RequestsPerSecond, m.RequestsPerSecond},
				{"goodput req/s", whole.Goodput.RequestsPerSecond, m.Goodput.RequestsPerSecond},
				{"achieved req/s", whole.Client.AchievedRate, m.Client.AchievedRate},
			} {
				if math.Abs(r.whole-r.merged) > 1e-9*math.Abs(r.whole) {
					t.Errorf("%s: merged %v, whole %v", r.name, r.merged, r.whole)
				}
			}
			if want := obj.Evaluate(whole); !reflect.DeepEqual(lv.Verdict, want) {
				t.Errorf("verdict %+v, want %+v", lv.Verdict, want)
			}
			got := readRecords(t, filepath.Join(dir, results.RequestsJSONL))
			if len(got) != len(recs) {
				t.Fatalf("merged requests.jsonl has %d records, want %d", len(got), len(recs))
			}
			seqs := make([]int64, len(got))
			for i, r := range got {
				seqs[i] = r.Seq
			}
			slices.Sort(seqs)
			for i, s := range seqs {
				if s != int64(i) {
					t.Fatalf("merged seqs are not 0..%d once each: %d at %d", len(recs)-1, s, i)
				}
			}
			for _, f := range []string{results.ScorecardJSON, results.LevelsCSV} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing output: %v", err)
				}
			}
		})
	}
}

// TestMergeRefusesBadShards: shards that do not belong together are a
// usage error (exit 2) that says why.
func TestMergeRefusesBadShards(t *testing.T) {
	t.Parallel()
	profile := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}
	shardRun := func(id, shard string, seed uint64) results.Run {
		return results.Run{RunID: id, Config: results.Config{Command: "run", Profile: "constant", Rates: []float64{10}, Seed: seed, Shard: shard},
			Result: sweep.Result{Levels: []sweep.LevelOutcome{{Profile: profile, Summary: metrics.Summary{Profile: profile}}}}}
	}
	tests := []struct {
		name   string
		shards map[string]results.Run // folder -> run
		want   string
	}{
		{"missing shard", map[string]results.Run{"shard-0": shardRun("R", "0/3", 1), "shard-2": shardRun("R", "2/3", 1)}, "shard 1/3 missing"},
		{"other run", map[string]results.Run{"shard-0": shardRun("R", "0/2", 1), "shard-1": shardRun("S", "1/2", 1)}, "different runs"},
		{"counts differ", map[string]results.Run{"shard-0": shardRun("R", "0/2", 1), "shard-1": shardRun("R", "1/3", 1)}, "shard counts differ"},
		{"twice", map[string]results.Run{"shard-0": shardRun("R", "0/2", 1), "shard-1": shardRun("R", "0/2", 1)}, "given twice"},
		{"other seed", map[string]results.Run{"shard-0": shardRun("R", "0/2", 1), "shard-1": shardRun("R", "1/2", 2)}, "--seed"},
		{"not a shard", map[string]results.Run{"shard-0": shardRun("R", "", 1)}, "not a shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, run := range tt.shards {
				writeShard(t, filepath.Join(dir, name), run, nil)
			}
			code, _, stderr := cli(t, context.Background(), "merge", dir)
			if code != exitcode.Usage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitcode.Usage, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, results.RunJSON)); err == nil {
				t.Error("a refused merge wrote run.json")
			}
		})
	}
	if code, _, stderr := cli(t, context.Background(), "merge", t.TempDir()); code != exitcode.Usage || !strings.Contains(stderr, "shard-*/") {
		t.Errorf("empty folder: exit %d, %q", code, stderr)
	}
}

// TestShardedRunAgainstMock is the distributed run end to end: two shards
// of one seeded constant-rate plan run concurrently against the mock, and
// merge gives one result with every request once.
func TestShardedRunAgainstMock(t *testing.T) {
	t.Parallel()
	url := fastMock(t)
	dir := t.TempDir()
	args := func(shard string) []string {
		return []string{"run", "--target", url, "--profile", "constant", "--rate", "40", "--max-requests", "40",
			"--warmup", "0", "--cooldown", "0", "--data", "prompt_tokens=32,output_tokens=8", "--energy", "none",
			"--output-dir", dir, "--run-id", "dist", "--format", "json", "--shard", shard}
	}
	var wg sync.WaitGroup
	for _, s := range []string{"0/2", "1/2"} {
		wg.Go(func() {
			if code, stdout, stderr := cli(t, context.Background(), args(s)...); code != exitcode.OK {
				t.Errorf("shard %s: exit %d\n%s\n%s", s, code, stdout, stderr)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	run := filepath.Join(dir, "dist")
	for i := range 2 {
		sh := readRun(t, filepath.Join(run, results.ShardDir(i)))
		if want := fmt.Sprintf("%d/2", i); sh.Config.Shard != want {
			t.Errorf("shard %d run.json config.shard %q, want %q", i, sh.Config.Shard, want)
		}
		if p := sh.Result.Levels[0].Summary.Profile; p.Rate != 20 {
			t.Errorf("shard %d summary rate %v, want its share 20 req/s", i, p.Rate)
		}
		for _, r := range readRecords(t, filepath.Join(run, results.ShardDir(i), results.RequestsJSONL)) {
			if r.Seq%2 != int64(i) {
				t.Errorf("shard %d sent seq %d", i, r.Seq)
			}
		}
	}
	code, stdout, stderr := cli(t, context.Background(), "merge", run)
	if code != exitcode.OK {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	merged := readRun(t, run)
	s := merged.Result.Levels[0].Summary
	if s.Requests.Scheduled != 40 || s.Requests.OK != 40 || s.Profile.Rate != 40 || merged.Config.Shards != 2 {
		t.Errorf("merged: %d scheduled, %d ok, rate %v, %d shards; want 40, 40, 40, 2", s.Requests.Scheduled, s.Requests.OK, s.Profile.Rate, merged.Config.Shards)
	}
	recs := readRecords(t, filepath.Join(run, results.RequestsJSONL))
	if len(recs) != 40 {
		t.Fatalf("merged requests.jsonl has %d records, want 40", len(recs))
	}
	for _, f := range []string{results.ScorecardJSON, results.LevelsCSV, results.ReportHTML} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	if !strings.Contains(stdout, "40") {
		t.Errorf("console table does not show the merged level:\n%s", stdout)
	}
	// Merging again is refused unless --overwrite.
	if code, _, _ := cli(t, context.Background(), "merge", run); code != exitcode.Usage {
		t.Errorf("second merge: exit %d, want %d", code, exitcode.Usage)
	}
	if code, _, stderr := cli(t, context.Background(), "merge", run, "--overwrite", "--format", "csv"); code != exitcode.OK {
		t.Errorf("merge --overwrite: exit %d: %s", code, stderr)
	}
}

// TestShardFlagErrors: --shard is for `run` only, and a shard must get a
// share of the load.
func TestShardFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--shard", "0/2"}, "a flag of `gollm-bench run` only"},
		{[]string{"run", "--profile", "constant", "--rate", "5", "--shard", "2/2"}, "0 <= INDEX < COUNT"},
		{[]string{"run", "--profile", "concurrent", "--rate", "2", "--shard", "2/3"}, "--rate"},
		{[]string{"run", "--profile", "synchronous", "--shard", "0/2"}, "synchronous"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append(tt.args, "--output-dir", t.TempDir(), "--target", "http://127.0.0.1:1")
			code, _, stderr := cli(t, context.Background(), args...)
			if code != exitcode.Usage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitcode.Usage, tt.want)
			}
		})
	}
}
