package results

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
}
