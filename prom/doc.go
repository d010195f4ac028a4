// Package counter reads Prometheus counters over a measurement window, the
// way the telemetry beside a benchmark needs them: how much each series
// grew between the window's start and its end.
//
// A Window is read in three steps: Begin at the window's start, End at its
// end, then Increase once per metric family, as often as needed. Two
// implementations:
//
//   - Prometheus (NewPrometheus) asks a Prometheus server, through its HTTP
//     API, for increase(family{matchers}[W]) evaluated at the window's end,
//     where W is the window's length: the query's range starts at the
//     window's start and ends at its end, both to the millisecond
//     (IncreaseQuery). Prometheus extrapolates from the samples nearest
//     each edge to the edge itself, so a counter that grows steadily is
//     read exactly; the error at each edge is at most the counter's growth
//     over one scrape interval.
//   - Scrape (NewScrape) reads the exporter's /metrics itself at Begin and
//     End and subtracts (Diff). Its edges are the scrape instants; an
//     exporter that refreshes its counters every few seconds shifts them by
//     up to that period.
//
// A series that no longer matches, or that Prometheus saw fewer than twice
// in the window, is simply absent from Increase's answer: callers turn an
// empty answer into a warning, never into a zero. Matchers are PromQL's
// label matchers (= and =~), applied by the server or, for Scrape, here.
package prom
