package scorecard

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/stats"
)

// column is one CSV column: a header named after the JSON path of the
// value (section.key, keys carrying units) and how to format it.
type column struct {
	name string
	get  func(*Scorecard) string
}

// columns is the aggregate CSV's column order. It is defined here, in
// code, so that it never depends on map iteration; new columns go at the
// end of their section.
func columns() []column {
	m := func(sc *Scorecard) *Metadata { return &sc.Metadata }
	p := func(sc *Scorecard) *Performance { return &sc.Performance }
	return []column{
		{"schema_version", func(sc *Scorecard) string { return sc.SchemaVersion }},
		{"status", func(sc *Scorecard) string { return string(sc.Status) }},
		{"missing", func(sc *Scorecard) string { return strings.Join(sc.Missing, ";") }},

		{"metadata.run_id", func(sc *Scorecard) string { return m(sc).RunID }},
		{"metadata.engine", func(sc *Scorecard) string { return m(sc).Engine }},
		{"metadata.model", func(sc *Scorecard) string { return m(sc).Model }},
		{"metadata.model_revision", func(sc *Scorecard) string { return m(sc).ModelRevision }},
		{"metadata.precision", func(sc *Scorecard) string { return m(sc).Precision }},
		{"metadata.tokenizer", func(sc *Scorecard) string { return m(sc).Tokenizer }},
		{"metadata.tokenizer_sha256", func(sc *Scorecard) string { return m(sc).TokenizerSHA256 }},
		{"metadata.isl_tokens", func(sc *Scorecard) string { return posInt(m(sc).ISLTokens) }},
		{"metadata.osl_tokens", func(sc *Scorecard) string { return posInt(m(sc).OSLTokens) }},
		{"metadata.hardware", func(sc *Scorecard) string { return m(sc).Hardware }},
		{"metadata.max_concurrency_tested", func(sc *Scorecard) string { return posInt(m(sc).MaxConcurrencyTested) }},
		{"metadata.tool_version", func(sc *Scorecard) string { return m(sc).ToolVersion }},
		{"metadata.tool_commit", func(sc *Scorecard) string { return m(sc).ToolCommit }},
		{"metadata.slo", func(sc *Scorecard) string { return m(sc).SLO }},
		{"metadata.warmup", func(sc *Scorecard) string { return m(sc).Warmup }},
		{"metadata.endpoint", func(sc *Scorecard) string { return m(sc).Endpoint }},
		{"metadata.profile", func(sc *Scorecard) string { return m(sc).Profile }},
		{"metadata.load_mode", func(sc *Scorecard) string { return m(sc).LoadMode }},
		{"metadata.data_spec", func(sc *Scorecard) string { return m(sc).DataSpec }},
		{"metadata.isl_basis", func(sc *Scorecard) string { return m(sc).ISLBasis }},
		{"metadata.prefix_cache", func(sc *Scorecard) string { return m(sc).PrefixCache }},
		{"metadata.seed", func(sc *Scorecard) string {
			if m(sc).Seed == nil {
				return ""
			}
			return strconv.FormatUint(*m(sc).Seed, 10)
		}},
		{"metadata.gpu_count", func(sc *Scorecard) string { return posInt(m(sc).GPUCount) }},
		{"metadata.target_url", func(sc *Scorecard) string { return m(sc).TargetURL }},
		{"metadata.started_at", func(sc *Scorecard) string {
			if m(sc).StartedAt.IsZero() {
				return ""
			}
			return m(sc).StartedAt.UTC().Format(time.RFC3339Nano)
		}},

		{"performance.knee_level", func(sc *Scorecard) string { return intp(p(sc).KneeLevel) }},
		{"performance.goodput_tok_s", func(sc *Scorecard) string { return floatp(p(sc).GoodputTokS) }},
		{"performance.goodput_req_s", func(sc *Scorecard) string { return floatp(p(sc).GoodputReqS) }},
		{"performance.output_tok_s", func(sc *Scorecard) string { return floatp(p(sc).OutputTokS) }},
		{"performance.ttft_p99_ms", func(sc *Scorecard) string { return floatp(p(sc).TTFTP99Ms) }},
		{"performance.itl_p95_ms", func(sc *Scorecard) string { return floatp(p(sc).ITLP95Ms) }},
		{"performance.e2e_p99_ms", func(sc *Scorecard) string { return floatp(p(sc).E2EP99Ms) }},
		{"performance.peak_output_tok_s", func(sc *Scorecard) string { return floatp(p(sc).PeakOutputTokS) }},
		{"performance.knee_rate_req_s", func(sc *Scorecard) string { return floatp(p(sc).KneeRateReqS) }},
		{"performance.knee_concurrency", func(sc *Scorecard) string { return intp(p(sc).KneeConcurrency) }},
		{"performance.knee_bracket.low", func(sc *Scorecard) string {
			if b := p(sc).KneeBracket; b != nil {
				return fmtFloat(b.Low)
			}
			return ""
		}},
		{"performance.knee_bracket.high", func(sc *Scorecard) string {
			if b := p(sc).KneeBracket; b != nil {
				return floatp(b.High)
			}
			return ""
		}},
		{"performance.knee_bracket.unit", func(sc *Scorecard) string {
			if b := p(sc).KneeBracket; b != nil {
				return b.Unit
			}
			return ""
		}},
		{"performance.knee_reached", func(sc *Scorecard) string { return boolp(p(sc).KneeReached) }},
		{"performance.slo_pass", func(sc *Scorecard) string { return boolp(p(sc).SLOPass) }},
		{"performance.error_rate", func(sc *Scorecard) string { return floatp(p(sc).ErrorRate) }},
		{"performance.window_s", func(sc *Scorecard) string { return floatp(p(sc).WindowS) }},
		{"performance.output_tokens", func(sc *Scorecard) string {
			if v := p(sc).OutputTokens; v != nil {
				return strconv.FormatInt(*v, 10)
			}
			return ""
		}},
		{"performance.slo_outcome", func(sc *Scorecard) string { return p(sc).SLOOutcome }},
		{"performance.ttft_p99_ms_lo", func(sc *Scorecard) string { return lo(p(sc).TTFTP99MsCI) }},
		{"performance.ttft_p99_ms_hi", func(sc *Scorecard) string { return hi(p(sc).TTFTP99MsCI) }},
		{"performance.itl_p95_ms_lo", func(sc *Scorecard) string { return lo(p(sc).ITLP95MsCI) }},
		{"performance.itl_p95_ms_hi", func(sc *Scorecard) string { return hi(p(sc).ITLP95MsCI) }},
		{"performance.goodput_tok_s_lo", func(sc *Scorecard) string { return lo(p(sc).GoodputTokSCI) }},
		{"performance.goodput_tok_s_hi", func(sc *Scorecard) string { return hi(p(sc).GoodputTokSCI) }},
		{"performance.output_tok_s_lo", func(sc *Scorecard) string { return lo(p(sc).OutputTokSCI) }},
		{"performance.output_tok_s_hi", func(sc *Scorecard) string { return hi(p(sc).OutputTokSCI) }},

		{"cost.eur_per_hour", func(sc *Scorecard) string { return floatp(sc.Cost.EURPerHour) }},
		{"cost.currency", func(sc *Scorecard) string { return sc.Cost.Currency }},
		{"cost.cpm_eur_1m", func(sc *Scorecard) string { return floatp(sc.Cost.CPMEUR1M) }},
		{"cost.cost_per_request_eur", func(sc *Scorecard) string { return floatp(sc.Cost.CostPerRequestEUR) }},
		{"cost.cost_window_eur", func(sc *Scorecard) string { return floatp(sc.Cost.CostWindowEUR) }},
		{"cost.source", func(sc *Scorecard) string { return sc.Cost.Source }},
		{"cost.cpm_eur_1m_lo", func(sc *Scorecard) string { return lo(sc.Cost.CPMEUR1MCI) }},
		{"cost.cpm_eur_1m_hi", func(sc *Scorecard) string { return hi(sc.Cost.CPMEUR1MCI) }},
		{"cost.tokens.cpm_eur_1m", func(sc *Scorecard) string { return tokens(sc, func(t *TokenCost) *float64 { return t.CPMEUR1M }) }},
		{"cost.tokens.cpm_eur_1m_lo", func(sc *Scorecard) string {
			if t := sc.Cost.Tokens; t != nil {
				return lo(t.CPMEUR1MCI)
			}
			return ""
		}},
		{"cost.tokens.cpm_eur_1m_hi", func(sc *Scorecard) string {
			if t := sc.Cost.Tokens; t != nil {
				return hi(t.CPMEUR1MCI)
			}
			return ""
		}},
		{"cost.tokens.blended_eur_1m", func(sc *Scorecard) string { return tokens(sc, func(t *TokenCost) *float64 { return t.BlendedEUR1M }) }},
		{"cost.tokens.cost_per_request_eur", func(sc *Scorecard) string {
			return tokens(sc, func(t *TokenCost) *float64 { return t.CostPerRequestEUR })
		}},
		{"cost.tokens.window_eur", func(sc *Scorecard) string { return tokens(sc, func(t *TokenCost) *float64 { return &t.WindowEUR }) }},
		{"cost.litellm.spend", func(sc *Scorecard) string {
			if l := sc.Cost.LiteLLM; l != nil {
				return floatp(l.Spend)
			}
			return ""
		}},
		{"cost.litellm.cpm_1m", func(sc *Scorecard) string {
			if l := sc.Cost.LiteLLM; l != nil {
				return floatp(l.CPM1M)
			}
			return ""
		}},

		{"energy.source", func(sc *Scorecard) string { return sc.Energy.Source }},
		{"energy.valid", func(sc *Scorecard) string { return strconv.FormatBool(sc.Energy.Valid) }},
		{"energy.energy_j", func(sc *Scorecard) string { return floatp(sc.Energy.EnergyJ) }},
		{"energy.energy_gross_j", func(sc *Scorecard) string { return floatp(sc.Energy.EnergyGrossJ) }},
		{"energy.mean_w", func(sc *Scorecard) string { return floatp(sc.Energy.MeanW) }},
		{"energy.wh_per_token", func(sc *Scorecard) string { return floatp(sc.Energy.WhPerToken) }},
		{"energy.j_per_token", func(sc *Scorecard) string { return floatp(sc.Energy.JPerToken) }},
		{"energy.pue", func(sc *Scorecard) string { return floatp(sc.Energy.PUE) }},
		{"energy.wh_per_token_pue", func(sc *Scorecard) string { return floatp(sc.Energy.WhPerTokenPUE) }},
		{"energy.idle_baseline_w", func(sc *Scorecard) string { return floatp(sc.Energy.IdleBaselineW) }},
		{"energy.reset_detected", func(sc *Scorecard) string { return strconv.FormatBool(sc.Energy.ResetDetected) }},
		{"energy.gpu_name", func(sc *Scorecard) string { return sc.Energy.GPUName }},
		{"energy.gpu_count", func(sc *Scorecard) string { return posInt(sc.Energy.GPUCount) }},
		{"energy.wh_per_token_lo", func(sc *Scorecard) string { return lo(sc.Energy.WhPerTokenCI) }},
		{"energy.wh_per_token_hi", func(sc *Scorecard) string { return hi(sc.Energy.WhPerTokenCI) }},
		{"energy.wh_per_token_basis", func(sc *Scorecard) string { return sc.Energy.WhPerTokenBasis }},
		{"energy.pod.energy_j", func(sc *Scorecard) string { return pod(sc, func(p *PodEnergy) *float64 { return p.EnergyJ }) }},
		{"energy.pod.cpu_j", func(sc *Scorecard) string { return pod(sc, func(p *PodEnergy) *float64 { return p.CPUJ }) }},
		{"energy.pod.gpu_j", func(sc *Scorecard) string { return pod(sc, func(p *PodEnergy) *float64 { return p.GPUJ }) }},
		{"energy.pod.wh_per_token", func(sc *Scorecard) string { return pod(sc, func(p *PodEnergy) *float64 { return p.WhPerToken }) }},
		{"energy.pod.gpu_gap_j", func(sc *Scorecard) string { return pod(sc, func(p *PodEnergy) *float64 { return p.GPUGapJ }) }},
		{"energy.plausibility.ratio", func(sc *Scorecard) string {
			if p := sc.Energy.Plausibility; p != nil {
				return fmtFloat(p.Ratio)
			}
			return ""
		}},
		{"energy.plausibility.verdict", func(sc *Scorecard) string {
			if p := sc.Energy.Plausibility; p != nil {
				return p.Verdict
			}
			return ""
		}},

		{"carbon.grid_gco2_kwh", func(sc *Scorecard) string { return floatp(sc.Carbon.GridGCO2KWh) }},
		{"carbon.gco2_per_1m_tokens", func(sc *Scorecard) string { return floatp(sc.Carbon.GCO2Per1MTokens) }},
		{"carbon.pue_adjusted", func(sc *Scorecard) string { return strconv.FormatBool(sc.Carbon.PUEAdjusted) }},

		{"warnings", func(sc *Scorecard) string {
			codes := make([]string, len(sc.Warnings))
			for i, w := range sc.Warnings {
				codes[i] = string(w.Code)
			}
			return strings.Join(codes, ";")
		}},
	}
}

