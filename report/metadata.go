package report

import (
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/results"
)

// metaItem is one of the twelve mandatory metadata (SPEC §10).
type metaItem struct {
	Name   string
	Value  string
	Source string // where it was read, for the reader
}

// Missing reports whether the item has no value.
func (m metaItem) Missing() bool { return m.Value == "" }

// mandatoryMetadata lists the twelve mandatory metadata of SPEC §10 as
// run.json holds them. results.Config has no fields for the engine
// version, model revision, precision and hardware yet: they are read from
// the labels engine, model_revision, precision and hardware (the CLI's
// --engine, --model-revision, --precision, --hardware should set them).
// Max concurrency tested is Config.MaxConcurrency; run.json holds no
// figure for the highest concurrency a sweep reached, so it shows as
// missing when no cap was set.
func mandatoryMetadata(run results.Run) []metaItem {
	c := run.Config
	label := func(k string) string { return c.Labels[k] }
	tok := c.Tokenizer
	if c.TokenizerSHA256 != "" {
		tok += " (sha256 " + c.TokenizerSHA256 + ")"
	}
	isl, osl := c.Data, c.Data
	switch {
	case c.SequenceDistribution != "":
		isl, osl = "--sequence-distribution "+c.SequenceDistribution, "--sequence-distribution "+c.SequenceDistribution
	case c.Dataset != "":
		isl, osl = "--dataset "+c.Dataset, "--dataset "+c.Dataset
	case c.Data != "":
		isl, osl = dataField(c.Data, "prompt_tokens"), dataField(c.Data, "output_tokens")
	}
	if isl != "" && c.ISLMeaning != "" {
		isl += " (" + c.ISLMeaning + ")"
	}
	maxConc := ""
	if c.MaxConcurrency > 0 {
		maxConc = strconv.Itoa(c.MaxConcurrency)
	}
	tool := run.Tool.Name
	if run.Tool.Version != "" {
		tool += " " + run.Tool.Version
	}
	if run.Tool.Commit != "" {
		tool += " (commit " + run.Tool.Commit + ")"
	}
	slo := c.SLO
	if slo == "" && !run.Result.Objective.IsZero() {
		slo = run.Result.Objective.String()
	}
	return []metaItem{
		{"engine version", label("engine"), "--engine (label engine)"},
		{"model revision", label("model_revision"), "--model-revision (label model_revision)"},
		{"precision", label("precision"), "--precision (label precision)"},
		{"tokenizer (+ sha256)", strings.TrimSpace(tok), "--tokenizer"},
		{"ISL", isl, "--data, --sequence-distribution or --dataset"},
		{"OSL", osl, "--data, --sequence-distribution or --dataset"},
		{"hardware", label("hardware"), "--hardware (label hardware)"},
		{"max concurrency tested", maxConc, "--max-concurrency"},
		{"tool version (+ commit)", strings.TrimSpace(tool), "build"},
		{"SLO", slo, "--slo"},
		{"warmup", c.Warmup, "--warmup"},
		{"run id", run.RunID, "--run-id"},
	}
}

// dataField returns "k=v" from a GuideLLM --data spec, or the whole spec.
func dataField(spec, key string) string {
	for _, kv := range strings.Split(spec, ",") {
		if strings.HasPrefix(strings.TrimSpace(kv), key+"=") {
			return strings.TrimSpace(kv)
		}
	}
	return spec
}
