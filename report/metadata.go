package report

import (
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// metaItem is one of the twelve mandatory metadata (SPEC §10).
type metaItem struct {
	Name   string
	Value  string
	Source string // where it was read, for the reader
}

// Missing reports whether the item has no value.
func (m metaItem) Missing() bool { return m.Value == "" }

// mandatoryMetadata lists the twelve mandatory metadata of SPEC §10 (as
// the scorecard's fourteen keys) from run.json's metadata.
func mandatoryMetadata(run results.Run) []metaItem {
	var out []metaItem
	for _, f := range scorecard.MandatoryFields() {
		src := "auto-filled"
		if f.Setting != "" {
			src = "--" + f.Setting // run.json's metadata come from gollm-bench's flags
		}
		out = append(out, metaItem{Name: f.Description, Value: run.Metadata.Value(f.Key), Source: src})
	}
	return out
}
