package metrics

import (
	"errors"
	"fmt"
)

// MergeSummaries combines the summaries of the shards of one level
// (docs/cli.md#distributed-runs: shard i of n runs the same seeded plan and
// sends every n-th arrival) into the level's summary, as if one process had
// sent every request:
//   - distributions merge exactly, through their HDR histograms;
//   - request counts, error kinds and goodput counts add;
//   - rates add (throughputs, cached input tokens/s, req/s, goodput, mean concurrency, target and
//     achieved rates, CPU time and percentage), which assumes the shards
//     measured the same window; when their windows differ, the merged
//     Window is their hull and a "shard_windows_differ" warning says so;
//   - the profile's Rate, Concurrency and MaxConcurrency add (each shard ran
//     its share); PeakInFlight adds (an upper bound);
//   - the per-sub-window counts (Batches) add, and every interval is
//     recomputed from the merged histograms and counts, so it equals the
//     interval one process would have computed from all records;
//   - ErrorRate, AchievedRatio, client flags and derived warnings are
//     recomputed from the merged figures; other warnings are kept once.
//
// Every part must have the same Level. MergeSummaries of one part returns
// it with its warnings recomputed.
func MergeSummaries(parts ...Summary) (Summary, error) {
	if len(parts) == 0 {
		return Summary{}, errors.New("metrics: no summaries to merge")
	}
	s := parts[0]
	s.Batches = parts[0].Batches.clone()
	s.Requests.ErrorKinds = map[string]int64{}
	for k, v := range parts[0].Requests.ErrorKinds {
		s.Requests.ErrorKinds[k] = v
	}
	capped := parts[0].Client.Capped
	windowsDiffer := false
	var errs []error
	for i, p := range parts[1:] {
		i++
		if p.Level != s.Level {
			errs = append(errs, fmt.Errorf("part %d: level %d, want %d", i, p.Level, s.Level))
			continue
		}
		if p.Window != parts[0].Window {
			windowsDiffer = true
		}
		s.Window.Start = min(s.Window.Start, p.Window.Start)
		s.Window.End = max(s.Window.End, p.Window.End)
		s.Profile.Rate += p.Profile.Rate
		s.Profile.Concurrency += p.Profile.Concurrency
		s.Profile.MaxConcurrency += p.Profile.MaxConcurrency

		r, q := &s.Requests, p.Requests
		r.Scheduled += q.Scheduled
		r.Sent += q.Sent
		r.OK += q.OK
		r.Failed += q.Failed
		r.Incomplete += q.Incomplete
		s.Censored.Requests += p.Censored.Requests
		r.Completed += q.Completed
		r.TokenCountsCompared += q.TokenCountsCompared
		r.TokenCountMismatches += q.TokenCountMismatches
		r.OSLShort += q.OSLShort
		r.OSLExceeded += q.OSLExceeded
		r.UsageRejected += q.UsageRejected
		r.ExactISLCompared += q.ExactISLCompared
		r.ExactISLMissed += q.ExactISLMissed
		r.ISLClamped += q.ISLClamped
		r.ClientResource += q.ClientResource
		r.NotSent += q.NotSent
		r.OutputRetokenized += q.OutputRetokenized
		r.OutputRetokenDiffers += q.OutputRetokenDiffers
		for k, v := range q.ErrorKinds {
			r.ErrorKinds[k] += v
		}

		for _, m := range s.distributions(&p) {
			d, err := Merge(*m.dst, m.src)
			if err != nil {
				errs = append(errs, fmt.Errorf("part %d: %s: %w", i, m.key, err))
				continue
			}
			*m.dst = d
		}
		if ss, err := mergeSessions(s.Sessions, p.Sessions); err != nil {
			errs = append(errs, fmt.Errorf("part %d: %w", i, err))
		} else {
			s.Sessions = ss
		}

		s.OutputTokensPerSecond += p.OutputTokensPerSecond
		s.FailedOutputTokensPerSecond += p.FailedOutputTokensPerSecond
		s.InputTokensPerSecond += p.InputTokensPerSecond
		s.CachedInputTokensPerSecond += p.CachedInputTokensPerSecond
		s.TotalTokensPerSecond += p.TotalTokensPerSecond
		s.RequestsPerSecond += p.RequestsPerSecond
		s.MeanConcurrency += p.MeanConcurrency
		s.Goodput.Requests += p.Goodput.Requests
		s.Goodput.RequestsPerSecond += p.Goodput.RequestsPerSecond
		s.Goodput.OutputTokensPerSecond += p.Goodput.OutputTokensPerSecond
		s.Batches.add(p.Batches)

		s.ReceiveClock, s.ReceiveClockNote = mergeClock(s.ReceiveClock, s.ReceiveClockNote, p.ReceiveClock, p.ReceiveClockNote)

		c, d := &s.Client, p.Client
		c.TargetRate += d.TargetRate
		c.AchievedRate += d.AchievedRate
		c.MaxLag = max(c.MaxLag, d.MaxLag)
		c.CPUSeconds += d.CPUSeconds
		c.CPUPercent += d.CPUPercent
		c.PeakInFlight += d.PeakInFlight
		c.HeldBack += d.HeldBack
		capped = capped || d.Capped
	}
	if len(errs) > 0 {
		return Summary{}, fmt.Errorf("metrics: merge summaries: %w", errors.Join(errs...))
	}
	if len(s.Requests.ErrorKinds) == 0 {
		s.Requests.ErrorKinds = nil
	}
	s.WindowSeconds = max(s.Window.Seconds(), 0)
	s.ErrorRate = 0
	if n := s.Requests.OK + s.Requests.Failed; n > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(n)
	}
	setIntervals(&s)
	if s.Requests.OK+s.Requests.Failed > 0 {
		s.TooShort = ""
	} else if s.TooShort == "" {
		s.TooShort = tooShort(&s, 0)
	}
	assessClient(&s, capped)

	warnings := deriveWarnings(&s)
	if windowsDiffer {
		warnings = append(warnings, Warning{Code: WarnShardWindowsDiffer, Level: s.Level,
			Message: fmt.Sprintf("level %d: the shards' windows differ; rates were added as if they overlapped, and the window shown is their hull", s.Level)})
	}
	seen := map[Warning]bool{}
	for _, p := range parts {
		for _, w := range p.Warnings {
			if !isDerived(w.Code) && w.Code != WarnShardWindowsDiffer && !seen[w] {
				seen[w] = true
				warnings = append(warnings, w)
			}
		}
	}
	s.Warnings = warnings
	return s, nil
}

