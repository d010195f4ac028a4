// Package cost turns a price per hour into the cost figures of a benchmark
// (docs/metrics.md#cost-cpm): CPM (cost per 1M output tokens at the knee's
// goodput), the cost of one request and of the measured window. The price per
// hour comes from the --gpu-cost-eur-h flag or from OpenCost's /allocation
// API for a namespace over the window (OpenCost.Namespace,
// Allocation.PerHour); the currency is declared by the caller, because
// OpenCost's response has none.
//
// Prices (the --price flag) price tokens by type instead, EUR per 1M
// tokens: input, output and cached input, with LiteLLM's meanings;
// Prices.Cost gives what a number of tokens of each type costs.
package cost
