package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/stats"
)

// writeScorecard puts a scorecard.json holding goodput g tok/s (with an
// interval) into dir, as a run without an SLO writes its raw throughput.
func writeScorecard(t *testing.T, dir string, g float64) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, scorecard.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	knee := 0
	sc := scorecard.Scorecard{SchemaVersion: scorecard.SchemaVersion, Performance: scorecard.Performance{
		KneeLevel: &knee, GoodputTokS: &g, GoodputTokSCI: &stats.Interval{Lo: g * 0.99, Hi: g * 1.01}, OutputTokS: &g}}
	if err := scorecard.Write(f, sc); err != nil {
		t.Fatal(err)
	}
}

// TestGoodputWithoutSLONotMeasured: a run without an SLO has no goodput
// (its scorecard's goodput_tok_s is the raw output throughput); compare
// must not call that goodput, nor give it a verdict ("goodput tok/s 160
// … 400 +150% better" was printed).
func TestGoodputWithoutSLONotMeasured(t *testing.T) {
	da, db := simulatedRun(t, 1, 20*time.Millisecond), simulatedRun(t, 2, 20*time.Millisecond)
	writeScorecard(t, da, 160)
	writeScorecard(t, db, 400)
	a, b := read(t, da), read(t, db)
	if a.Headline.GoodputTokPerSec.OK {
		t.Errorf("headline goodput %v of a run without an SLO, want not measured", a.Headline.GoodputTokPerSec)
	}
	res := Runs(a, b, Options{})
	for _, r := range append(res.Summary, res.Rows...) {
		if r.Metric.Key == "goodput" && (r.A.OK || r.B.OK || r.Verdict != VerdictUnknown) {
			t.Errorf("goodput row %s: A %v B %v verdict %q, want not measured", r.Level, r.A, r.B, r.Verdict)
		}
	}
}

// TestReadRefusesDamagedRun: a run.json whose histogram does not decode
// is refused, as `report` refuses it (results.Open), not compared.
func TestReadRefusesDamagedRun(t *testing.T) {
	dir := simulatedRun(t, 1, 20*time.Millisecond)
	file := filepath.Join(dir, results.RunJSON)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), `"histogram": "HIST`)
	if i < 0 {
		t.Fatalf("no histogram in %s", file)
	}
	i += len(`"histogram": "`)
	data = append(append(append([]byte{}, data[:i]...), "HISTgarbage"...), data[i+len("HISTxxxxxxx"):]...)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, file} {
		_, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), results.RunJSON) {
			t.Errorf("Read(%s) = %v, want the damaged file refused", p, err)
		}
	}
}