// mergeClock combines two parts' receive clocks (Summary.ReceiveClock):
// the same clock stays, different ones are "mixed", an empty one (no
// responses) takes the other's. The first note is kept.
func mergeClock(a, aNote, b, bNote string) (string, string) {
	note := aNote
	if note == "" {
		note = bNote
	}
	switch {
	case b == "" || a == b:
		return a, aNote
	case a == "":
		return b, bNote
	}
	return "mixed", note
}

// distributionPair is one distribution of a summary being merged (dst)
// and the same distribution of another part (src).
type distributionPair struct {
	dst *Distribution
	src Distribution
	key string
}

// distributions pairs each of s's distributions with p's.
func (s *Summary) distributions(p *Summary) []distributionPair {
	return []distributionPair{
		{&s.TTFT, p.TTFT, "ttft"},
		{&s.TTFTCorrected, p.TTFTCorrected, "ttft_corrected"},
		{&s.TTFOT, p.TTFOT, "ttfot"},
		{&s.ITL, p.ITL, "itl"},
		{&s.ICL, p.ICL, "icl"},
		{&s.E2E, p.E2E, "e2e"},
		{&s.Lag, p.Lag, "scheduling_lag"},
		{&s.SendOverhead, p.SendOverhead, "send_overhead"},
		{&s.ReceiveQueue, p.ReceiveQueue, "receive_queue"},
		{&s.TTFTErrorAdjusted, p.TTFTErrorAdjusted, "ttft_error_adjusted"},
		{&s.E2EErrorAdjusted, p.E2EErrorAdjusted, "e2e_error_adjusted"},
		{&s.TokensPerChunk, p.TokensPerChunk, "tokens_per_chunk"},
		{&s.PromptTokens, p.PromptTokens, "prompt_tokens"},
		{&s.OutputTokens, p.OutputTokens, "output_tokens"},
		{&s.Censored.TTFT.Reached, p.Censored.TTFT.Reached, "censored_ttft_reached"},
		{&s.Censored.TTFT.AtLeast, p.Censored.TTFT.AtLeast, "censored_ttft_at_least"},
		{&s.Censored.TTFTCorrected.Reached, p.Censored.TTFTCorrected.Reached, "censored_ttft_corrected_reached"},
		{&s.Censored.TTFTCorrected.AtLeast, p.Censored.TTFTCorrected.AtLeast, "censored_ttft_corrected_at_least"},
		{&s.Censored.TTFOT.Reached, p.Censored.TTFOT.Reached, "censored_ttfot_reached"},
		{&s.Censored.TTFOT.AtLeast, p.Censored.TTFOT.AtLeast, "censored_ttfot_at_least"},
		{&s.Censored.E2E.AtLeast, p.Censored.E2E.AtLeast, "censored_e2e_at_least"},
		{&s.Censored.ITL.AtLeast, p.Censored.ITL.AtLeast, "censored_itl_at_least"},
		{&s.Censored.ICL.Reached, p.Censored.ICL.Reached, "censored_icl_reached"},
		{&s.Censored.ICL.AtLeast, p.Censored.ICL.AtLeast, "censored_icl_at_least"},
	}
}
