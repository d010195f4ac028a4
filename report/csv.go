package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// LevelsCSVColumns is the fixed part of the header of levels.csv, in
// order. Names carry their unit (_ms, _s, _req_s, _tok_s); _lo and _hi
// columns hold the bounds of the 95 % interval, empty when unbounded. The
// order is stable: columns are only ever appended. After them come, for
// each latency percentile the run's SLO names beyond TTFT p99 and ITL p95,
// its value and bounds (e.g. e2e_p99_ms, e2e_p99_lo_ms, e2e_p99_hi_ms).
func LevelsCSVColumns() []string {
	cols := []string{
		"level", "phase", "mode", "concurrency", "rate_req_s", "max_concurrency", "offered_load", "unit", "window_s",
		"requests_sent", "ok", "failed", "incomplete", "error_rate",
	}
	for _, m := range []string{"ttft", "itl", "icl", "e2e"} {
		for _, st := range []string{"mean", "p50", "p90", "p95", "p99", "p99_9"} {
			cols = append(cols, m+"_"+st+"_ms")
		}
		switch m {
		case "ttft":
			cols = append(cols, "ttft_corrected_p99_ms", "ttft_err_adj_p99_ms")
		case "e2e":
			cols = append(cols, "e2e_err_adj_p99_ms")
		}
	}
	return append(cols,
		"lag_p99_ms", "output_tok_s", "input_tok_s", "total_tok_s", "req_s", "mean_in_flight",
		"goodput_req_s", "goodput_tok_s", "achieved_ratio", "client_limited", "capped", "partial", "pass", "failing",
		"tokens_per_chunk_mean",
		"ttft_p99_lo_ms", "ttft_p99_hi_ms", "itl_p95_lo_ms", "itl_p95_hi_ms",
		"output_tok_s_lo", "output_tok_s_hi", "goodput_tok_s_lo", "goodput_tok_s_hi", "error_rate_lo", "error_rate_hi",
		"outcome", "undecided",
	)
}

// sloColumns are the latency percentiles the SLO names beyond the fixed
// TTFT p99 and ITL p95 columns, in the SLO's order, once each.
func sloColumns(obj slo.Objective) []slo.Term {
	seen := map[string]bool{"ttft_p99": true, "itl_p95": true}
	var out []slo.Term
	for _, t := range obj.Terms {
		if !t.Metric.Latency() || t.Mean || seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		out = append(out, t)
	}
	return out
}

