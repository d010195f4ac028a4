package report

import (
	"strings"

	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// metaItem is one of the twelve mandatory metadata (docs/outputs.md#the-twelve-mandatory-metadata).
type metaItem struct {
	Name   string
	Value  string
	Source string // where it was read, for the reader
}

// Missing reports whether the item has no value.
func (m metaItem) Missing() bool { return m.Value == "" }

// Flag reports whether a flag sets the item (else it is auto-filled).
func (m metaItem) Flag() bool { return strings.HasPrefix(m.Source, "--") }

// mandatoryMetadata lists the twelve mandatory metadata, as the
// scorecard's fourteen keys, from run.json's metadata
// (docs/outputs.md#the-twelve-mandatory-metadata).
func mandatoryMetadata(run results.Run) []metaItem {
	var out []metaItem
	for _, f := range scorecard.MandatoryFields() {
		src := "auto-filled"
		if f.Setting != "" {
			src = cliFlag(f.Setting)
		}
		out = append(out, metaItem{Name: f.Description, Value: run.Metadata.Value(f.Key), Source: src})
	}
	return out
}

// cliFlag spells a setting as gollm-bench's flag, e.g. "energy" as
// "--energy". A report describes a run.json, whose settings come from the
// CLI's flags (docs/cli.md): its hints tell the reader which flag measures
// what is missing. The library's own errors and warnings name settings,
// never flags; the report's hints are the one place they are spelled so.
func cliFlag(setting string) string { return "--" + setting }
