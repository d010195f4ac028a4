// Package loadgen is gollm-bench's embeddable load generator: it sends
// requests to an inference server at a chosen pace and emits one Record per
// request, whatever its outcome, except the open-loop arrivals a
// MaxConcurrency cap held back and never sent, which are counted
// (LevelResult.HeldBack) (docs/records.md,
// docs/metrics.md#load-profiles).
//
// The pieces:
//
//   - A Workload builds the request for each sequence number; a Requester
//     sends it and fills in the Record (the openai package provides the
//     HTTP one). loadgen knows nothing of HTTP.
//   - A Pacer plans open-loop arrivals (ConstantPacer, PoissonPacer,
//     GammaPacer for bursty gaps, RampPacer for a rate rising within the
//     level, SchedulePacer for a trace's fixed times; Arrivals picks one
//     per level): a pure function from an arrival's index to its intended
//     time, so the plan never depends on the server (no coordinated
//     omission, as wrk2 defines it). Closed-loop modes (synchronous,
//     concurrent N, throughput) are worker pools instead. A Workload that
//     implements IndexedWorkload is told each request's index in the
//     level's plan (a trace's line).
//   - A Generator runs one level at a time (Generator.Run) with a Profile
//     (how to pace) and Limits (when to stop, and the warmup and cooldown
//     trims), writes the records to a Sink from a single goroutine, and
//     returns a LevelResult: the level's start and end, its measured window
//     (docs/metrics.md#the-measured-window-and-its-trims), its stop reason,
//     and client health (late arrivals, queue depth, client CPU time).
//   - A SessionWorkload (session.go) makes each arrival a multi-turn chat
//     session: its turns follow one another, each due at the end of the
//     previous plus a think time, each carrying the conversation so far
//     (Request.Chat) with the server's replies (Request.Reply), each with
//     its own Record (Record.Turn); a session counts as one arrival.
//   - Encoder and Decoder stream records as JSON Lines (requests.jsonl),
//     optionally gzip-compressed; MemorySink, Tee and SinkFunc compose
//     sinks.
//
// Records reach the sink before the level's window is known, so
// Record.InWindow is set afterwards, by whoever re-reads the records, with
// LevelResult.InWindow or MarkInWindow.
//
// Times are monotonic offsets from the run's start (Clock). Tests drive
// the Generator inside a testing/synctest bubble with a fake Requester, so
// pacing, stops and windows are checked to the nanosecond without sleeping.
package loadgen