// WriteLevelsCSV writes levels.csv: LevelsCSVColumns, then one row per
// level in run order. Numbers are plain (no thousands separators, full
// precision); a distribution without samples leaves its cells empty; +Inf
// is written "inf" (error-adjusted percentiles), NaN as an empty cell.
// failing joins the violated SLO terms with ';'. Safe for concurrent use.
func WriteLevelsCSV(w io.Writer, run results.Run) error {
	cw := csv.NewWriter(w)
	extra := sloColumns(run.Result.Objective)
	header := LevelsCSVColumns()
	for _, t := range extra {
		header = append(header, t.Name()+"_ms", t.Name()+"_lo_ms", t.Name()+"_hi_ms")
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("report: levels.csv: %w", err)
	}
	for _, l := range run.Result.Levels {
		row := levelRow(l)
		for _, t := range extra {
			m := t.Measure(l.Summary)
			if m.Err != nil {
				row = append(row, "", "", "")
				continue
			}
			row = append(row, num(m.Value), bound(m.Interval.Lo), bound(m.Interval.Hi))
		}
		if err := cw.Write(termtext.CSVRow(row)); err != nil {
			return fmt.Errorf("report: levels.csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: levels.csv: %w", err)
	}
	return nil
}

func levelRow(l sweep.LevelOutcome) []string {
	s := l.Summary
	p := l.Profile
	row := []string{
		strconv.Itoa(l.Index), string(l.Phase), string(p.Mode), intOrEmpty(p.Concurrency), numOrEmpty(p.Rate), intOrEmpty(p.MaxConcurrency),
		num(l.OfferedLoad), l.Unit, num(s.WindowSeconds),
		strconv.FormatInt(s.Requests.Sent, 10), strconv.FormatInt(s.Requests.OK, 10), strconv.FormatInt(s.Requests.Failed, 10),
		strconv.FormatInt(s.Requests.Incomplete, 10), num(s.ErrorRate),
	}
	stats := func(d metrics.Distribution) []string {
		return []string{dnum(d, d.Mean), dnum(d, d.P50), dnum(d, d.P90), dnum(d, d.P95), dnum(d, d.P99), dnum(d, d.P999)}
	}
	row = append(row, stats(s.TTFT)...)
	row = append(row, dnum(s.TTFTCorrected, s.TTFTCorrected.P99), dnum(s.TTFTErrorAdjusted, s.TTFTErrorAdjusted.P99))
	row = append(row, stats(s.ITL)...)
	row = append(row, stats(s.ICL)...)
	row = append(row, stats(s.E2E)...)
	row = append(row, dnum(s.E2EErrorAdjusted, s.E2EErrorAdjusted.P99))
	return append(row,
		dnum(s.Lag, s.Lag.P99), num(s.OutputTokensPerSecond), num(s.InputTokensPerSecond), num(s.TotalTokensPerSecond),
		num(s.RequestsPerSecond), num(s.MeanConcurrency), num(s.Goodput.RequestsPerSecond), num(s.Goodput.OutputTokensPerSecond),
		numOrEmpty(s.Client.AchievedRatio),
		strconv.FormatBool(s.Client.ClientLimited), strconv.FormatBool(s.Client.Capped), strconv.FormatBool(l.Partial),
		strconv.FormatBool(l.Verdict.Pass), strings.Join(l.Verdict.Failing, ";"),
		dnum(s.TokensPerChunk, s.TokensPerChunk.Mean),
		dbound(s.TTFT, s.TTFT.P99CI.Lo), dbound(s.TTFT, s.TTFT.P99CI.Hi), dbound(s.ITL, s.ITL.P95CI.Lo), dbound(s.ITL, s.ITL.P95CI.Hi),
		ibound(s.OutputTokensPerSecondCI.Lo, s.OutputTokensPerSecondCI), ibound(s.OutputTokensPerSecondCI.Hi, s.OutputTokensPerSecondCI),
		ibound(s.Goodput.OutputTokensPerSecondCI.Lo, s.Goodput.OutputTokensPerSecondCI), ibound(s.Goodput.OutputTokensPerSecondCI.Hi, s.Goodput.OutputTokensPerSecondCI),
		ibound(s.ErrorRateCI.Lo, s.ErrorRateCI), ibound(s.ErrorRateCI.Hi, s.ErrorRateCI),
		string(l.Verdict.Outcome), strings.Join(l.Verdict.Undecided, ";"),
	)
}

// bound formats an interval bound: "" when unbounded (±Inf).
func bound(v float64) string {
	if math.IsInf(v, 0) {
		return ""
	}
	return num(v)
}

// dbound is bound for a distribution's interval, "" when d has no samples.
func dbound(d metrics.Distribution, v float64) string {
	if d.Count == 0 {
		return ""
	}
	return bound(v)
}

// ibound is bound, "" when the interval was not computed.
func ibound(v float64, ci stats.Interval) string {
	if ci.IsZero() {
		return ""
	}
	return bound(v)
}

// num formats v exactly (shortest representation); "inf"/"-inf" for
// infinities, "" for NaN.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func numOrEmpty(v float64) string {
	if v == 0 {
		return ""
	}
	return num(v)
}

func intOrEmpty(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// dnum formats one statistic of d, or "" when d has no samples.
func dnum(d metrics.Distribution, v float64) string {
	if d.Count == 0 {
		return ""
	}
	return num(v)
}
