// Package report renders a results.Run for people and tools: the
// end-of-run console table with the knee line and the warnings grouped by
// code (WriteConsole), levels.csv (WriteLevelsCSV), run.json (WriteJSON),
// a self-contained offline report.html (WriteHTML), a page overlaying
// several runs (WriteOverlayHTML), a Pareto chart across runs
// (WriteParetoHTML), the live view of a running sweep (Progress), and the
// decisions of package compare: B against a baseline A, ours or a peer
// tool's, in console, markdown, JSON or CSV (WriteComparison, for
// `gollm-bench compare`).
//
// report.html puts the decision first: a verdict line and cards for the
// knee, goodput, cost per 1M tokens, energy per token, TTFT p99 and ITL
// p95 with their units and 95 % intervals; then the metadata, the grouped
// warnings, and plots drawn with gonum.org/v1/plot as inline SVG, whose
// legends sit outside the data area and whose levels keep one colour on
// every plot. Every chart records its data area on its <svg> (data-area),
// so tests check from the SVG alone that no text covers the data.
//
// A renderer only formats. Every figure comes from the Run: level
// Summaries (package metrics: TTFT, ITL as AIPerf defines it, E2E, ICL as
// vLLM calls ITL, wrk2-corrected TTFT, error-adjusted percentiles),
// Verdicts (package slo), the Knee (package sweep), the Timelines, the
// energy readings (results.Run.EnergyWindows), the scorecard, and the
// digest of the records (metrics.RequestDigest). The only data extraction
// is reading CDF points from the encoded HDR histograms.
//
// Every writer is deterministic (the same Run gives the same bytes) and
// safe for concurrent use. `gollm-bench report DIR` re-renders a results
// folder with results.Read and these writers, offline.
package report
