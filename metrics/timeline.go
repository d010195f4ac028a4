package metrics

import (
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Timeline is one level's output throughput and load over time, in equal
// buckets covering the whole level (warmup and cooldown included), for
// plots. Bucket i covers [Start + i×Bucket, Start + (i+1)×Bucket).
type Timeline struct {
	Level int `json:"level"`
	// Repeat is the run of a repeated level (--repeat); 0 otherwise.
	Repeat int           `json:"repeat,omitempty"`
	Start  time.Duration `json:"start_ns"`
	Bucket time.Duration `json:"bucket_ns"`
	// Window is the level's measured window, so plots can shade it.
	Window loadgen.Window `json:"window"`
	// OutputTokPerSec is the output tokens that arrived in each bucket,
	// divided by the bucket length, tokens/s.
	OutputTokPerSec []float64 `json:"output_tok_s"`
	// InFlight is the time-weighted mean number of requests in flight
	// (between sent_at and done_at) in each bucket.
	InFlight []float64 `json:"in_flight"`
	// OfferedReqPerSec is the requests scheduled in each bucket (by their
	// intended send time, ScheduledAt), divided by the bucket length,
	// requests/s: the load offered, which rises through a ramp and
	// follows a replayed trace. CompletedReqPerSec is the requests that
	// finished successfully in each bucket (by DoneAt), requests/s: the
	// load achieved. Both are absent from results written before they
	// existed.
	OfferedReqPerSec   []float64 `json:"offered_req_s,omitempty"`
	CompletedReqPerSec []float64 `json:"completed_req_s,omitempty"`
}

// TimelineBuilder accumulates records into a Timeline. Not safe for
// concurrent use.
type TimelineBuilder struct {
	t Timeline
}

// NewTimelineBuilder covers [start, end] with n buckets (at least 1).
func NewTimelineBuilder(level int, start, end time.Duration, window loadgen.Window, n int) *TimelineBuilder {
	n = max(n, 1)
	bucket := max((end-start+time.Duration(n)-1)/time.Duration(n), time.Millisecond)
	return &TimelineBuilder{t: Timeline{
		Level: level, Start: start, Bucket: bucket, Window: window,
		OutputTokPerSec:    make([]float64, n),
		InFlight:           make([]float64, n),
		OfferedReqPerSec:   make([]float64, n),
		CompletedReqPerSec: make([]float64, n),
	}}
}

// Add accounts one record: its chunks' tokens by arrival time (scaled to
// OutputTokens when the server's count differs from the chunk counts, as
// the Accumulator does) and its time in flight.
func (b *TimelineBuilder) Add(rec *loadgen.Record) {
	t := &b.t
	n := len(t.OutputTokPerSec)
	bucketS := t.Bucket.Seconds()
	chunkSum := 0
	for _, c := range rec.ChunkTokens {
		chunkSum += int(c)
	}
	scale := 1.0
	if chunkSum > 0 && rec.OutputTokens > 0 {
		scale = float64(rec.OutputTokens) / float64(chunkSum)
	}
	for i, at := range rec.ChunkTimes {
		k := int((at - t.Start) / t.Bucket)
		if k >= 0 && k < n {
			t.OutputTokPerSec[k] += float64(rec.ChunkTokens[i]) * scale / bucketS
		}
	}
	b.addRates(rec)
	if rec.SentAt == 0 && rec.Status == loadgen.StatusCancelled {
		return // never sent
	}
	from, to := rec.SentAt, rec.DoneAt
	for k := max(int((from-t.Start)/t.Bucket), 0); k < n; k++ {
		lo := t.Start + time.Duration(k)*t.Bucket
		hi := lo + t.Bucket
		if lo >= to {
			break
		}
		overlap := min(hi, to) - max(lo, from)
		if overlap > 0 {
			t.InFlight[k] += overlap.Seconds() / bucketS
		}
	}
}

// addRates counts rec in OfferedReqPerSec (at ScheduledAt) and, when it
// succeeded, in CompletedReqPerSec (at DoneAt).
func (b *TimelineBuilder) addRates(rec *loadgen.Record) {
	t := &b.t
	n := len(t.OfferedReqPerSec)
	per := 1 / t.Bucket.Seconds()
	if k := int((rec.ScheduledAt - t.Start) / t.Bucket); rec.ScheduledAt >= t.Start && k < n {
		t.OfferedReqPerSec[k] += per
	}
	if k := int((rec.DoneAt - t.Start) / t.Bucket); rec.Status == loadgen.StatusOK && rec.DoneAt >= t.Start && k < n {
		t.CompletedReqPerSec[k] += per
	}
}

// Timeline returns the accumulated timeline.
func (b *TimelineBuilder) Timeline() Timeline { return b.t }
