package report

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/results"
)

// arrivalRows are the configuration rows of a trace replay, a ramp,
// gamma arrivals and a shared-prefix workload (none when a is nil).
func arrivalRows(a *results.Arrivals) []kv {
	if a == nil {
		return nil
	}
	var rows []kv
	if t := a.Trace; t != nil {
		rows = append(rows, kv{"trace", fmt.Sprintf("%s (%s, sha256 %.12s)", t.File, t.Format, t.SHA256)},
			kv{"trace requests", fmt.Sprintf("%d of %d lines, window %s, %gx, span %s s", t.Requests, t.Lines, orAll(t.Window), t.Speedup, num(t.SpanS))})
	}
	if a.Burstiness > 0 {
		rows = append(rows, kv{"burstiness (gamma shape)", num(a.Burstiness)})
	}
	return append(rows, kv{"ramp", a.Ramp}, kv{"shared prefix", a.SharedPrefix})
}

// orAll is w, or "all" for the whole trace.
func orAll(w string) string {
	if w == "" {
		return "all"
	}
	return w
}
