// Package machine describes the client side of a benchmark: the machine
// that generated the load (CPU model, logical CPUs, memory, OS, Go version,
// GOMAXPROCS) and the network round trip from it to the target, measured as
// TCP connect times before the first level. A slow or distant client biases
// every latency a run reports; recording both lets a reader of the results
// see that bias instead of guessing it.
//
// Describe reads what the runtime and, on Linux, /proc and /etc/os-release
// say; ProbeRTT dials the target a few times. Both are plain values to put
// in run.json and the scorecard.
package machine
