package report

import (
	"io"

	"github.com/gollm-bench/gollm-bench/results"
)

// WriteJSON writes run as run.json content (results.Encode): indented,
// keys in struct order, schema_version set. Safe for concurrent use.
func WriteJSON(w io.Writer, run results.Run) error {
	return results.Encode(w, run)
}
