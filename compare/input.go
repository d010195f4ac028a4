package compare

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/stats"
)

// ReadAll reads every path with Read, in order; the first error stops it.
func ReadAll(paths []string) ([]peer.Result, error) {
	out := make([]peer.Result, len(paths))
	for i, p := range paths {
		r, err := Read(p)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// Read reads one side of a comparison from path: a gollm-bench results
// folder (its run.json, with scorecard.json and requests.jsonl[.gz] when
// they are there) or its run.json; a folder of peer results (peer.ReadDir:
// AIPerf's one folder per concurrency); or a peer result file. Errors name
// the file and are bad input.
func Read(path string) (peer.Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return peer.Result{}, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, results.RunJSON)); err != nil {
			if runs := runsUnder(path); len(runs) > 0 {
				return peer.Result{}, folderOfRuns(path, runs)
			}
			r, perr := peer.ReadDir(path)
			if perr != nil && errors.Is(err, fs.ErrNotExist) && errors.Is(perr, peer.ErrNoResults) {
				return peer.Result{}, fmt.Errorf("%s not found, and no GuideLLM, AIPerf, GenAI-Perf or vLLM result under %s: give a gollm-bench results folder, a peer result file, or a folder of them", filepath.Join(path, results.RunJSON), path)
			}
			return r, perr
		}
	} else if !isRunJSON(path) {
		return peer.ReadFile(path)
	}
	run, err := results.Read(path)
	if err != nil {
		return peer.Result{}, err
	}
	// A damaged run.json is refused, as report refuses it (results.Open).
	if err := run.Check(); err != nil {
		file := path
		if st.IsDir() {
			file = filepath.Join(path, results.RunJSON)
		}
		return peer.Result{}, fmt.Errorf("%s: %w; the file is damaged: re-run, or restore it from a copy", file, err)
	}
	var sc *scorecard.Scorecard
	if c, err := scorecard.Read(filepath.Join(dir, scorecard.FileName)); err == nil {
		sc = &c
	}
	recs, err := readRecordsIn(dir)
	if err != nil {
		return peer.Result{}, err
	}
	return FromRun(run, sc, recs, path), nil
}

// runsUnder lists the folders directly under dir that hold a run.json:
// dir is then a folder of runs (`run --output-dir DIR` writes
// DIR/<run id>/), not a run.
func runsUnder(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if st, err := os.Stat(filepath.Join(sub, results.RunJSON)); err == nil && !st.IsDir() {
			out = append(out, sub)
		}
	}
	return out
}

// folderOfRuns is the error for a folder that holds runs rather than
// being one: it names them and says which to give.
func folderOfRuns(dir string, runs []string) error {
	if len(runs) == 1 {
		return fmt.Errorf("%s holds no %s: it is a folder of runs holding one, %s; give that run's folder", dir, results.RunJSON, runs[0])
	}
	shown := runs
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(runs) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(runs)-len(shown))
	}
	return fmt.Errorf("%s holds no %s: it is a folder of %d runs (%s%s); give one run's folder per input, e.g. %s", dir, results.RunJSON, len(runs), strings.Join(shown, ", "), more, runs[len(runs)-1])
}

// isRunJSON reports whether the file at path is a gollm-bench run.json:
// named so, or a JSON object with a schema_version and our tool's name.
func isRunJSON(path string) bool {
	if filepath.Base(path) == results.RunJSON {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	h := string(head[:n])
	return strings.Contains(h, `"schema_version"`) && strings.Contains(h, `"gollm-bench"`) && strings.Contains(h, `"run_id"`)
}

// readRecordsIn reads the requests.jsonl (or .gz) of a results folder;
// nil without one.
func readRecordsIn(dir string) (map[int]*peer.Samples, error) {
	for _, name := range []string{results.RequestsJSONL, results.RequestsJSONLGz} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		defer f.Close()
		recs, err := ReadRecords(f) // plain or gzip
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		return recs, nil
	}
	return nil, nil
}

// ReadRecords reads gollm-bench records (requests.jsonl) into per-request
// samples by level index (loadgen.Record.Level): the TTFT, ITL and E2E of
// each successful request sent in its level's window, computed as the
// metrics Accumulator computes them, so that they are exactly the values
// behind the level's histograms. A torn last line (an interrupted run) is
// skipped; any other undecodable line is an error naming it.
func ReadRecords(r io.Reader) (map[int]*peer.Samples, error) {
	out := map[int]*peer.Samples{}
	dec := loadgen.NewDecoder(r)
	var pending error // a bad line, forgiven only if it is the last
	for {
		var rec loadgen.Record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if pending != nil {
			return nil, pending
		}
		var de *loadgen.DecodeError
		if errors.As(err, &de) {
			pending = err
			continue
		}
		if err != nil {
			return nil, err
		}
		if !rec.InWindow || rec.Status != loadgen.StatusOK {
			continue
		}
		s := out[rec.Level]
		if s == nil {
			s = &peer.Samples{Source: results.RequestsJSONL}
			out[rec.Level] = s
		}
		if ttft, ok := rec.TTFT(); ok {
			s.TTFT = append(s.TTFT, ms(ttft))
		}
		s.E2E = append(s.E2E, ms(rec.E2E()))
		if osl := rec.OutputTokens; osl >= 2 && rec.FirstTokenAt != 0 && rec.LastTokenAt != 0 {
			s.ITL = append(s.ITL, float64(rec.LastTokenAt-rec.FirstTokenAt)/float64(osl-1)/1e6)
		}
	}
}

