package metrics

import (
	"fmt"
	"math"
	"strings"
)

// Warning codes set by this package (Warning.Code). Reports show every
// warning; tools may match on the codes, which are stable.
const (
	// WarnEmptyWindow: the window has no length, so there are no rates.
	WarnEmptyWindow WarningCode = "empty_window"
	// WarnNoRequests: no request was sent inside the window.
	WarnNoRequests WarningCode = "no_requests_in_window"
	// WarnTooShort: no request sent in the level's window finished
	// (Summary.TooShort): nothing was measured, nothing is decided.
	WarnTooShort WarningCode = "level_too_short"
	// WarnClientLimited: the load generator fell behind
	// (docs/metrics.md#client-health).
	WarnClientLimited WarningCode = "client_limited"
	// WarnCapped: the shortfall came from MaxConcurrency
	// (docs/metrics.md#client-health).
	WarnCapped WarningCode = "capped"
	// WarnTokenCountMismatch: server and local prompt counts differ by
	// > 1 % (and > 1 token): the tokenizer does not match the model.
	// It is also set when the server's usage.prompt_tokens differs at all
	// from the ISL a prompt was built to with the server's own tokenize
	// counts (RequestCounts.ExactISLMissed).
	WarnTokenCountMismatch WarningCode = "token_count_mismatch"
	// WarnISLClamped: drawn ISLs below the shortest prompt the workload
	// can build were sent, and recorded, at that shortest length
	// (RequestCounts.ISLClamped).
	WarnISLClamped WarningCode = "isl_clamped"
	// WarnOutputRetokenization: re-tokenizing the generated text gave a
	// count other than the server's; a note, not a tokenizer verdict.
	WarnOutputRetokenization WarningCode = "output_retokenization_differs"
	// WarnOSLShort: ok requests returned fewer tokens than requested.
	WarnOSLShort WarningCode = "osl_short"
	// WarnOSLExceeded: ok requests returned more tokens than their
	// max_tokens allowed (the server ignores it).
	WarnOSLExceeded WarningCode = "osl_exceeded"
	// WarnFailedTokens: a share of the output tokens came from requests
	// that failed (FailedOutputTokensPerSecond).
	WarnFailedTokens WarningCode = "failed_request_tokens"
	// WarnNotSent: requests never reached the server whole (a reused
	// keep-alive connection closed under the write); not counted as
	// failures.
	WarnNotSent WarningCode = "requests_not_sent"
	// WarnHighErrorRate: the error rate exceeds HighErrorRate.
	WarnHighErrorRate WarningCode = "high_error_rate"
	// WarnShardWindowsDiffer: MergeSummaries added rates of shards whose
	// windows were not the same.
	WarnShardWindowsDiffer WarningCode = "shard_windows_differ"
	// WarnUsageRejected: the server's usage object held impossible token
	// counts (negative, beyond any context window, not a whole number),
	// which were not used.
	WarnUsageRejected WarningCode = "usage_rejected"
	// WarnClockStep: the wall clock stepped while requests ran, so their
	// kernel receive stamps (CLOCK_REALTIME) were dropped for user-space
	// ones (loadgen.Record.ClockStep).
	WarnClockStep WarningCode = "wall_clock_step"
)

// FailedTokensShare is the share of a level's output tokens/s from
// failed requests at and above which it warns WarnFailedTokens (0.5: half
// the tokens came from requests that did not complete).
const FailedTokensShare = 0.5

// isDerived reports whether code is computed from a Summary's own fields,
// so that MergeSummaries recomputes it rather than copies it.
func isDerived(code WarningCode) bool {
	switch code {
	case WarnEmptyWindow, WarnNoRequests, WarnTooShort, WarnClientLimited, WarnCapped,
		WarnTokenCountMismatch, WarnISLClamped, WarnOutputRetokenization, WarnOSLShort, WarnOSLExceeded, WarnFailedTokens, WarnNotSent, WarnHighErrorRate, WarnUsageRejected:
		return true
	}
	return false
}

