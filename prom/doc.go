// Package prom is the project's one reader of Prometheus data: the text
// exposition format of a /metrics page, the HTTP query API of a Prometheus
// server, and counters' increase over a measurement window built on both.
// Every other package that reads Prometheus data (energy's DCGM,
// Prometheus and Kepler sources, enginemetrics, litellm) goes through it.
//
// # A /metrics page
//
// ParseText parses the text format (0.0.4) into a Snapshot: each sample's
// value by family name, with a histogram or summary family f kept as its
// f_count and f_sum series, the way Prometheus stores them. Get is the one
// HTTP GET of a page: it asks for the text format, checks the status,
// bounds the body (MaxBody) and names the URL in its errors with
// credentials redacted. MetricsURL supplies the /metrics path a bare
// host:port URL lacks.
//
// # The query API
//
// API.Query runs an instant query (/api/v1/query) and DecodeQuery decodes
// its answer: an instant vector or a scalar as Samples, the API's error
// envelope as an *APIError.
//
// # Counters over a window
//
// A Window is read in three steps: Begin at the window's start, End at its
// end, then Increase once per metric family, as often as needed. Two
// implementations:
//
//   - QueryWindow asks a Prometheus server for
//     increase(family{matchers}[W]) evaluated at the window's end, where W
//     is the window's length: the query's range starts at the window's start
//     and ends at its end, both to the millisecond (IncreaseQuery).
//     Prometheus extrapolates from the samples nearest each edge to the edge
//     itself, so a counter that grows steadily is read exactly; the error at
//     each edge is at most the counter's growth over one scrape interval.
//   - ScrapeWindow reads the exporter's /metrics itself at Begin and End
//     and subtracts (Diff). Its edges are the scrape instants; an exporter
//     that refreshes its counters every few seconds shifts them by up to
//     that period.
//
// A series that no longer matches, or that Prometheus saw fewer than twice
// in the window, is simply absent from Increase's answer: callers turn an
// empty answer into a warning, never into a zero. Matchers are PromQL's
// label matchers (= and =~), applied by the server or, for ScrapeWindow,
// here.
package prom
