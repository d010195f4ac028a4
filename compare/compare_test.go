package compare

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

const peers = "../testdata/peers/"

// simulatedRun writes a gollm-bench results folder as `run --profile
// concurrent --rate 8 --max-seconds 3 --warmup 0 --cooldown 0` against the
// fixed-latency mock would: 8 workers in a closed loop, each request's
// TTFT the mock's ttft plus an exponential scheduling jitter (mean 0.4
// ms, drawn from seed), then 8 tokens 2 ms apart. The records go through
// the metrics Accumulator into run.json's summary and into
// requests.jsonl, as a run writes them.
func simulatedRun(t testing.TB, seed uint64, ttft time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, 99))
	window := loadgen.Window{Start: 0, End: 3 * time.Second}
	profile := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8, Seed: seed}
	acc := metrics.NewAccumulator(metrics.Config{Profile: profile, Window: window, WallSeconds: 3})
	f, err := os.Create(filepath.Join(dir, results.RequestsJSONL))
	if err != nil {
		t.Fatal(err)
	}
	enc := loadgen.NewEncoder(f)
	var recs []*loadgen.Record
	seq := int64(0)
	for w := range 8 {
		at := time.Duration(w) * 100 * time.Microsecond
		for at < window.End {
			jitter := time.Duration(r.ExpFloat64() * 0.4 * float64(time.Millisecond))
			first := at + ttft + jitter
			rec := &loadgen.Record{Seq: seq, ScheduledAt: at, SentAt: at, FirstTokenAt: first, Status: loadgen.StatusOK,
				PromptTokens: 16, OutputTokens: 8, RequestedOutputTokens: 8}
			for i := range 8 {
				rec.ChunkTimes = append(rec.ChunkTimes, first+time.Duration(i)*2*time.Millisecond)
				rec.ChunkTokens = append(rec.ChunkTokens, 1)
			}
			rec.LastTokenAt = rec.ChunkTimes[7]
			rec.DoneAt = rec.LastTokenAt
			recs = append(recs, rec)
			at, seq = rec.DoneAt, seq+1
		}
	}
	for _, rec := range recs {
		acc.Add(rec)
		if err := enc.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	run := results.Run{
		RunID: "sim", Tool: results.Tool{Name: "gollm-bench", Version: "test"},
		Config: results.Config{Command: "run", Endpoint: "completions", Stream: true, IgnoreEOS: true, Profile: "concurrent",
			Rates: []float64{8}, Seed: seed, Data: "prompt_tokens=16,output_tokens=8", PrefixCache: "cold", Warmup: "0", Cooldown: "0", MaxSeconds: 3},
		Result: sweep.Result{Kind: sweep.KindLevels, Levels: []sweep.LevelOutcome{{Index: 0, Profile: profile, OfferedLoad: 8, Unit: sweep.UnitConcurrency, Summary: acc.Summary()}}},
	}
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

func read(t testing.TB, path string) peer.Result {
	t.Helper()
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func row(t testing.TB, res Result, key string) Row {
	t.Helper()
	for _, r := range res.Rows {
		if r.Metric.Key == key {
			return r
		}
	}
	t.Fatalf("no %s row in %+v", key, res.Rows)
	return Row{}
}

// TestSameServerTrials is the acceptance test "two runs against the same
// server with different seeds show ~ for TTFT p99 in at least 95 % of 40
// seeded trials": each trial compares two simulated runs of the one
// fixed-TTFT server drawn with different seeds, through the path
// `gollm-bench compare` takes (results folders read back, records and
// all, then Runs), and no trial's --fail-on ttft_p99:+5% fails.
func TestSameServerTrials(t *testing.T) {
	skipUnderRace(t)
	ths, err := ParseFailOn("ttft_p99:+5%")
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	const trials = 40
	for i := range trials {
		a := read(t, simulatedRun(t, uint64(2*i+1), 20*time.Millisecond))
		b := read(t, simulatedRun(t, uint64(2*i+2), 20*time.Millisecond))
		res := Runs(a, b, Options{})
		r := row(t, res, "ttft_p99")
		if r.Method != MethodBootstrap {
			t.Fatalf("trial %d: method %q, want the bootstrap (both sides have records)", i, r.Method)
		}
		if r.Verdict == VerdictSame {
			same++
		}
		if regs := Regressions(res, ths); len(regs) > 0 {
			t.Errorf("trial %d: the same server regressed: %v", i, regs)
		}
		if len(res.Mismatches) != 0 {
			t.Errorf("trial %d: mismatches %v", i, res.Mismatches)
		}
	}
	if same < trials*95/100 {
		t.Errorf("TTFT p99 was ~ in %d of %d trials, want at least 95 %%", same, trials)
	}
}

// TestSlowerServerRegresses: TTFT 20 ms against 30 ms is a significant
// regression of TTFT p99, by the bootstrap with records and by order
// statistics from the histograms alone.
func TestSlowerServerRegresses(t *testing.T) {
	adir, bdir := simulatedRun(t, 1, 20*time.Millisecond), simulatedRun(t, 2, 30*time.Millisecond)
	ths, _ := ParseFailOn("ttft_p99:+5%")
	a, b := read(t, adir), read(t, bdir)
	res := Runs(a, b, Options{})
	r := row(t, res, "ttft_p99")
	if r.Verdict != VerdictWorse || r.Method != MethodBootstrap || !(r.Rel.V > 0.4) || !(r.RelCI.Lo > 0.3) {
		t.Errorf("TTFT p99 row: %+v", r)
	}
	if regs := Regressions(res, ths); len(regs) != 1 || regs[0].Row.Metric.Key != "ttft_p99" {
		t.Errorf("regressions %v", regs)
	}
	if !r.P.OK || r.P.V > 1e-6 {
		t.Errorf("Mann-Whitney p %v, want tiny", r.P)
	}
	// Without requests.jsonl: the histograms, by order statistics.
	for _, d := range []string{adir, bdir} {
		if err := os.Remove(filepath.Join(d, results.RequestsJSONL)); err != nil {
			t.Fatal(err)
		}
	}
	res = Runs(read(t, adir), read(t, bdir), Options{})
	r = row(t, res, "ttft_p99")
	if r.Verdict != VerdictWorse || r.Method != MethodOrderStats {
		t.Errorf("from histograms: %+v", r)
	}
	// Throughput falls too: batch means decide it.
	out := row(t, res, "output_tps")
	if out.Method != MethodBatchMeans || out.Verdict != VerdictWorse {
		t.Errorf("output tok/s: %+v", out)
	}
}

// TestWorkloadMismatch: the GuideLLM fixture (ISL 99, OSL 1,024, a
// dataset, completions) against our run (ISL 16, OSL 8) lists each fact
// that differs, before any figure is judged.
func TestWorkloadMismatch(t *testing.T) {
	a := read(t, peers+"guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	b := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	res := Runs(a, b, Options{})
	want := []Mismatch{{"ISL", "99", "16"}, {"OSL", "1024", "8"}, {"prefix cache", "dataset", "cold"}}
	for _, w := range want {
		found := false
		for _, m := range res.Mismatches {
			found = found || m == w
		}
		if !found {
			t.Errorf("mismatch %v not listed in %v", w, res.Mismatches)
		}
	}
	if mm, _ := CheckWorkload(a, b); !slices.Equal(mm, res.Mismatches) {
		t.Errorf("CheckWorkload %v, Runs %v: want the same check", mm, res.Mismatches)
	}
	// Concurrency 4 against 8: no level matches, both are listed.
	if len(res.Rows) != 0 || len(res.OnlyA) != 1 || len(res.OnlyB) != 1 {
		t.Errorf("rows %d, only in A %v, only in B %v", len(res.Rows), res.OnlyA, res.OnlyB)
	}
}

func TestWorkloadFactsCompare(t *testing.T) {
	for _, tt := range []struct {
		same func(string, string) bool
		x, y string
		want bool
	}{
		{sameTokenizer, "/root/.cache/huggingface/hub/models--Qwen--Qwen3-4B/snapshots/abc/tokenizer.json", "Qwen/Qwen3-4B", true},
		{sameTokenizer, "Qwen/Qwen3-4B", "qwen/qwen3-4b", true},
		{sameTokenizer, "gpt2", "Qwen/Qwen3-4B", false},
		{sameSLO, "ttft_p99<=500ms,itl_p95<=50ms", "ttft_p99 <= 0.5s, itl_p95<=50ms", true},
		{sameSLO, "ttft_p99<=500ms", "ttft_p99<=400ms", false},
		{sameTrim, "90s", "1m30s", true},
		{sameTrim, "0", "0s", true},
		{sameTrim, "10%", "0", false},
		{sameProfile, "sweep", "constant", true},
	} {
		if got := tt.same(tt.x, tt.y); got != tt.want {
			t.Errorf("%q vs %q: %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestPeerFamilies: hand-picked figures of each fixture family come
// through Runs unchanged, with the method their data allow.
func TestPeerFamilies(t *testing.T) {
	// vLLM legacy c1 (per-request arrays) against c64: 10 req/s, caps 1 and 64 differ.
	c1 := read(t, peers+"vllm-benchmark_serving-f504e17-h100-llama3.1-8b-c1-isl512-osl85.json")
	res := Runs(c1, c1, Options{})
	r := row(t, res, "ttft_p99")
	// 100 requests cannot bound a p99 (299 can): no verdict either way.
	if r.Method != MethodBootstrap || r.Verdict != VerdictUnknown || !r.TooFew || !r.Diff.OK || r.Diff.V != 0 {
		t.Errorf("vLLM against itself: %+v", r)
	}
	if r := row(t, res, "ttft_p50"); r.Method != MethodBootstrap || r.Verdict != VerdictSame || r.TooFew {
		t.Errorf("vLLM against itself, p50: %+v", r)
	}
	// vLLM bench serve c2 against its sweep's run 0: summaries only; the
	// ITL mean (vLLM's TPOT) by Welch from std and count.
	a := read(t, peers+"vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json")
	b := read(t, peers+"vllm-bench-sweep-serve-v0.25.1-cpu-opt125m-seqs4-c2-run0.json")
	ms, _ := ParseMetrics("ttft_p99,itl_mean")
	res = Runs(a, b, Options{Metrics: ms})
	if r := row(t, res, "ttft_p99"); r.Method != MethodNone || r.Verdict != VerdictUnknown || r.A != peer.Some(734.4049174101428) || r.B != peer.Some(762.4942294094944) {
		t.Errorf("vLLM TTFT p99 (no interval): %+v", r)
	}
	if r := row(t, res, "itl_mean"); r.Method != MethodWelch || r.A != peer.Some(11.265828258331112) || r.B != peer.Some(8.204553624697533) || r.Verdict != VerdictBetter {
		t.Errorf("vLLM ITL mean: %+v", r)
	}
	// AIPerf per-request export against the aggregate of the same run: the
	// same figures, so no difference; cancellations are incomplete on both.
	recs := read(t, peers+"aiperf-0.1.1-7c31f57-run1-profile_export.jsonl")
	agg := read(t, peers+"aiperf-0.1.1-7c31f57-run1-profile_export_aiperf.json")
	res = Runs(recs, agg, Options{})
	if r := row(t, res, "error_rate"); r.A != peer.Some(0) || r.B != peer.Some(0) || r.Verdict != VerdictSame {
		t.Errorf("AIPerf error rate: %+v", r)
	}
	if len(res.Mismatches) != 1 || res.Mismatches[0].Field != "load" {
		t.Errorf("mismatches %v, want only the unstated load", res.Mismatches)
	}
	// GuideLLM: GuideLLM's ITL p95 is token-weighted, ours per request;
	// its 4 complete samples are per request, so the row is like for like.
	g := read(t, peers+"guidellm-v0.5.0.dev0-concurrent4-qwen3-4b-4req.json")
	res = Runs(g, g, Options{})
	if r := row(t, res, "itl_p95"); r.Unlike || r.Method != MethodOrderStats || r.NA != peer.Known(4) {
		t.Errorf("GuideLLM ITL p95: %+v", r)
	}
	if r := row(t, res, "output_tps"); r.A != peer.Some(165.59511945248636) || r.Verdict != VerdictUnknown {
		t.Errorf("GuideLLM output tok/s: %+v", r)
	}
}

func TestParseFailOn(t *testing.T) {
	ths, err := ParseFailOn("ttft_p99:+5%, itl_p95:5%,goodput:-3%,cpm:+5%,e2e_p99:+20ms,error_rate:+0.5%")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key   string
		limit float64
		abs   bool
	}{{"ttft_p99", 0.05, false}, {"itl_p95", 0.05, false}, {"goodput", 0.03, false}, {"cpm", 0.05, false}, {"e2e_p99", 20, true}, {"error_rate", 0.005, true}}
	for i, w := range want {
		if ths[i].Metric.Key != w.key || math.Abs(ths[i].Limit-w.limit) > 1e-12 || ths[i].Abs != w.abs {
			t.Errorf("term %d: %+v, want %+v", i, ths[i], w)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"ttft:+5%", `column 1, term "ttft:+5%": unknown metric "ttft"`},
		{"ttft_p99:-5%", "lower is better: it regresses upwards, so write ttft_p99:+5%"},
		{"goodput:+3%", "so write goodput:-3%"},
		{"ttft_p99", "want METRIC:LIMIT"},
		{"ttft_p99:+5%,,itl_p95:+1%", "column 14"},
		{"goodput:-3ms", "want a percentage"},
		{"ttft_p99:+x%", `limit "x%"`},
		{"ttft_p99:+5%, bogus:1%", `column 15, term "bogus:1%"`},
	} {
		_, err := ParseFailOn(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseFailOn(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestRegressionNeedsSignificanceAndSize: a worse row fails only when its
// whole interval lies beyond its limit; a "~" row never fails; an unlike
// row is not judged.
func TestRegressionNeedsSignificanceAndSize(t *testing.T) {
	m, _ := LookupMetric("ttft_p99")
	iv := func(lo, hi float64) stats.Interval { return stats.Interval{Lo: lo, Hi: hi} }
	rows := []Row{
		{Metric: m, Level: "small", Verdict: VerdictWorse, Method: MethodBootstrap, Rel: peer.Some(0.03), RelCI: iv(0.02, 0.04), Diff: peer.Some(3), DiffCI: iv(2, 4)},
		{Metric: m, Level: "big", Verdict: VerdictWorse, Method: MethodBootstrap, Rel: peer.Some(0.30), RelCI: iv(0.25, 0.35), Diff: peer.Some(30), DiffCI: iv(25, 35)},
		{Metric: m, Level: "noise", Verdict: VerdictSame, Method: MethodBootstrap, Rel: peer.Some(0.30), RelCI: iv(-0.1, 0.7), Diff: peer.Some(30), DiffCI: iv(-10, 70)},
		{Metric: m, Level: "unlike", Verdict: VerdictWorse, Method: MethodBootstrap, Rel: peer.Some(0.30), RelCI: iv(0.25, 0.35), Diff: peer.Some(30), DiffCI: iv(25, 35), Unlike: true},
	}
	ths, _ := ParseFailOn("ttft_p99:+5%")
	regs := Regressions(Result{Rows: rows}, ths)
	if len(regs) != 1 || regs[0].Where != "big" || !strings.Contains(regs[0].String(), "+30.0%") {
		t.Errorf("regressions %v", regs)
	}
	if und := Undecided(Result{Rows: rows}, ths); len(und) != 1 || und[0].Where != "noise" {
		t.Errorf("undecided %v", und)
	}
	ths, _ = ParseFailOn("ttft_p99:+20ms")
	if regs := Regressions(Result{Rows: rows}, ths); len(regs) != 1 || regs[0].Where != "big" {
		t.Errorf("absolute: %v", regs)
	}
}

func TestParseMetrics(t *testing.T) {
	ms, err := ParseMetrics("ttft_p99, itl_mean,output_tok_s")
	if err != nil || len(ms) != 3 || ms[2].Key != "output_tps" {
		t.Errorf("%v %v", ms, err)
	}
	if _, err := ParseMetrics("ttft_p99,cpm,nope"); err == nil || !strings.Contains(err.Error(), `"cpm", "nope"`) {
		t.Errorf("err %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "run.json not found") {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "nope.json")); err == nil || !strings.Contains(err.Error(), "nope.json") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadRecordsTornLine: an interrupted run's last line is torn; the
// records before it count.
func TestReadRecordsTornLine(t *testing.T) {
	good := `{"seq":0,"level":0,"scheduled_at":0,"sent_at":0,"first_token_at":20000000,"last_token_at":30000000,"done_at":30000000,"status":"ok","prompt_tokens":4,"output_tokens":3,"in_window":true}`
	recs, err := ReadRecords(strings.NewReader(good + "\n" + `{"seq":1,"lev`))
	if err != nil || len(recs[0].TTFT) != 1 || recs[0].TTFT[0] != 20 || recs[0].ITL[0] != 5 || recs[0].E2E[0] != 30 {
		t.Errorf("%+v %v", recs[0], err)
	}
	if _, err := ReadRecords(strings.NewReader(`{"seq":1,"lev` + "\n" + good + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad line before good ones: %v", err)
	}
}

func FuzzParseFailOn(f *testing.F) {
	for _, s := range []string{"ttft_p99:+5%,itl_p95:+5%,goodput:-3%,cpm:+5%", "e2e_p99:+20ms", "error_rate:+0.5%", ",,", "ttft_p99:−5%", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ths, err := ParseFailOn(s)
		if err != nil {
			return
		}
		for _, th := range ths {
			if th.Limit < 0 || math.IsNaN(th.Limit) {
				t.Fatalf("%q: limit %v", s, th.Limit)
			}
		}
		_ = Regressions(Result{}, ths)
	})
}

// TestKneeRatesWithoutSLO: a run without an SLO has no goodput batches;
// its scorecard's goodput is the raw throughput, and so are the batch
// rates that decide goodput and CPM.
func TestKneeRatesWithoutSLO(t *testing.T) {
	r := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	l := &r.Levels[0]
	if l.GoodputTokPerSec.OK {
		t.Fatal("a run without an SLO has goodput")
	}
	rates := kneeRates(l, kindGoodput)
	if len(rates) < 5 || !(rates[0] > 0) {
		t.Errorf("goodput batch rates %v, want the output rate's", rates)
	}
}

// TestFromRunSkipsSupersededLevels: a level a sweep re-ran to a decision
// is compared through its re-run only, and the knee follows it.
func TestFromRunSkipsSupersededLevels(t *testing.T) {
	p := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}
	run := results.Run{Result: sweep.Result{
		Levels: []sweep.LevelOutcome{
			{Index: 0, Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}},
			{Index: 1, Profile: p, RerunBy: 2},
			{Index: 2, Profile: p, Phase: sweep.PhaseDecide},
		},
		Knee: &sweep.Knee{Level: 1, OfferedLoad: 4, Unit: sweep.UnitConcurrency, BracketLo: 4},
	}}
	r := FromRun(run, nil, nil, "x")
	if len(r.Levels) != 2 || r.Levels[1].Label != "level 2" || r.Headline.KneeLevel != 1 {
		t.Errorf("levels %v, knee level %d", r.Levels, r.Headline.KneeLevel)
	}
}

// TestOwnIntervalAgainstSummary: what issue 29's cross-check saw: ours
// (per-request figures) against inference-perf's report (summaries only)
// printed our TTFT p50 without its interval, as if we had none, because
// the difference has none. Each side that has order statistics keeps its
// own interval.
func TestOwnIntervalAgainstSummary(t *testing.T) {
	summary := read(t, peers+"inference-perf-0.7.0-llama-tiny-qwen3-concurrent4-5s/stage_0_lifecycle_metrics.json")
	records := read(t, peers+"guidellm-0.8.1-llama-tiny-qwen3-concurrent4-5s.json")
	ms, err := ParseMetrics("ttft_p50,e2e_p99")
	if err != nil {
		t.Fatal(err)
	}
	res := Runs(summary, records, Options{Metrics: ms})
	for _, key := range []string{"ttft_p50", "e2e_p99"} {
		r := row(t, res, key)
		if r.Method != MethodNone || !r.ACI.IsZero() || r.BCI.IsZero() || !r.B.OK {
			t.Errorf("%s: method %s, A's interval %+v, B's %+v", key, r.Method, r.ACI, r.BCI)
			continue
		}
		if !r.BCI.HiBounded() {
			continue // a p99 of a few dozen requests has no upper bound
		}
		if r.B.V < r.BCI.Lo || r.B.V > r.BCI.Hi {
			t.Errorf("%s: B %v outside its interval %+v", key, r.B.V, r.BCI)
		}
	}
}