// assessClient fills s.Client's AchievedRatio, ClientLimited, Capped and
// Reason (docs/metrics.md#client-health): a level is client-limited when an
// open-loop level sent less than MinAchievedRatio of its target rate, or when
// the scheduling-lag p99 exceeds MaxLag, or when arrivals were held back
// (HeldBack) or requests failed on the client's own resources. It is
// capped instead, for the first two causes, when an
// open-loop level has a MaxConcurrency and the cap was reached (capReached
// from the runner, or the peak in flight within the window at the cap), since
// queueing for a slot is then the cause.
func assessClient(s *Summary, capReached bool) {
	c := &s.Client
	c.AchievedRatio, c.ClientLimited, c.Capped, c.Reason = 0, false, false, ""
	var reasons []string
	if c.TargetRate > 0 && s.WindowSeconds > 0 && s.TooShort == "" {
		c.AchievedRatio = c.AchievedRate / c.TargetRate
		if c.AchievedRatio < MinAchievedRatio {
			reasons = append(reasons, fmt.Sprintf("achieved %.4g req/s, %.1f %% of the %.4g req/s target (< %.0f %%)",
				c.AchievedRate, 100*c.AchievedRatio, c.TargetRate, 100*MinAchievedRatio))
		}
	}
	if s.Lag.Count > 0 && s.Lag.P99 > c.MaxLag {
		reasons = append(reasons, fmt.Sprintf("scheduling lag p99 %.4g ms > max lag %.4g ms", s.Lag.P99, c.MaxLag))
	}
	resource := s.Requests.ClientResource > 0
	if c.HeldBack > 0 {
		resource = true // the client's own bound, whoever set the cap
		reasons = append(reasons, fmt.Sprintf("%d arrivals of the plan were never sent, held back behind the client's cap of %d requests in flight (no record each; see client.held_back)", c.HeldBack, s.Profile.MaxConcurrency))
	}
	if s.Requests.ClientResource > 0 {
		reasons = append(reasons, fmt.Sprintf("%d requests failed on the client's own resources (open files, ephemeral ports) before reaching the server", s.Requests.ClientResource))
	}
	if len(reasons) == 0 {
		return
	}
	limit := int64(s.Profile.MaxConcurrency)
	if !resource && s.Profile.Mode.OpenLoop() && limit > 0 && (capReached || c.PeakInFlight >= limit) {
		c.Capped = true
		c.Reason = fmt.Sprintf("max concurrency %d reached: %s", limit, strings.Join(reasons, "; "))
		return
	}
	c.ClientLimited = true
	c.Reason = strings.Join(reasons, "; ")
}

