package compare

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/stats"
)

// Method names how a row's interval of B − A was computed
// (docs/statistics.md, "Comparing two runs").
type Method string

// The methods, from the most to the least data-hungry.
const (
	// MethodBootstrap: both sides hold per-request records; a seeded
	// percentile bootstrap of the difference of the percentiles
	// (stats.BootstrapQuantileDiff), with a Mann–Whitney U p-value for a
	// shift in location beside it.
	MethodBootstrap Method = "bootstrap"
	// MethodOrderStats: at least one side has only its histogram (or too
	// few records to resample); each side's distribution-free
	// order-statistic interval at 97.47 %, combined into one for the
	// difference at 95 % or more (stats.QuantileDiffInterval).
	MethodOrderStats Method = "order statistics"
	// MethodWelch: a difference of means, by Welch's t from each side's
	// mean, standard deviation and count.
	MethodWelch Method = "welch"
	// MethodBatchMeans: a difference of rates, by Welch's t over the two
	// sides' batch rates (the sub-window counts behind each rate's
	// interval).
	MethodBatchMeans Method = "batch means"
	// MethodNewcombe: a difference of fractions (the error rate), by
	// Newcombe's hybrid score interval built on each side's Wilson
	// interval.
	MethodNewcombe Method = "newcombe"
	// MethodIntervals: each side's own interval, taken at 97.47 % and
	// combined (CPM, Wh/token, a rate of a repeated level).
	MethodIntervals Method = "intervals"
	// MethodBetweenRuns: a side's level was run several times
	// (--repeat): each run's figure is one sample, as benchstat takes each
	// benchmark run, and the change's interval is Welch's t over the two
	// sides' runs; against a single run, that run counts as one more draw
	// of the repeated side's spread. The pooled requests' interval is
	// left out: it ignores the run-to-run variance.
	MethodBetweenRuns Method = "between runs"
	// MethodBracket: the knee, whose bracket [last passing, first
	// failing load] is its interval.
	MethodBracket Method = "bracket"
	// MethodNone: a side holds only the figure, not what an interval
	// needs (a peer's summary percentiles): the delta has no interval and
	// no verdict.
	MethodNone Method = "none"
)

// Verdict is a row's decision.
type Verdict string

// Verdicts.
const (
	// VerdictSame: the interval of B − A holds 0; printed "~", as benchstat
	// does.
	VerdictSame Verdict = "~"
	// VerdictBetter and VerdictWorse: the interval excludes 0, on the side
	// the metric improves or regresses.
	VerdictBetter Verdict = "better"
	VerdictWorse  Verdict = "worse"
	// VerdictUnknown: no interval (MethodNone) or a side is missing.
	VerdictUnknown Verdict = "?"
)

// Options configures Runs. The zero value is the default.
type Options struct {
	// Metrics are the rows of each matched level; nil means
	// DefaultLevelMetrics.
	Metrics []Metric
	// Seed seeds the bootstrap; the same inputs and seed give the same
	// intervals. 0 means 1.
	Seed uint64
	// Resamples is the bootstrap's number of resamples; 0 means
	// stats.DefaultBootstrapResamples.
	Resamples int
	// MinRecords is the fewest per-request values each side needs for the
	// bootstrap; below it, order statistics. 0 means 20.
	MinRecords int
}

