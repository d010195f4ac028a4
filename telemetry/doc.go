// Package telemetry reads what is measured beside the load over each
// level's window: GPU energy (energy.Meter), the engine's Prometheus
// metrics (enginemetrics), Kepler's pod energy and a LiteLLM proxy's
// accounting (Sources, a harness.Telemetry). It is apart from package
// harness so that running a level pulls in no Prometheus or YAML code:
// the command line, through package benchmark, gives a harness.Runner
// these sources; an embedder who wants none gives nothing.
package telemetry