// Columns returns the aggregate CSV's fixed header (without the label.<k>
// columns, which depend on the rows).
func Columns() []string {
	cols := columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return names
}

// WriteCSVFile writes WriteCSV's table to path, replacing a file there,
// and creates path's folder if need be. Errors name path.
func WriteCSVFile(path string, cards []Scorecard, opts ...Option) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := errors.Join(WriteCSV(f, cards, opts...), f.Close()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteCSV writes one CSV row per scorecard (`gollm-bench aggregate`,
// scorecard-aggregate.csv, docs/outputs.md#scorecard-aggregatecsv): the
// header Columns(), with WithCostBasis the cost_basis and cpm_1m columns (the
// chosen basis and its CPM), then one label.<k> column per label key found in
// any row, sorted by key. A missing figure is an empty cell, never 0; numbers
// use the shortest decimal that round-trips; list cells (missing, warnings)
// join with ";".
func WriteCSV(w io.Writer, cards []Scorecard, opts ...Option) error {
	cols := columns()
	if cfg := newConfig(opts); cfg.basisSet {
		key := cfg.basis.Key()
		cols = append(cols,
			column{"cost_basis", func(*Scorecard) string { return string(cfg.basis) }},
			column{"cpm_1m", func(sc *Scorecard) string {
				if v, ok := Figure(*sc, key); ok {
					return fmtFloat(v)
				}
				return ""
			}})
	}
	var keys []string
	for i := range cards {
		for k := range cards[i].Metadata.Labels {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)

	cw := csv.NewWriter(w)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	for _, k := range keys {
		header = append(header, "label."+k)
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("scorecard: csv: %w", err)
	}
	rec := make([]string, len(header))
	for i := range cards {
		sc := &cards[i]
		for j, c := range cols {
			rec[j] = c.get(sc)
		}
		for j, k := range keys {
			rec[len(cols)+j] = sc.Metadata.Labels[k]
		}
		if err := cw.Write(termtext.CSVRow(rec)); err != nil {
			return fmt.Errorf("scorecard: csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("scorecard: csv: %w", err)
	}
	return nil
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func floatp(v *float64) string {
	if v == nil {
		return ""
	}
	return fmtFloat(*v)
}

// lo and hi are the bounds of an interval, "" when there is none or the
// side is unbounded.
func lo(ci *stats.Interval) string {
	if ci == nil || !ci.LoBounded() {
		return ""
	}
	return fmtFloat(ci.Lo)
}

func hi(ci *stats.Interval) string {
	if ci == nil || !ci.HiBounded() {
		return ""
	}
	return fmtFloat(ci.Hi)
}

func intp(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

func posInt(v int) string {
	if v <= 0 {
		return ""
	}
	return strconv.Itoa(v)
}

func boolp(v *bool) string {
	if v == nil {
		return ""
	}
	return strconv.FormatBool(*v)
}

func tokens(sc *Scorecard, get func(*TokenCost) *float64) string {
	if t := sc.Cost.Tokens; t != nil {
		return floatp(get(t))
	}
	return ""
}

func pod(sc *Scorecard, get func(*PodEnergy) *float64) string {
	if p := sc.Energy.Pod; p != nil {
		return floatp(get(p))
	}
	return ""
}