// deriveWarnings returns the warnings implied by s's fields, in a fixed order.
func deriveWarnings(s *Summary) []Warning {
	var ws []Warning
	add := func(code WarningCode, format string, args ...any) {
		ws = append(ws, Warning{Code: code, Level: s.Level, Message: fmt.Sprintf(format, args...)})
	}
	r := s.Requests
	if s.WindowSeconds <= 0 {
		add(WarnEmptyWindow, "level %d: the measured window is empty (%v .. %v): no rates", s.Level, s.Window.Start, s.Window.End)
	}
	if r.Sent == 0 {
		add(WarnNoRequests, "level %d: no request was sent inside the measured window", s.Level)
	}
	if s.TooShort != "" {
		add(WarnTooShort, "level %d is too short: %s", s.Level, s.TooShort)
	}
	if s.Client.ClientLimited {
		add(WarnClientLimited, "level %d is client-limited: %s; latencies and rates describe the client, not the server", s.Level, s.Client.Reason)
	}
	if s.Client.Capped {
		add(WarnCapped, "level %d is capped by Profile.MaxConcurrency: %s; queue time is counted as scheduling lag", s.Level, s.Client.Reason)
	}
	if r.TokenCountMismatches > 0 {
		add(WarnTokenCountMismatch, "level %d: server and local tokenizer prompt counts differ by more than %.0f %% on %d of %d requests; the tokenizer may not match the served model",
			s.Level, 100*TokenMismatchTolerance, r.TokenCountMismatches, r.TokenCountsCompared)
	}
	if r.ExactISLMissed > 0 {
		add(WarnTokenCountMismatch, "level %d: the server's usage.prompt_tokens differs from the ISL each prompt was built to with the server's own tokenize counts on %d of %d requests: its tokenize endpoint and its usage count differently (a BOS or template tokens one adds and the other does not), so the ISL the server saw is not the requested one (compare server_prompt_tokens with requested_prompt_tokens in requests.jsonl)",
			s.Level, r.ExactISLMissed, r.ExactISLCompared)
	}
	if r.ISLClamped > 0 {
		add(WarnISLClamped, "level %d: %d of %d requests drew an ISL below the shortest prompt the workload can build and were sent at that length; requested_prompt_tokens records what was sent, isl_clamped_from the draw (raise prompt_tokens_min to the floor to draw none below it)",
			s.Level, r.ISLClamped, r.Sent)
	}
	if r.OutputRetokenDiffers > 0 {
		add(WarnOutputRetokenization, "level %d: note: re-tokenizing the generated text gives a count other than the server's on %d of %d requests; generated text need not re-tokenize to the tokens the model emitted, so this does not indict the tokenizer (the prompt counts do); OSL is the server's count",
			s.Level, r.OutputRetokenDiffers, r.OutputRetokenized)
	}
	if r.NotSent > 0 {
		add(WarnNotSent, "level %d: %d requests never reached the server whole: the reused keep-alive connection each was written on was closed under the write (the server's idle close racing it); they are not counted as failures", s.Level, r.NotSent)
	}
	if r.OSLExceeded > 0 {
		add(WarnOSLExceeded, "level %d: %d of %d ok requests returned more output tokens than their max_tokens allowed: the server ignores max_tokens, and every per-token figure counts the extra", s.Level, r.OSLExceeded, r.OK)
	}
	if f := s.FailedOutputTokensPerSecond; f > 0 && f >= FailedTokensShare*s.OutputTokensPerSecond {
		add(WarnFailedTokens, "level %d: %.4g of the %.4g output tok/s came from requests that failed (%d failed, %d ok): the server delivered tokens but not completed requests", s.Level, f, s.OutputTokensPerSecond, r.Failed, r.OK)
	}
	if r.OSLShort > 0 {
		add(WarnOSLShort, "level %d: %d of %d ok requests returned fewer output tokens than requested (ignore_eos not honoured?)", s.Level, r.OSLShort, r.OK)
	}
	if r.UsageRejected > 0 {
		add(WarnUsageRejected, "level %d: the server's usage held impossible token counts on %d of %d requests (see usage_rejected in requests.jsonl); they were not used (each count fell back to its next source)",
			s.Level, r.UsageRejected, r.Sent)
	}
	if s.ErrorRate > HighErrorRate {
		add(WarnHighErrorRate, "level %d: %.1f %% of requests failed (%d of %d)", s.Level, 100*s.ErrorRate, r.Failed, r.Failed+r.OK)
	}
	return ws
}

// tooShort returns Summary.TooShort for s, a level that ran for wall
// seconds (0 if unknown): "" when some request sent in the window finished
// in it. Otherwise it says what the window held and the level length
// (Limits.MaxDuration) that would give an open-loop level's window two arrivals (a closed-loop level
// needs its window to outlast one request's end-to-end time).
func tooShort(s *Summary, wall float64) string {
	r := s.Requests
	if r.OK+r.Failed+r.Incomplete > 0 {
		// A request cut off unfinished measured something: a lower bound
		// on each latency it did not reach (Summary.Censored).
		return ""
	}
	what := "no request was sent in its measured window"
	if r.Sent > 0 {
		what = fmt.Sprintf("none of the %d requests sent in its measured window finished in it", r.Sent)
	}
	msg := fmt.Sprintf("%s (%.3g s after the warmup and cooldown trims), so nothing was measured and nothing is decided", what, max(s.WindowSeconds, 0))
	if rate := s.Profile.Rate; s.Profile.Mode.OpenLoop() && rate > 0 {
		need := 2 / rate // seconds of window for two arrivals
		if wall > 0 && s.WindowSeconds > 0 && s.WindowSeconds < wall {
			need *= wall / s.WindowSeconds // the trims' share comes on top
		}
		return msg + fmt.Sprintf("; at %.4g req/s a level needs at least %.3g s plus one request's end-to-end time: set Limits.MaxDuration to %g s or more", rate, need, math.Ceil(need))
	}
	return msg + "; a level must last longer than one request's end-to-end time plus the warmup and cooldown trims: raise Limits.MaxDuration (or Config.Limits.MaxRequests)"
}
