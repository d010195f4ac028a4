package benchmark

import (
	"context"
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// withScorecardInputs records in run what its scorecard is built from:
// the metadata (declared by flags, or observed), the cost rate, and the
// declared energy factors; Run.Scorecard then needs nothing else.
func (b *Benchmark) withScorecardInputs(ctx context.Context, run results.Run) results.Run {
	s := &b.s
	labels := maps.Clone(s.Labels)
	seed := s.Seed
	meta := scorecard.Metadata{
		Engine:        s.Engine,
		ModelRevision: s.ModelRevision,
		Precision:     s.ModelPrecision,
		Hardware:      s.Hardware,
		ToolVersion:   b.opt.Tool.Version,
		ToolCommit:    b.opt.Tool.Commit,
		SLO:           b.obj.String(),
		Warmup:        run.Config.Warmup,
		RunID:         s.RunID,
		Model:         b.model,
		Endpoint:      string(s.Endpoint),
		LoadMode:      string(s.Profile),
		Profile:       string(s.Profile),
		PrefixCache:   b.prefixCacheState(),
		Seed:          &seed,
		Labels:        labels,
		TargetURL:     scorecard.RedactURL(b.target),
		StartedAt:     run.StartedAt,
		InsecureTLS:   s.Insecure,
		Client:        b.host,
	}
	meta.Warmup, meta.WarmupPhase = warmupMetadata(run)
	if meta.LoadMode == "sweep" {
		meta.LoadMode = "constant"
	}
	if b.mock != nil && meta.Engine == "" {
		meta.Engine = "gollm-bench-mock-" + b.opt.Tool.Version + " (preset " + s.MockPreset + ")"
	}
	switch {
	case s.Dataset != "":
		meta.DataSpec = "dataset=" + s.Dataset
	case s.SequenceDistribution != nil:
		meta.DataSpec = s.SequenceDistribution.String()
	default:
		meta.DataSpec = dataText(s.Data)
	}
	b.arr.scorecardSpec(&meta)
	// ISL: with the served tokenizer, the requested --data length is hit
	// exactly; without it, the mean the server's usage reported (which
	// includes the chat template on /chat/completions).
	switch {
	case b.counter != nil && s.SequenceDistribution == nil && b.lengths.PromptTokens > 0:
		// Fitted with the server's own counts.
		meta.Tokenizer, meta.ISLBasis = "server: "+b.tokenizerAPI(), "prompt"
		if b.counter.API().Chat {
			meta.ISLBasis = "chat_template"
		}
		meta.ISLTokens, meta.OSLTokens = b.lengths.PromptTokens, b.lengths.OutputTokens
	case b.tok != nil && s.Dataset == "" && s.SequenceDistribution == nil && b.lengths.PromptTokens > 0:
		meta.Tokenizer, meta.TokenizerSHA256, meta.ISLBasis = b.tok.Path(), b.tok.SHA256(), "prompt"
		if b.chat != nil {
			meta.ISLBasis = "chat_template" // rendered with the template, as the server counts
		}
		meta.ISLTokens, meta.OSLTokens = b.lengths.PromptTokens, b.lengths.OutputTokens
	default:
		if b.tok != nil {
			meta.Tokenizer, meta.TokenizerSHA256 = b.tok.Path(), b.tok.SHA256()
		}
		meta.ISLBasis = "prompt"
		if b.tok == nil && s.Endpoint == "chat" {
			meta.ISLBasis = "chat_template"
		}
		for _, lv := range run.Result.Levels {
			if lv.Summary.PromptTokens.Count > 0 {
				// The level's mean achieved lengths, rounded.
				meta.ISLTokens = int(math.Round(lv.Summary.PromptTokens.Mean))
				meta.OSLTokens = int(math.Round(lv.Summary.OutputTokens.Mean))
				break
			}
		}
	}
	rate := scorecard.CostRate{EURPerHour: s.GPUCostEURh, Currency: "EUR", Source: "flag"}
	if s.OpenCost != "" {
		oc, err := cost.NewOpenCost(s.OpenCost, cost.WithCurrency(s.Currency))
		if err == nil {
			octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			alloc, aerr := oc.Namespace(octx, s.OpenCostNamespace, run.StartedAt, run.FinishedAt)
			cancel()
			err = aerr
			if err == nil {
				rate = scorecard.CostRate{EURPerHour: alloc.PerHour(), Currency: s.Currency, Source: "opencost"}
			}
		}
		if err != nil {
			fmt.Fprintf(b.opt.Log, "warning: --opencost: %v (no cost figures)\n", err)
		}
	}
	run.Metadata = meta
	if rate.EURPerHour > 0 {
		run.CostRate = &rate
	}
	run.Config.PUE, run.Config.IdleBaselineW, run.Config.GridGCO2KWh = s.PUE, s.IdleBaselineW, s.GridGCO2KWh
	run.Prices, run.Reference = b.prices, b.reference
	return run
}
