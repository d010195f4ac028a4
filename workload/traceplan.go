package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TraceSpec says which trace to replay and how.
type TraceSpec struct {
	// File is the trace's path; Format its format ("" detects it).
	File   string
	Format TraceFormat
	// Speedup divides the trace's times (2 replays it twice as fast); 0
	// means 1.
	Speedup float64
	// Window selects the part replayed (zero: all of it).
	Window TraceWindow
	// Failed is the policy for lines that describe failed requests (""
	// is FailedReplay).
	Failed FailedRows
}

// TracePlan is a trace ready to replay as one level: the requests of
// TraceSpec.Window, their schedule at TraceSpec.Speedup, and what
// identifies the file.
type TracePlan struct {
	Spec   TraceSpec
	Trace  Trace  // the requests replayed, times from the window's start
	Lines  int    // requests in the whole file (less the failed rows skipped)
	SHA256 string // hex SHA-256 of the file's bytes
}

// LoadTrace reads spec.File (ReadTrace: a malformed line is a
// *TraceError naming the file and line) and selects spec.Window.
func LoadTrace(spec TraceSpec) (*TracePlan, error) {
	if spec.Speedup == 0 {
		spec.Speedup = 1
	}
	if !(spec.Speedup > 0) || math.IsInf(spec.Speedup, 0) {
		return nil, fmt.Errorf("trace speedup (TraceSpec.Speedup) %v: want a factor > 0, e.g. 10 (ten times faster) or 0.5 (half speed)", spec.Speedup)
	}
	data, err := os.ReadFile(spec.File)
	if err != nil {
		return nil, err
	}
	tr, err := ReadTraceWith(bytes.NewReader(data), spec.File, spec.Format, spec.Failed)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	p := &TracePlan{Spec: spec, Lines: len(tr.Entries), SHA256: hex.EncodeToString(sum[:])}
	if p.Trace, err = tr.Window(spec.Window); err != nil {
		return nil, err
	}
	return p, nil
}

// Offsets returns the arrival times of the requests replayed, at the
// plan's speed.
func (p *TracePlan) Offsets() []time.Duration { return p.Trace.Offsets(p.Spec.Speedup) }

// Pacer returns the plan's schedule as a pacer.
func (p *TracePlan) Pacer() loadgen.Pacer { return loadgen.SchedulePacer{Offsets: p.Offsets()} }

// Span returns the time from the first arrival replayed to the last, at
// the plan's speed.
func (p *TracePlan) Span() time.Duration {
	o := p.Offsets()
	return o[len(o)-1] - o[0]
}

// Rate returns the mean arrival rate of the replay, requests/s (the
// number of requests when they all arrive at once).
func (p *TracePlan) Rate() float64 {
	n := float64(len(p.Trace.Entries))
	if s := p.Offsets()[len(p.Trace.Entries)-1]; s > 0 {
		return n / s.Seconds()
	}
	return n
}

// Limits returns the limits of the replay's level: one request per line,
// and a length that ends one mean gap between arrivals (at least
// MinTraceTail) after the last arrival, as a constant-rate level of as
// many arrivals would: the last request counts in the measured window
// when it is sent within that slack, and requests still in flight at the
// end finish within the generator's drain timeout.
func (p *TracePlan) Limits() loadgen.Limits {
	o := p.Offsets()
	n := len(o)
	tail := MinTraceTail
	if n > 1 {
		tail = max(tail, (o[n-1]-o[0])/time.Duration(n-1))
	}
	return loadgen.Limits{MaxRequests: int64(n), MaxDuration: o[n-1] + tail}
}

// MinTraceTail is the least time a replay's level lasts after its last
// arrival (TracePlan.Limits).
const MinTraceTail = 10 * time.Millisecond

// PrefixCacheState is the prefix-cache state the replay declares:
// "trace" for a Mooncake trace (prompts share the blocks its hash_ids
// share), "cold" for the other formats (each line its own prompt).
func (p *TracePlan) PrefixCacheState() string {
	if p.Trace.Format == TraceMooncake {
		return "trace"
	}
	return string(PrefixCold)
}