func ms[T ~int64](d T) float64 { return float64(d) / 1e6 }

// FromRun maps a gollm-bench run onto the tool-neutral model: one Level
// per level of run.json, with its Summary (histograms, batch counts) and,
// from recs (ReadRecords, by level index; nil when there are none), its
// per-request Samples; the run's Workload from its config; and the
// Headline from its scorecard (nil: from the run's knee only).
func FromRun(run results.Run, sc *scorecard.Scorecard, recs map[int]*peer.Samples, file string) peer.Result {
	out := peer.Result{Tool: "gollm-bench", ToolVersion: run.Tool.Version, Layout: "run.json", File: file, Warnings: run.Result.Warnings}
	if run.Partial {
		out.Warnings = append(out.Warnings, metrics.Warning{Code: WarnPartialInput, Level: -1, Message: "partial run: " + run.PartialReason})
	}
	// A level that a sweep re-ran to a decision is superseded by its
	// re-run, which the knee reads too: only the re-run is compared.
	pos := make([]int, len(run.Result.Levels)) // index in run.json → in out.Levels
	byIndex := map[int]int{}
	for i, lv := range run.Result.Levels {
		byIndex[lv.Index] = i
	}
	for i := range run.Result.Levels {
		pos[i] = -1
		lv := &run.Result.Levels[i]
		if lv.RerunBy != 0 {
			continue
		}
		pos[i] = len(out.Levels)
		s := lv.Summary
		p := lv.Profile
		l := peer.Level{
			Label:          fmt.Sprintf("level %d", lv.Index),
			Mode:           p.Mode,
			Concurrency:    p.Concurrency,
			MaxConcurrency: p.MaxConcurrency,
			Requests: peer.Requests{
				Completed:  peer.Known(s.Requests.OK),
				Failed:     peer.Known(s.Requests.Failed),
				Incomplete: peer.Known(s.Requests.Incomplete),
			},
			TTFT:            distStats(s.TTFT),
			ITL:             distStats(s.ITL),
			ICL:             distStats(s.ICL),
			TPOT:            distStats(s.ITL),
			E2E:             distStats(s.E2E),
			ISL:             distStats(s.PromptTokens),
			OSL:             distStats(s.OutputTokens),
			OutputTokPerSec: peer.Some(s.OutputTokensPerSecond),
			ReqPerSec:       peer.Some(s.RequestsPerSecond),
			Definitions:     peer.Native(),
			Summary:         &lv.Summary,
			Samples:         recs[lv.Index],
		}
		l.ICL.N = peer.Count{} // pooled gaps, not requests
		if s.TokensPerChunk.Count > 0 {
			l.TokensPerChunk = peer.Some(s.TokensPerChunk.Mean)
		}
		if !run.Result.Objective.IsZero() {
			l.GoodputTokPerSec = peer.Some(s.Goodput.OutputTokensPerSecond)
			l.GoodputReqPerSec = peer.Some(s.Goodput.RequestsPerSecond)
		}
		if p.Mode == loadgen.ModeSynchronous {
			l.Concurrency = 1
		}
		if p.Mode.OpenLoop() {
			l.Rate = peer.Some(p.Rate)
		}
		out.Levels = append(out.Levels, l)
	}
	for i, lv := range run.Result.Levels {
		if lv.RerunBy != 0 {
			if j, ok := byIndex[lv.RerunBy]; ok {
				pos[i] = pos[j]
			}
		}
	}
	out.Workload = runWorkload(run.Config)
	out.Headline = runHeadline(run, sc)
	if k := out.Headline.KneeLevel; k >= 0 && k < len(pos) {
		out.Headline.KneeLevel = pos[k]
	}
	return out
}

// distStats is a distribution's figures in the peer model (sample standard
// deviation: the histogram's is the population's).
func distStats(d metrics.Distribution) peer.Stats {
	if d.Count == 0 {
		return peer.Stats{}
	}
	sd := d.Std
	if d.Count > 1 {
		sd *= math.Sqrt(float64(d.Count) / float64(d.Count-1))
	}
	return peer.Stats{Mean: peer.Some(d.Mean), P50: peer.Some(d.P50), P90: peer.Some(d.P90), P95: peer.Some(d.P95), P99: peer.Some(d.P99),
		Std: peer.Some(sd), N: peer.Known(d.Count)}
}

