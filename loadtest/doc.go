// Package loadtest is the front door for embedders: one call runs a load
// level against an OpenAI-compatible server and returns what it measured
// (Level), another runs a sweep to a decided knee under an SLO (Sweep),
// each with the same defaults as the gollm-bench command line.
//
// It wires the layers below it and adds no measurement of its own:
// openai.Client sends, workload.Synthetic builds the prompts (unless
// WithWorkload gives others), harness.Runner runs each level and
// accumulates its summary, and sweep.Run searches for the knee with the
// decide precision (slo.Precision{Decide: true}), as `gollm-bench sweep
// --slo ...` does. Those packages remain the place for what the front door
// does not offer (telemetry, record files, repeats, shards).
//
// Nothing an embedder passes can crash the host process: a nil or
// panicking Workload, Pacer, client option, record callback or progress
// function becomes an error (or, for a Requester, a failed record carrying
// the panic's message), and a Pacer whose plan goes backwards, below 0 or
// denser than 1 µs apart is refused before anything is sent. A record
// callback (WithRecords) runs on the level's record path: a slow one
// delays the level's end, even on cancellation.
//
// Defaults (Options), and where they come from:
//
//   - Prompts: synthetic, 256 prompt and 64 output tokens per request,
//     seed 42 (the CLI's --data and --seed defaults).
//   - Warmup and cooldown: 10 % of each level's length each (--warmup,
//     --cooldown).
//   - Drain: requests in flight when a level ends may finish for up to
//     30 s (--drain-timeout), so that every request sent in the window is
//     measured to its end. harness.Config's zero value drains nothing.
//   - Unreachable target: a level stops when its first 10 requests all
//     fail to connect (--unreachable-after).
//   - Timeouts: 5 min per request, 60 s between a stream's bytes
//     (--request-timeout, --idle-timeout); WithClientOptions overrides
//     them. openai.New's own defaults are no timeouts.
//   - Max lag: the SLO's (slo.Objective.MaxLag), as the CLI against a real
//     target; the CLI raises it to 20 ms against its in-process mock,
//     which shares the client's CPU: WithMaxLag does the same here.
//   - Sweep: 30 s grid levels (--max-seconds), decided levels up to ten
//     times that (--precision-max-seconds), 10 grid levels, knee tolerance
//     5 %, at most 16 levels (--grid-levels, --knee-tolerance,
//     --max-levels). WithRates replaces the grid with rates of the
//     caller's choosing (the CLI's --rate list) and WithKneeTolerance
//     widens the tolerance, for an embedder who knows roughly where the
//     knee lies.
//
// The model is the one the server lists at /v1/models when it lists
// exactly one; WithModel names it otherwise.
package loadtest
