package results

import (
	"fmt"
	"strconv"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Arrivals is the part of a run's configuration that shapes its arrivals
// and prompts beyond a fixed rate and fixed lengths (Config.Arrivals).
// Each field is empty when its option was not used.
type Arrivals struct {
	// Trace is the trace replayed (--trace).
	Trace *TraceReplay `json:"trace,omitempty"`
	// Ramp is the rate ramp of each level (--ramp), in its spelling,
	// e.g. "linear:1->50:1m0s".
	Ramp string `json:"ramp,omitempty"`
	// Burstiness is the shape K of the gamma-distributed gaps between
	// arrivals (--burstiness): 1 is a Poisson process, below 1 burstier;
	// the mean rate is the level's. 0 when the gaps were not gamma.
	Burstiness float64 `json:"burstiness,omitempty"`
	// SharedPrefix is the shared-prefix workload (--shared-prefix), e.g.
	// "groups=8,prompts=64,prefix=2048,question=128,output=256"; the
	// prefix-cache state is then "shared:GxS" (Config.PrefixCache).
	SharedPrefix string `json:"shared_prefix,omitempty"`
}

// TraceReplay describes the trace a run replayed.
type TraceReplay struct {
	File   string `json:"file"`
	Format string `json:"format"` // "mooncake", "azure" or "burstgpt"
	// SHA256 is the hex SHA-256 of the trace file's bytes.
	SHA256 string `json:"sha256"`
	// Lines is the number of requests in the file; Requests the number
	// replayed per level (those in Window).
	Lines    int `json:"lines"`
	Requests int `json:"requests"`
	// Window is the part replayed, "START,END" in time since the trace's
	// first request ("" for the whole trace).
	Window string `json:"window,omitempty"`
	// Speedup divides the trace's times (2: twice as fast).
	Speedup float64 `json:"speedup"`
	// SpanS is the time from the first replayed arrival to the last at
	// that speed, s.
	SpanS float64 `json:"span_s"`
	// FailedRows counts the file's lines that describe requests that
	// failed in the traced service (0 output tokens), and FailedPolicy
	// says what was done with them: "replay" (sent with 1 output token)
	// or "skip" (--trace-failed).
	FailedRows   int    `json:"failed_rows"`
	FailedPolicy string `json:"failed_rows_policy,omitempty"`
}

// Label names the load of a level run with profile p when a shapes its
// arrivals: "ramp linear 2→20 req/s over 1m0s", "trace mooncake 1×",
// "poisson 5 req/s, gamma K=0.5"; "" when a is nil or shapes nothing
// of p (a closed-loop level, or a plain constant or Poisson rate).
func (a *Arrivals) Label(p loadgen.Profile) string {
	if a == nil || !p.Mode.OpenLoop() {
		return ""
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	switch {
	case a.Trace != nil:
		return fmt.Sprintf("trace %s %s×", a.Trace.Format, g(a.Trace.Speedup))
	case a.Ramp != "":
		r, err := loadgen.ParseRamp(a.Ramp)
		if err != nil {
			return "ramp " + a.Ramp
		}
		return fmt.Sprintf("ramp %s %s→%s req/s over %v", r.Shape, g(r.From), g(r.To), r.Over)
	case a.Burstiness > 0 && p.Mode == loadgen.ModePoisson:
		return fmt.Sprintf("%s %s req/s, gamma K=%s", p.Mode, g(p.Rate), g(a.Burstiness))
	}
	return ""
}
