// Package report renders a results.Run for people and tools (SPEC §10):
// the end-of-run console table with the knee line and warnings
// (WriteConsole), levels.csv (WriteLevelsCSV), run.json (WriteJSON), a
// self-contained offline report.html with inline SVG plots drawn by
// gonum.org/v1/plot (WriteHTML), a Pareto chart across runs
// (WriteParetoHTML), the live progress line of a running level
// (Progress), and the decisions of package compare: B against a
// baseline A, ours or a peer tool's, in console, markdown, JSON or CSV
// (WriteComparison, for `gollm-bench compare`).
//
// A renderer only formats. Every figure comes from the Run: level
// Summaries (package metrics: TTFT, ITL as AIPerf defines it, E2E, ICL as
// vLLM calls ITL, wrk2-corrected TTFT, error-adjusted percentiles),
// Verdicts (package slo), the Knee (package sweep) and the Timelines. The
// only data extraction is reading CDF points from the encoded HDR
// histograms for the CDF plots.
//
// Every writer is deterministic (the same Run gives the same bytes) and
// safe for concurrent use. `gollm-bench report DIR` re-renders a results
// folder with results.Read and these writers, offline.
package report