// TestReadFolderOfRuns: a folder holding runs, not a run (`run
// --output-dir A` writes A/<run id>/), is named as such, with the fix;
// not as an unreadable peer file (A/<id>/levels.csv).
func TestReadFolderOfRuns(t *testing.T) {
	parent := t.TempDir()
	run := simulatedRun(t, 1, 20*time.Millisecond)
	if err := os.CopyFS(filepath.Join(parent, "20261201T000000Z"), os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	_, err := Read(parent)
	if err == nil || strings.Contains(err.Error(), "levels.csv") || !strings.Contains(err.Error(), "holds no run.json") ||
		!strings.Contains(err.Error(), filepath.Join(parent, "20261201T000000Z")) {
		t.Errorf("Read(folder of runs) = %v", err)
	}
}

// TestCPMBasesDiffer: a CPM per output token (no SLO) against one per
// good token is not a like-for-like change: marked, noted, not judged.
func TestCPMBasesDiffer(t *testing.T) {
	a := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	b := read(t, simulatedRun(t, 2, 20*time.Millisecond))
	b.Workload.SLO = "ttft_p99<=500ms"
	a.Headline.CPM, b.Headline.CPM = peer.Some(1), peer.Some(2)
	a.Headline.CPMCI, b.Headline.CPMCI = stats.Interval{Lo: 0.9, Hi: 1.1}, stats.Interval{Lo: 1.9, Hi: 2.1}
	res := Runs(a, b, Options{})
	var found bool
	for _, r := range res.Summary {
		if r.Metric.Key == "cpm" {
			found = true
			if !r.Unlike {
				t.Errorf("cpm row %+v: want unlike", r)
			}
		}
	}
	if !found || len(res.Notes) == 0 {
		t.Errorf("cpm row found %v, notes %v", found, res.Notes)
	}
}

// TestUncheckedGates: a gate is checked when a row judges it; otherwise
// the reason names what is missing (`compare C D --fail-on
// "goodput:-3%,cpm:+5%"` said "no regression").
func TestUncheckedGates(t *testing.T) {
	a := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	b := read(t, simulatedRun(t, 2, 20*time.Millisecond))
	a.Levels[0].GoodputTokPerSec = peer.Some(100) // as a run with an SLO
	ths, err := ParseFailOn("ttft_p99:+5%,goodput:-3%,cpm:+5%,itl_p99:+5%")
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := ParseMetrics("ttft_p99")
	res := Runs(a, b, Options{Metrics: MetricsFor(ms, ths)})
	var got []string
	for _, u := range UncheckedGates(res, ths) {
		got = append(got, u.String())
	}
	want := []string{
		"goodput:-3%: goodput is only in A (" + a.File + "): the gate cannot be checked",
		"cpm:+5%: cpm is in neither input: the gate cannot be checked",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unchecked %q, want %q", got, want)
	}
}

// TestWorkloadLoadAndLength: A at 10 req/s for 5 s against C at 25 req/s
// for 8 s gave no mismatch; every figure then compared different loads.
func TestWorkloadLoadAndLength(t *testing.T) {
	a := read(t, simulatedRun(t, 1, 20*time.Millisecond))
	c := read(t, simulatedRun(t, 2, 20*time.Millisecond))
	a.Levels[0].Mode, a.Levels[0].Rate = loadgen.ModeConstant, peer.Some(10)
	c.Levels[0].Mode, c.Levels[0].Rate = loadgen.ModeConstant, peer.Some(25)
	a.Workload.MaxSeconds, c.Workload.MaxSeconds = peer.Some(5), peer.Some(8)
	res := Runs(a, c, Options{})
	want := []Mismatch{{"load", "10 req/s", "25 req/s"}, {"level length", "5 s", "8 s"}}
	if !slices.Equal(res.Mismatches, want) {
		t.Errorf("mismatches %v, want %v", res.Mismatches, want)
	}
	for _, r := range res.Summary {
		if !r.Mismatch {
			t.Errorf("summary row %s not marked", r.Metric.Key)
		}
	}
	// The same load, matched within the rate tolerance: no mismatch.
	c.Levels[0].Rate, c.Workload.MaxSeconds = peer.Some(10.2), peer.Some(5)
	if res := Runs(a, c, Options{}); len(res.Mismatches) != 0 || len(res.Rows) == 0 {
		t.Errorf("same load: mismatches %v, %d rows", res.Mismatches, len(res.Rows))
	}
}

// TestUnboundedTailsUndecided: two runs of one mock that differ only in
// length gave "ttft_p99 +90% [+10%, +90%] significant" and --fail-on
// exit 3, though neither run held enough requests to bound its p99. A
// percentile a side cannot bound gets no verdict, and a gate on it is
// reported as not checked.
func TestUnboundedTailsUndecided(t *testing.T) {
	a := make([]float64, 30)
	b := make([]float64, 50)
	for i := range a {
		a[i] = 10 + float64(i%5)
	}
	for i := range b {
		b[i] = 10 + float64(i%5)
	}
	b[len(b)-1] = 19 // one slow request: the p99 of 50 is the max
	la := peer.Level{Mode: loadgen.ModeConstant, Rate: peer.Some(10), Samples: &peer.Samples{TTFT: a}}
	lb := peer.Level{Mode: loadgen.ModeConstant, Rate: peer.Some(10), Samples: &peer.Samples{TTFT: b}}
	m, _ := LookupMetric("ttft_p99")
	r := levelRow(m, la, lb, Options{}.withDefaults(), 1)
	if !r.TooFew || r.Verdict != VerdictUnknown {
		t.Fatalf("p99 of 30 against 50 requests: %+v, want too few and no verdict", r)
	}
	ths, err := ParseFailOn("ttft_p99:+5%")
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Rows: []Row{r}}
	un := UncheckedGates(res, ths)
	if len(un) != 1 || !strings.Contains(un[0].Why, "too few requests") {
		t.Errorf("unchecked gates %+v, want ttft_p99 reported as too few requests", un)
	}
}