func (o Options) withDefaults() Options {
	if o.Metrics == nil {
		for _, k := range defaultLevelMetrics {
			m, _ := LookupMetric(k)
			o.Metrics = append(o.Metrics, m)
		}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Resamples <= 0 {
		o.Resamples = stats.DefaultBootstrapResamples
	}
	if o.MinRecords <= 0 {
		o.MinRecords = 20
	}
	return o
}

// Row is one decided metric: of a matched level, or of the summary.
// Every number is computed here; reports only format them.
type Row struct {
	Metric Metric `json:"metric"`
	// Level names the matched load ("concurrency 4", "rate 10 req/s");
	// "" for a summary row. LevelA and LevelB index the results' Levels
	// (-1 for a summary row without levels).
	Level          string `json:"level,omitempty"`
	LevelA, LevelB int    `json:"-"`
	// A and B are each side's figure with its 95 % interval (zero when
	// none), in Metric.Unit (the error rate as a fraction).
	A   peer.Value     `json:"a"`
	ACI stats.Interval `json:"a_ci,omitzero"`
	B   peer.Value     `json:"b"`
	BCI stats.Interval `json:"b_ci,omitzero"`
	// Diff is B − A with its interval (at least 95 %), Rel the same
	// relative to A (0.05 = +5 %; missing when A is 0); for the error
	// rate, Diff is in fractions (percentage points / 100).
	Diff   peer.Value     `json:"diff"`
	DiffCI stats.Interval `json:"diff_ci,omitzero"`
	Rel    peer.Value     `json:"rel"`
	RelCI  stats.Interval `json:"rel_ci,omitzero"`
	Method Method         `json:"method"`
	// P is the two-sided Mann–Whitney U p-value of a shift between the
	// two sides' per-request values, where both have records.
	P peer.Value `json:"p_location"`
	// NA and NB are the numbers of values behind each side's figure.
	NA peer.Count `json:"n_a"`
	NB peer.Count `json:"n_b"`
	// Verdict decides the row from DiffCI.
	Verdict Verdict `json:"verdict"`
	// Unlike is set when the two tools define the metric differently
	// (peer Definition kinds differ); its verdict is not a like-for-like
	// one and --fail-on does not judge it.
	Unlike bool `json:"unlike,omitempty"`
	// Mismatch is set when the two workloads differ (Result.Mismatches).
	Mismatch bool `json:"workload_mismatch,omitempty"`
	// TooFew is set when a side holds too few requests to bound the
	// percentile (its 95 % interval is unbounded: fewer than
	// ⌈ln 0.05 / ln p⌉ values, 299 for a p99). The verdict is then
	// VerdictUnknown: a difference of two unbounded tails is no evidence
	// either way, however the resampled intervals fall.
	TooFew bool `json:"too_few,omitempty"`
}

// Mismatch is one workload fact the two sides state differently.
type Mismatch struct {
	// Field names the fact: "ISL", "OSL spread", "endpoint", "warmup".
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// Result is a comparison of B against the baseline A: the workload
// check, the summary block's rows, each matched level's rows, the levels
// only one side has, and notes on definitions. Plain data.
type Result struct {
	A, B peer.Result `json:"-"`
	// Mismatches lists the workload facts the two sides state
	// differently, in a fixed order; Unstated the facts only one side (or
	// neither, for the load of two levels that state none)
	// states ("tokenizer (not stated by B)").
	Mismatches []Mismatch `json:"workload_mismatches,omitempty"`
	Unstated   []string   `json:"unstated,omitempty"`
	// Summary holds the headline deltas: knee, goodput at the knee, CPM,
	// Wh/token, TTFT p99 and ITL p95 at the knee; a row is left out when
	// neither side holds the figure.
	Summary []Row `json:"summary"`
	// Rows holds each matched level's rows, in A's level order.
	Rows []Row `json:"rows"`
	// OnlyA and OnlyB index the levels only one side has.
	OnlyA []int `json:"only_a,omitempty"`
	OnlyB []int `json:"only_b,omitempty"`
	// Notes explain where the two tools define a metric differently.
	Notes []string `json:"notes,omitempty"`
	// Matches are the level pairs.
	Matches []peer.Match `json:"-"`
}

// Runs compares b against the baseline a: it matches their levels by load
// (peer.Compare), checks that they ran the same workload, and decides
// every metric of every matched level and of the summary with an interval
// for B − A and a verdict. It is deterministic for a given Options.Seed.
func Runs(a, b peer.Result, opts Options) Result {
	o := opts.withDefaults()
	pc := peer.Compare(a, b)
	r := Result{A: a, B: b, OnlyA: pc.UnmatchedA, OnlyB: pc.UnmatchedB, Matches: pc.Matches}
	for _, n := range pc.Notes {
		r.Notes = append(r.Notes, n.Text)
	}
	r.Mismatches, r.Unstated = checkWorkload(a, b, pc.Matches)
	if sameInput(a.File, b.File) {
		r.B.Warnings = append(slices.Clone(b.Warnings), metrics.Warning{Code: WarnSameInput, Level: -1,
			Message: "A and B are the same input (" + a.File + "): every difference is zero by construction, which says nothing of run-to-run noise; give two runs"})
	}
	mismatch := len(r.Mismatches) > 0
	chunksNoted := false
	for mi, m := range pc.Matches {
		la, lb := a.Levels[m.A], b.Levels[m.B]
		ms := o.Metrics
		if chunksDiffer(la, lb) {
			// A gap between chunks of 3 tokens is not a gap between
			// chunks of 1: the ICL rows are unlike, and ITL (TPOT),
			// which is per token, is compared beside them.
			ms = withITLFor(ms)
			if !chunksNoted {
				chunksNoted = true
				r.Notes = append(r.Notes, fmt.Sprintf("chunk gaps (ICL): A's chunks carry %.2f tokens on average, B's %.2f%s, so a gap between chunks is defined differently: the ICL rows are marked * and not judged; compare ITL (vLLM's TPOT, per token) instead",
					la.TokensPerChunk.V, lb.TokensPerChunk.V, specCause(la, lb)))
			}
		}
		for _, met := range ms {
			row := levelRow(met, la, lb, o, seedFor(o.Seed, mi, met.Key))
			if !row.A.OK && !row.B.OK {
				continue
			}
			row.Level, row.LevelA, row.LevelB, row.Mismatch = m.Key, m.A, m.B, mismatch
			r.Rows = append(r.Rows, row)
		}
	}
	r.Notes = append(r.Notes, specDecodeNotes("A", a)...)
	r.Notes = append(r.Notes, specDecodeNotes("B", b)...)
	r.Summary = summaryRows(a, b, o, mismatch)
	// Said only where the other side has goodput: its row shows "-".
	for _, side := range []struct {
		name     string
		r, other peer.Result
	}{{"A", a, b}, {"B", b, a}} {
		if side.r.Tool == "gollm-bench" && side.r.Workload.SLO == "" && hasGoodput(side.other) {
			r.Notes = append(r.Notes, "goodput: "+side.name+" ran without an SLO, so its goodput is not measured (its scorecard's goodput_tok_s is the output throughput)")
		}
	}
	if a.Headline.CPM.OK && b.Headline.CPM.OK && cpmOnThroughput(a) != cpmOnThroughput(b) {
		r.Notes = append(r.Notes, "CPM: a run without an SLO has no goodput, so its CPM is per output token; the other's is per good token (not judged)")
	}
	return r
}

// sameInput reports whether two inputs' files are one file (or folder).
func sameInput(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	return ea == nil && eb == nil && os.SameFile(sa, sb)
}

// All compares each of others against the baseline base.
func All(base peer.Result, others []peer.Result, opts Options) []Result {
	out := make([]Result, len(others))
	for i, b := range others {
		out[i] = Runs(base, b, opts)
	}
	return out
}

// chunksDiffer reports whether the two levels' chunks carry different
// numbers of tokens on average (by more than 10 %), as speculative
// decoding makes them: their gaps between chunks are then different
// things.
func chunksDiffer(a, b peer.Level) bool {
	ta, tb := a.TokensPerChunk, b.TokensPerChunk
	if !ta.OK || !tb.OK || ta.V <= 0 || tb.V <= 0 {
		return false
	}
	return math.Abs(ta.V-tb.V) > 0.1*math.Min(ta.V, tb.V)
}

// withITLFor returns ms with the ITL statistic of each ICL metric in it
// appended where ms lacks it.
func withITLFor(ms []Metric) []Metric {
	out := slices.Clone(ms)
	for _, m := range ms {
		if m.dist != distICL {
			continue
		}
		key := "itl" + strings.TrimPrefix(m.Key, "icl")
		if !slices.ContainsFunc(out, func(x Metric) bool { return x.Key == key }) {
			if itl, ok := LookupMetric(key); ok {
				out = append(out, itl)
			}
		}
	}
	return out
}

// specCause says which side runs speculative decoding, for the chunk
// note: " (B: speculative decoding)".
func specCause(a, b peer.Level) string {
	switch {
	case a.SpecDecode != nil && b.SpecDecode != nil:
		return " (both: speculative decoding)"
	case a.SpecDecode != nil:
		return " (A: speculative decoding)"
	case b.SpecDecode != nil:
		return " (B: speculative decoding)"
	}
	return ""
}

// specDecodeNotes shows the speculative-decoding figures of each level of
// r that has them: "speculative decoding (B, level 0): acceptance rate
// 72.0 %, acceptance length 3.16 tokens per step, 1,204 drafts".
func specDecodeNotes(side string, r peer.Result) []string {
	var out []string
	for _, l := range r.Levels {
		sd := l.SpecDecode
		if sd == nil {
			continue
		}
		var parts []string
		if v, ok := sd.AcceptanceRate.Get(); ok {
			parts = append(parts, fmt.Sprintf("acceptance rate %.1f %%", 100*v))
		}
		if v, ok := sd.AcceptanceLength.Get(); ok {
			parts = append(parts, fmt.Sprintf("acceptance length %.2f tokens per step", v))
		}
		if sd.Drafts.OK {
			parts = append(parts, fmt.Sprintf("%d drafts", sd.Drafts.N))
		}
		if sd.DraftTokens.OK && sd.AcceptedTokens.OK {
			parts = append(parts, fmt.Sprintf("%d of %d draft tokens accepted", sd.AcceptedTokens.N, sd.DraftTokens.N))
		}
		out = append(out, fmt.Sprintf("speculative decoding (%s, %s): %s", side, l.Label, strings.Join(parts, ", ")))
	}
	return out
}

// seedFor derives a row's bootstrap seed from the run's seed, the
// level pair and the metric, so that rows do not share random streams.
func seedFor(seed uint64, pair int, key string) uint64 {
	h := fnv.New64a()
	var b [16]byte
	for i := range 8 {
		b[i] = byte(seed >> (8 * i))
		b[8+i] = byte(uint64(pair) >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(key))
	return h.Sum64()
}

// decide sets the row's relative delta and verdict from its interval.
func (r *Row) decide() {
	if r.A.OK && r.B.OK {
		r.Diff = peer.Some(r.B.V - r.A.V)
		if r.A.V != 0 && r.Metric.kind != kindErrorRate {
			r.Rel = peer.Some(r.Diff.V / math.Abs(r.A.V))
			if r.Method != MethodNone && r.Method != "" {
				r.RelCI = stats.Interval{Lo: r.DiffCI.Lo / math.Abs(r.A.V), Hi: r.DiffCI.Hi / math.Abs(r.A.V)}
			}
		}
	}
	switch {
	case r.Method == "" || r.Method == MethodNone || !r.A.OK || !r.B.OK:
		r.Verdict, r.Method, r.DiffCI, r.RelCI = VerdictUnknown, MethodNone, stats.Interval{}, stats.Interval{}
	case r.TooFew:
		r.Verdict, r.DiffCI, r.RelCI = VerdictUnknown, stats.Interval{}, stats.Interval{}
	case r.DiffCI.Lo > 0 || r.DiffCI.Hi < 0:
		up := r.DiffCI.Lo > 0
		if up == r.Metric.HigherIsBetter {
			r.Verdict = VerdictBetter
		} else {
			r.Verdict = VerdictWorse
		}
	default:
		r.Verdict = VerdictSame
	}
}

// levelRow decides one metric of a matched level pair.
func levelRow(m Metric, la, lb peer.Level, o Options, seed uint64) Row {
	r := Row{Metric: m}
	switch m.kind {
	case kindLatency:
		latencyRow(&r, la, lb, o, seed)
	case kindOutputRate, kindReqRate, kindGoodput:
		rateRow(&r, la, lb)
	case kindErrorRate:
		errorRow(&r, la, lb)
	}
	betweenRuns(&r, la, lb)
	r.decide()
	return r
}

// stat picks a latency distribution's Stats, Definition, histogram and
// samples for m.
func latencyOf(m Metric, l peer.Level) (peer.Stats, peer.Definition, metrics.Distribution, []float64) {
	var st peer.Stats
	var def peer.Definition
	var d metrics.Distribution
	var samples []float64
	s := l.Summary
	switch m.dist {
	case distTTFT:
		st, def = l.TTFT, l.Definitions.TTFT
		if s != nil {
			d = s.TTFT
		}
		if l.Samples != nil {
			samples = l.Samples.TTFT
		}
	case distITL:
		st, def = l.ITL, l.Definitions.ITL
		if s != nil {
			d = s.ITL
		}
		if l.Samples != nil {
			samples = l.Samples.ITL
		}
	case distICL:
		st, def = l.ICL, l.Definitions.ICL
		if s != nil {
			d = s.ICL
		}
	case distE2E:
		st, def = l.E2E, l.Definitions.E2E
		if s != nil {
			d = s.E2E
		}
		if l.Samples != nil {
			samples = l.Samples.E2E
		}
	}
	return st, def, d, samples
}

// pick returns the statistic of st that m names: a percentile or the mean.
func pick(m Metric, st peer.Stats) peer.Value {
	switch m.stat {
	case 0:
		return st.Mean
	case 0.5:
		return st.P50
	case 0.9:
		return st.P90
	case 0.95:
		return st.P95
	case 0.99:
		return st.P99
	}
	return peer.Value{}
}

// orderStats is a side's order statistics: its records, else its
// histogram; nil when it has neither.
func orderStats(d metrics.Distribution, samples []float64) stats.OrderStats {
	if len(samples) > 0 {
		return stats.NewSorted(samples)
	}
	if d.Count > 0 {
		if rk, err := d.Ranked(); err == nil {
			return rk
		}
	}
	return nil
}

func latencyRow(r *Row, la, lb peer.Level, o Options, seed uint64) {
	m := r.Metric
	sta, dfa, da, sa := latencyOf(m, la)
	stb, dfb, db, sb := latencyOf(m, lb)
	r.A, r.B = pick(m, sta), pick(m, stb)
	r.NA, r.NB = sta.N, stb.N
	records := len(sa) >= o.MinRecords && len(sb) >= o.MinRecords
	// Per-request values are per request whatever weighting the tool's
	// own summary uses (GuideLLM weights its ITL by tokens).
	ka, kb := dfa.Kind, dfb.Kind
	if m.dist == distITL {
		if len(sa) > 0 && (records || m.stat != 0 || len(sa) >= 2) {
			ka = peer.KindITLPerRequest
		}
		if len(sb) > 0 && (records || m.stat != 0 || len(sb) >= 2) {
			kb = peer.KindITLPerRequest
		}
	}
	r.Unlike = ka != "" && kb != "" && ka != kb
	if m.dist == distICL && chunksDiffer(la, lb) {
		r.Unlike = true
	}
	if records {
		if _, p := stats.MannWhitney(sa, sb); !math.IsNaN(p) {
			r.P = peer.Some(p)
		}
	}
	if m.stat == 0 { // the mean: Welch from each side's moments
		ma, sda, na, okA := moments(sta, sa)
		mb, sdb, nb, okB := moments(stb, sb)
		if okA {
			r.A, r.NA, r.ACI = peer.Some(ma), peer.Known(na), stats.MomentsInterval(ma, sda, na, stats.Confidence)
		}
		if okB {
			r.B, r.NB, r.BCI = peer.Some(mb), peer.Known(nb), stats.MomentsInterval(mb, sdb, nb, stats.Confidence)
		}
		if okA && okB {
			r.DiffCI = stats.WelchInterval(ma, sda, na, mb, sdb, nb, stats.Confidence)
			r.Method = MethodWelch
		} else {
			r.Method = MethodNone
		}
		return
	}
	p := m.stat
	if records {
		xa, xb := stats.NewSorted(sa), stats.NewSorted(sb)
		r.A, r.B = peer.Some(stats.Quantile(xa, p)), peer.Some(stats.Quantile(xb, p))
		r.NA, r.NB = peer.Known(xa.Len()), peer.Known(xb.Len())
		r.ACI, r.BCI = stats.QuantileInterval(xa, p, stats.Confidence), stats.QuantileInterval(xb, p, stats.Confidence)
		r.DiffCI = stats.BootstrapQuantileDiff(xa, xb, p, stats.Confidence, o.Resamples, seed)
		r.Method = MethodBootstrap
		r.TooFew = !r.ACI.HiBounded() || !r.BCI.HiBounded()
		return
	}
	oa, ob := orderStats(da, sa), orderStats(db, sb)
	if oa == nil || ob == nil || oa.Len() == 0 || ob.Len() == 0 {
		// A side with order statistics keeps its own interval (a run of
		// ours against a peer's summary-only file): the difference has
		// none, but each figure that can have one shows it.
		if oa != nil && oa.Len() > 0 {
			r.A, r.NA, r.ACI = peer.Some(stats.Quantile(oa, p)), peer.Known(oa.Len()), stats.QuantileInterval(oa, p, stats.Confidence)
		}
		if ob != nil && ob.Len() > 0 {
			r.B, r.NB, r.BCI = peer.Some(stats.Quantile(ob, p)), peer.Known(ob.Len()), stats.QuantileInterval(ob, p, stats.Confidence)
		}
		r.Method = MethodNone
		return
	}
	r.A, r.B = peer.Some(stats.Quantile(oa, p)), peer.Some(stats.Quantile(ob, p))
	r.NA, r.NB = peer.Known(oa.Len()), peer.Known(ob.Len())
	r.ACI, r.BCI = stats.QuantileInterval(oa, p, stats.Confidence), stats.QuantileInterval(ob, p, stats.Confidence)
	r.DiffCI = stats.QuantileDiffInterval(oa, ob, p, stats.Confidence)
	r.Method = MethodOrderStats
	r.TooFew = !r.ACI.HiBounded() || !r.BCI.HiBounded()
}

// moments are a side's mean, sample standard deviation and count: from
// its per-request values when it has two or more, else from the figures
// its tool wrote (when they include a spread and a count).
func moments(st peer.Stats, samples []float64) (mean, sd float64, n int64, ok bool) {
	if len(samples) >= 2 {
		mean, sd = stats.MeanSD(samples)
		return mean, sd, int64(len(samples)), true
	}
	if st.Mean.OK && st.Std.OK && st.N.OK && st.N.N >= 2 {
		return st.Mean.V, st.Std.V, st.N.N, true
	}
	return 0, 0, 0, false
}

// rateOf picks a rate, its definition, its interval, and its batch
// counts, for the row's metric.
func rateOf(m Metric, l peer.Level) (v peer.Value, def peer.Definition, ci stats.Interval, counts []float64) {
	s := l.Summary
	switch m.kind {
	case kindOutputRate:
		v, def = l.OutputTokPerSec, l.Definitions.OutputTokPerSec
		if s != nil {
			ci, counts = s.OutputTokensPerSecondCI, s.Batches.OutputTokens
		}
	case kindReqRate:
		v, def = l.ReqPerSec, l.Definitions.ReqPerSec
		if s != nil {
			ci, counts = s.RequestsPerSecondCI, s.Batches.Completed
		}
	case kindGoodput:
		v = l.GoodputTokPerSec
		if s != nil && v.OK {
			ci, counts = s.Goodput.OutputTokensPerSecondCI, s.Batches.GoodputTokens
		}
	}
	// A level run several times: the wider of the pooled within-run
	// interval and the between-run one, as the scorecard takes.
	if s != nil && s.Repeats != nil {
		name := map[metricKind]string{kindOutputRate: metrics.FigureOutputTokS, kindGoodput: metrics.FigureGoodputTokS}[m.kind]
		if f, ok := s.Repeats.Figure(name); ok {
			ci = f.Interval()
		}
	}
	return v, def, ci, counts
}

// repeatFigure is the figure of a level run several times (--repeat)
// that m names: an SLO statistic ("ttft_p99") or a rate.
func repeatFigure(m Metric, l peer.Level) (metrics.RepeatFigure, bool) {
	if l.Summary == nil || l.Summary.Repeats == nil {
		return metrics.RepeatFigure{}, false
	}
	name := m.Key
	switch m.kind {
	case kindOutputRate:
		name = metrics.FigureOutputTokS
	case kindGoodput:
		name = metrics.FigureGoodputTokS
	case kindLatency:
	default:
		return metrics.RepeatFigure{}, false
	}
	f, ok := l.Summary.Repeats.Figure(name)
	if !ok || len(f.Values) < 2 {
		return metrics.RepeatFigure{}, false
	}
	return f, true
}

// betweenRuns makes the row's interval from the spread between runs when
// a side's level was run several times and holds the figure
// (MethodBetweenRuns). Each side's figure is then the mean of its runs'
// (a single run's is its own), with the between-run interval, and the
// counts are runs; the change's interval is clipped at −A (−100 %), as
// no figure compared here goes below 0. Rows the two tools define
// differently keep their mark.
func betweenRuns(r *Row, la, lb peer.Level) {
	fa, okA := repeatFigure(r.Metric, la)
	fb, okB := repeatFigure(r.Metric, lb)
	if (!okA && !okB) || !r.A.OK || !r.B.OK {
		return
	}
	// spreadAgainst is the interval of y − mean(f) for one more draw y of
	// f's spread: (y − mean) ± t(n−1) × sd × √(1/n + 1).
	spreadAgainst := func(f metrics.RepeatFigure, y float64) stats.Interval {
		n := float64(len(f.Values))
		h := stats.T(n-1, stats.Confidence) * f.SD * math.Sqrt(1/n+1)
		return stats.Interval{Lo: y - f.Mean - h, Hi: y - f.Mean + h}
	}
	switch {
	case okA && okB:
		r.DiffCI = stats.WelchIntervalOf(fa.Values, fb.Values, stats.Confidence)
	case okA:
		r.DiffCI = spreadAgainst(fa, r.B.V)
		r.NB, r.BCI = peer.Known(1), stats.Interval{}
	default:
		d := spreadAgainst(fb, r.A.V)
		r.DiffCI = stats.Interval{Lo: -d.Hi, Hi: -d.Lo}
		r.NA, r.ACI = peer.Known(1), stats.Interval{}
	}
	if okA {
		r.A, r.ACI, r.NA = peer.Some(fa.Mean), fa.Between, peer.Known(int64(len(fa.Values)))
	}
	if okB {
		r.B, r.BCI, r.NB = peer.Some(fb.Mean), fb.Between, peer.Known(int64(len(fb.Values)))
	}
	// Every figure here (a latency, a rate) is at least 0, so B − A is
	// at least −A: t's symmetric interval over few, spread runs can reach
	// below, and is clipped there (−100 %).
	if lo := -r.A.V; r.DiffCI.Lo < lo {
		r.DiffCI.Lo = lo
		r.DiffCI.Hi = max(r.DiffCI.Hi, lo)
	}
	r.Method, r.TooFew = MethodBetweenRuns, false
}

// batchRates are a level's batch rates from counts, nil when the level
// has none to give (no batches, or repeats pooled from several windows).
func batchRates(l peer.Level, counts []float64) []float64 {
	s := l.Summary
	if s == nil || s.Repeats != nil || s.Batches.Used < 2 {
		return nil
	}
	return metrics.BatchRates(counts, s.Batches.Used, s.WindowSeconds)
}

func rateRow(r *Row, la, lb peer.Level) {
	va, dfa, cia, ca := rateOf(r.Metric, la)
	vb, dfb, cib, cb := rateOf(r.Metric, lb)
	r.A, r.B, r.ACI, r.BCI = va, vb, cia, cib
	r.Unlike = dfa.Kind != "" && dfb.Kind != "" && dfa.Kind != dfb.Kind
	ra, rb := batchRates(la, ca), batchRates(lb, cb)
	switch {
	case !va.OK || !vb.OK:
		r.Method = MethodNone
	case ra != nil && rb != nil:
		r.DiffCI = stats.WelchIntervalOf(ra, rb, stats.Confidence)
		r.NA, r.NB = peer.Known(int64(len(ra))), peer.Known(int64(len(rb)))
		r.Method = MethodBatchMeans
	case !cia.IsZero() && !cib.IsZero():
		r.DiffCI = combineIntervals(va.V, cia, vb.V, cib)
		r.Method = MethodIntervals
	default:
		r.Method = MethodNone
	}
}

// combineIntervals is the interval of y − x from their 95 % intervals,
// each widened to 97.47 % first as a normal interval would be (×
// z(0.9747)/z(0.95) = 1.14), so that the two together hold at 95 %: an
// approximation, for figures whose underlying data are not at hand.
func combineIntervals(x float64, xci stats.Interval, y float64, yci stats.Interval) stats.Interval {
	k := stats.Z(stats.SidakConfidence(stats.Confidence, 2)) / stats.Z(stats.Confidence)
	widen := func(v float64, ci stats.Interval) stats.Interval {
		return stats.Interval{Lo: v - k*(v-ci.Lo), Hi: v + k*(ci.Hi-v)}
	}
	return stats.DiffInterval(widen(x, xci), widen(y, yci))
}

func errorRow(r *Row, la, lb peer.Level) {
	ka, na, okA := errorCounts(la)
	kb, nb, okB := errorCounts(lb)
	if okA {
		r.A, r.ACI, r.NA = peer.Some(float64(ka)/float64(na)), stats.Wilson(ka, na, stats.Confidence), peer.Known(na)
	}
	if okB {
		r.B, r.BCI, r.NB = peer.Some(float64(kb)/float64(nb)), stats.Wilson(kb, nb, stats.Confidence), peer.Known(nb)
	}
	if okA && okB {
		r.DiffCI = stats.NewcombeInterval(ka, na, kb, nb, stats.Confidence)
		r.Method = MethodNewcombe
	}
}

// errorCounts are a level's failed requests among failed and successful.
func errorCounts(l peer.Level) (failed, n int64, ok bool) {
	c := l.Requests
	if !c.Completed.OK || !c.Failed.OK || c.Completed.N+c.Failed.N == 0 {
		return 0, 0, false
	}
	return c.Failed.N, c.Completed.N + c.Failed.N, true
}

// hasGoodput reports whether some level of r, or its headline, holds a
// goodput.
func hasGoodput(r peer.Result) bool {
	for _, l := range r.Levels {
		if l.GoodputTokPerSec.OK {
			return true
		}
	}
	return r.Headline.GoodputTokPerSec.OK
}