// runWorkload states our run's settings as a peer Workload.
func runWorkload(c results.Config) peer.Workload {
	w := peer.Workload{
		Profile: c.Profile, Endpoint: c.Endpoint, Stream: peer.Stated(c.Stream), Model: c.Model,
		Tokenizer: c.Tokenizer, PrefixCache: c.PrefixCache, IgnoreEOS: peer.Stated(c.IgnoreEOS), SLO: c.SLO,
		Warmup: c.Warmup, Cooldown: c.Cooldown, Data: c.Data, Dataset: c.Dataset, Seed: peer.Known(int64(c.Seed)),
		From: map[string]string{},
	}
	if c.MaxSeconds > 0 {
		w.MaxSeconds = peer.Some(c.MaxSeconds)
	}
	if c.MaxRequests > 0 {
		w.MaxRequests = peer.Known(c.MaxRequests)
	}
	w.Turns = peer.Known(1) // single requests
	if c.Sessions != nil {
		w.Turns = peer.Count{} // a distribution ("uniform:2:6") is not one count
		if n, err := strconv.ParseInt(c.Sessions.Turns, 10, 64); err == nil {
			w.Turns = peer.Known(n)
		}
	}
	w.From["turns"] = "config.sessions.turns"
	for _, f := range []string{"profile", "endpoint", "stream", "model", "tokenizer", "prefix_cache", "ignore_eos", "slo", "warmup", "cooldown", "max_seconds", "max_requests", "data", "dataset", "seed"} {
		w.From[f] = "config." + f
	}
	return w
}

// runHeadline reads the scorecard's figures (the knee level's), falling
// back on run.json's knee.
func runHeadline(run results.Run, sc *scorecard.Scorecard) peer.Headline {
	h := peer.Headline{KneeLevel: -1}
	if k := run.Result.Knee; k != nil {
		h.KneeLevel = k.Level
		h.Knee = peer.Some(k.OfferedLoad)
		h.KneeUnit = k.Unit
		hi := math.Inf(1)
		if k.Reached {
			hi = k.BracketHi
		}
		h.Bracket = stats.Interval{Lo: k.BracketLo, Hi: hi}
	}
	if sc != nil {
		p := sc.Performance
		if p.KneeLevel != nil {
			h.KneeLevel = *p.KneeLevel
		}
		// Without an SLO the scorecard's goodput is the raw output
		// throughput: goodput is not measured.
		if !run.Result.Objective.IsZero() {
			h.GoodputTokPerSec, h.GoodputTokPerSecCI = ptr(p.GoodputTokS), ci(p.GoodputTokSCI)
		}
		h.TTFTP99, h.TTFTP99CI = ptr(p.TTFTP99Ms), ci(p.TTFTP99MsCI)
		h.ITLP95, h.ITLP95CI = ptr(p.ITLP95Ms), ci(p.ITLP95MsCI)
		h.CPM, h.CPMCI, h.Currency = ptr(sc.Cost.CPMEUR1M), ci(sc.Cost.CPMEUR1MCI), sc.Cost.Currency
		h.WhPerToken, h.WhPerTokenCI = ptr(sc.Energy.WhPerToken), ci(sc.Energy.WhPerTokenCI)
		if sc.Cost.EURPerHour != nil {
			h.CostK = *sc.Cost.EURPerHour * 1e6 / 3600
		}
		if sc.Energy.EnergyJ != nil && p.WindowS != nil && *p.WindowS > 0 {
			h.EnergyK = *sc.Energy.EnergyJ / 3600 / *p.WindowS
		}
	} else if h.KneeLevel >= 0 && h.KneeLevel < len(run.Result.Levels) {
		s := run.Result.Levels[h.KneeLevel].Summary
		if !run.Result.Objective.IsZero() {
			h.GoodputTokPerSec, h.GoodputTokPerSecCI = peer.Some(s.Goodput.OutputTokensPerSecond), s.Goodput.OutputTokensPerSecondCI
		}
		if s.TTFT.Count > 0 {
			h.TTFTP99, h.TTFTP99CI = peer.Some(s.TTFT.P99), s.TTFT.P99CI
		}
		if s.ITL.Count > 0 {
			h.ITLP95, h.ITLP95CI = peer.Some(s.ITL.P95), s.ITL.P95CI
		}
	}
	// The knee level is an index into run.json's levels (FromRun maps it
	// onto the levels it keeps).
	if h.KneeLevel >= len(run.Result.Levels) {
		h.KneeLevel = -1
	}
	return h
}

func ptr(p *float64) peer.Value {
	if p == nil {
		return peer.Value{}
	}
	return peer.Some(*p)
}

func ci(p *stats.Interval) stats.Interval {
	if p == nil {
		return stats.Interval{}
	}
	return *p
}
