package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// TraceFormat names the file format of a request trace.
type TraceFormat string

// Trace formats.
const (
	// TraceMooncake is the Mooncake trace (FAST '25): JSON Lines, one
	// request per line, {"timestamp": ms since the trace's start,
	// "input_length": tokens, "output_length": tokens, "hash_ids": [ids
	// of the prompt's 512-token blocks]}. Requests that share a block id
	// share that block of their prompt. Other members are ignored.
	TraceMooncake TraceFormat = "mooncake"
	// TraceAzure is the Azure LLM inference trace (2023 and 2024): CSV
	// with the header TIMESTAMP,ContextTokens,GeneratedTokens, TIMESTAMP
	// an absolute date and time such as 2023-11-16 18:15:46.6805900
	// (optionally with a zone, +00:00).
	TraceAzure TraceFormat = "azure"
	// TraceBurstGPT is the BurstGPT trace: CSV with the header
	// Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
	// (later releases add Session ID and Elapsed time), Timestamp in
	// seconds since the trace's start. Columns are found by name.
	TraceBurstGPT TraceFormat = "burstgpt"
)

// TraceFormats lists the formats ReadTrace knows.
func TraceFormats() []TraceFormat { return []TraceFormat{TraceMooncake, TraceAzure, TraceBurstGPT} }

// MooncakeBlockTokens is the size of the prompt blocks a Mooncake trace's
// hash_ids name, tokens.
const MooncakeBlockTokens = 512

// maxTraceTokens bounds a trace line's input and output lengths, tokens:
// no served context comes near it, and a longer prompt would take the
// client's memory, not the server's.
const maxTraceTokens = 1 << 24

// maxTraceTime bounds a trace's timestamps (1e12 ms, about 31 years), so
// that arrival offsets stay far inside time.Duration.
const maxTraceTime = 1e12 * time.Millisecond

// TraceEntry is one request of a trace.
type TraceEntry struct {
	// Line is the entry's 1-based line in the trace file.
	Line int `json:"line"`
	// At is the request's arrival time since the trace's first request
	// (the first entry's At is 0).
	At time.Duration `json:"at_ns"`
	// InputTokens and OutputTokens are the request's prompt and output
	// lengths, tokens (both >= 1).
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// HashIDs names the MooncakeBlockTokens-token blocks the prompt starts
	// with (Mooncake only): equal ids, equal blocks.
	HashIDs []int64 `json:"hash_ids,omitempty"`
	// Failed is set for a line that describes a request that failed in
	// the traced service (0 output tokens), replayed under
	// FailedReplay with OutputTokens 1.
	Failed bool `json:"failed,omitempty"`
}

// FailedRows is the policy for a trace's lines that describe requests
// that failed in the traced service: 0 output tokens (BurstGPT logs its
// failed requests so; 17 of the first 400 lines of BurstGPT_1.csv). The
// zero value is FailedReplay.
type FailedRows string

// Policies for failed rows.
const (
	// FailedReplay sends each such line at its arrival time with 1
	// output token (max_tokens 1: the least a server generates), so the
	// file replays as published and the arrival process keeps its shape;
	// the default.
	FailedReplay FailedRows = "replay"
	// FailedSkip leaves them out: their arrivals are not sent.
	FailedSkip FailedRows = "skip"
	// FailedRefuse refuses the trace, naming the lines (the policy before
	// failed rows were handled).
	FailedRefuse FailedRows = "refuse"
)

// FailedRowPolicies lists the policies, for flags and messages.
func FailedRowPolicies() []FailedRows { return []FailedRows{FailedReplay, FailedSkip, FailedRefuse} }

// ParseFailedRows reads a policy name; "" is FailedReplay.
func ParseFailedRows(s string) (FailedRows, error) {
	switch FailedRows(strings.ToLower(strings.TrimSpace(s))) {
	case "", FailedReplay:
		return FailedReplay, nil
	case FailedSkip:
		return FailedSkip, nil
	case FailedRefuse:
		return FailedRefuse, nil
	}
	return "", fmt.Errorf("failed-row policy %q: want replay (send them with 1 output token, the default), skip or refuse", s)
}

// Trace is a request trace read by ReadTrace: the requests to send, with
// their arrival times and lengths, in arrival order.
type Trace struct {
	File    string
	Format  TraceFormat
	Entries []TraceEntry
	// FailedRows counts the file's lines that describe failed requests (0
	// output tokens), handled by FailedPolicy: replayed (Entries holds
	// them, marked Failed) or skipped (it does not).
	FailedRows   int
	FailedPolicy FailedRows
}

// TraceError is a problem with a trace file, at a line when Line > 0.
type TraceError struct {
	File string
	Line int // 1-based; 0 when the problem concerns the whole file
	Msg  string
	Err  error // the cause, when it is a sentinel such as ErrTraceFormatUnknown
}

// Unwrap returns the cause (Err).
func (e *TraceError) Unwrap() error { return e.Err }

// Error implements error: "FILE:LINE: message".
func (e *TraceError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ErrTraceFormatUnknown is wrapped by ReadTrace's error when the format
// was not given and the file's first line shows none of TraceFormats.
var ErrTraceFormatUnknown = errors.New("unknown trace format")

// ErrTraceWindowEmpty is wrapped by Trace.Window's error when the window
// selects no request.
var ErrTraceWindowEmpty = errors.New("the trace window selects no request")

// maxTraceErrors is how many bad lines ReadTrace reports before it stops.
const maxTraceErrors = 10

// ReadTraceFile reads the trace at path (see ReadTrace).
func ReadTraceFile(path string, format TraceFormat) (Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Trace{}, err
	}
	return ReadTrace(bytes.NewReader(data), path, format)
}

// ReadTrace reads a trace in format ("" detects it from the first
// non-blank line: '{' starts Mooncake JSON Lines; a CSV header with
// ContextTokens is Azure, one with Request tokens is BurstGPT); name labels
// errors. Lines that describe failed requests (0 output tokens, as
// BurstGPT logs them) are replayed with 1 output token (FailedReplay);
// ReadTraceWith chooses another policy. Every other line must be a valid
// request: a malformed line, an input length below 1 or a timestamp
// earlier than the line before is an error naming the line, never
// skipped; the first ten such lines are reported at once, with the count
// of the others. Blank lines are ignored. Arrival times count from the
// first request.
func ReadTrace(r io.Reader, name string, format TraceFormat) (Trace, error) {
	return ReadTraceWith(r, name, format, FailedReplay)
}

// ReadTraceWith is ReadTrace with the policy for failed rows.
func ReadTraceWith(r io.Reader, name string, format TraceFormat, failed FailedRows) (Trace, error) {
	if failed == "" {
		failed = FailedReplay
	}
	br := bufio.NewReader(r)
	if format == "" {
		f, err := detectTraceFormat(br, name)
		if err != nil {
			return Trace{}, err
		}
		format = f
	}
	t := Trace{File: name, Format: format}
	var err error
	switch format {
	case TraceMooncake:
		t.Entries, err = readMooncake(br, name, failed)
	case TraceAzure:
		t.Entries, err = readTraceCSV(br, name, azureColumns(), failed)
	case TraceBurstGPT:
		t.Entries, err = readTraceCSV(br, name, burstGPTColumns(), failed)
	default:
		return Trace{}, fmt.Errorf("trace format %q: want mooncake, azure or burstgpt", format)
	}
	if err != nil {
		return Trace{}, err
	}
	t.FailedPolicy = failed
	for i := range t.Entries {
		if t.Entries[i].Failed {
			t.FailedRows++
		}
	}
	if failed == FailedSkip {
		t.FailedRows = 0
		kept := t.Entries[:0]
		for _, e := range t.Entries {
			if e.Failed {
				t.FailedRows++
				continue
			}
			kept = append(kept, e)
		}
		t.Entries = kept
	}
	if len(t.Entries) == 0 && t.FailedRows > 0 {
		return Trace{}, &TraceError{File: name, Msg: fmt.Sprintf("all %d lines of this %s trace describe failed requests (0 output tokens), and the failed-row policy skip left every one out: nothing to send; replay them (the failed-row policy replay, the default) or give a trace with successful requests", t.FailedRows, format)}
	}
	if len(t.Entries) == 0 {
		return Trace{}, &TraceError{File: name, Msg: fmt.Sprintf("no requests in this %s trace", format)}
	}
	rebase(t.Entries)
	return t, nil
}

// detectTraceFormat looks at the first non-blank line of br (which it
// does not consume).
func detectTraceFormat(br *bufio.Reader, name string) (TraceFormat, error) {
	head, _ := br.Peek(64 << 10)
	line, n := "", 0
	for _, l := range strings.SplitAfter(string(head), "\n") {
		n++
		if strings.TrimSpace(l) != "" {
			line = strings.TrimSpace(strings.TrimPrefix(l, "\uFEFF"))
			break
		}
	}
	switch {
	case line == "":
		return "", &TraceError{File: name, Msg: "empty trace: want Mooncake JSON Lines or an Azure or BurstGPT CSV"}
	case strings.HasPrefix(line, "{"):
		return TraceMooncake, nil
	case strings.Contains(line, "ContextTokens"):
		return TraceAzure, nil
	case strings.Contains(line, "Request tokens"):
		return TraceBurstGPT, nil
	}
	if len(line) > 80 {
		line = line[:80] + "..."
	}
	return "", &TraceError{File: name, Line: n, Err: ErrTraceFormatUnknown, Msg: fmt.Sprintf("%v: the first line %q is neither a Mooncake JSON object nor an Azure (TIMESTAMP,ContextTokens,GeneratedTokens) or BurstGPT (Timestamp,...,Request tokens,Response tokens,...) CSV header; name the format (mooncake, azure or burstgpt)", ErrTraceFormatUnknown, line)}
}

// rebase makes arrival times count from the first entry.
func rebase(es []TraceEntry) {
	if len(es) == 0 {
		return
	}
	t0 := es[0].At
	for i := range es {
		es[i].At -= t0
	}
}

// lineErrors collects a reader's bad lines, up to maxTraceErrors, and
// counts the others.
type lineErrors struct {
	file    string
	errs    []error
	more    int // bad lines beyond maxTraceErrors
	failed  FailedRows
	prev    time.Duration // the latest time so far
	firstAt time.Duration // the first entry's time
	seen    bool
}

// add records a problem at line, or counts it past maxTraceErrors; it
// reports whether to stop reading, which it never asks: the count of
// every bad line is part of the message.
func (l *lineErrors) add(line int, format string, a ...any) bool {
	if len(l.errs) >= maxTraceErrors {
		l.more++
		return false
	}
	l.errs = append(l.errs, &TraceError{File: l.file, Line: line, Msg: fmt.Sprintf(format, a...)})
	return false
}

// sinceFirst names a time relative to a trace's first line: "90ms after
// the first line", or "1s before it" for a line out of order.
func sinceFirst(d time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("%v before the first line", -d)
	}
	return fmt.Sprintf("%v after the first line", d)
}

// check applies the rules every entry follows, marking a line that
// describes a failed request (0 output tokens) under the failed-row
// policy; it reports whether to stop.
func (l *lineErrors) check(e *TraceEntry, lengths string) bool {
	stop := false
	if e.OutputTokens == 0 && e.InputTokens >= 1 && e.InputTokens <= maxTraceTokens && l.failed != FailedRefuse {
		e.Failed, e.OutputTokens = true, 1
	}
	if e.InputTokens < 1 || e.OutputTokens < 1 || e.InputTokens > maxTraceTokens || e.OutputTokens > maxTraceTokens {
		fix := "remove the line"
		if e.OutputTokens == 0 && e.InputTokens >= 1 {
			fix = "a line of 0 output tokens describes a request that failed in the traced service: the failed-row policy FailedReplay, the default, sends it with 1 output token; FailedSkip leaves it out"
		}
		stop = l.add(e.Line, "%s: %d input and %d output tokens; both must be between 1 and %d (%s)", lengths, e.InputTokens, e.OutputTokens, maxTraceTokens, fix)
	}
	if l.seen && e.At < l.prev {
		stop = l.add(e.Line, "its timestamp (%s) is earlier than the line before's (%v after the first line): a trace lists requests in arrival order; sort it by timestamp", sinceFirst(e.At-l.firstAt), l.prev-l.firstAt) || stop
	}
	if !l.seen || e.At > l.prev {
		l.prev = e.At
	}
	if !l.seen {
		l.firstAt = e.At
	}
	l.seen = true
	return stop
}

func (l *lineErrors) err() error {
	if l.more > 0 {
		return errors.Join(append(l.errs, &TraceError{File: l.file, Msg: fmt.Sprintf("and %d more bad lines, not listed", l.more)})...)
	}
	return errors.Join(l.errs...)
}

// parseTokens reads a token count (a non-negative integer; "12.0" is
// accepted, "12.5" is not).
func parseTokens(s string) (int, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > maxTraceTokens*2 {
		return 0, fmt.Errorf("%q is not a whole number of tokens", s)
	}
	return int(v), nil
}

// TraceWindow selects the part of a trace whose arrival times (since the
// trace's first request) lie in [Start, End); End 0 means to the end. The
// zero TraceWindow selects the whole trace.
type TraceWindow struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns,omitempty"`
}

// IsZero reports whether w selects the whole trace.
func (w TraceWindow) IsZero() bool { return w == TraceWindow{} }

// String returns the ParseTraceWindow spelling of w.
func (w TraceWindow) String() string {
	if w.End == 0 {
		return w.Start.String() + ","
	}
	return w.Start.String() + "," + w.End.String()
}

// ParseTraceWindow parses "START,END": two times since the trace's first
// request, as durations (90s, 10m) or plain seconds (90); either may be
// empty (",10m" is the first ten minutes, "1h," everything after the
// first hour). END must be after START: an END given as 0 bounds the
// window (",0" and "0,0" select nothing, an error), where an empty END
// means no end.
func ParseTraceWindow(s string) (TraceWindow, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return TraceWindow{}, fmt.Errorf("trace window %q: want START,END (times since the trace's first request, e.g. 10m,20m or 600,1200; either may be empty)", s)
	}
	var w TraceWindow
	var errs []error
	for _, p := range []struct {
		name, v string
		dst     *time.Duration
	}{{"START", a, &w.Start}, {"END", b, &w.End}} {
		if strings.TrimSpace(p.v) == "" {
			continue
		}
		d, err := parseSeconds(p.v)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("trace window %q: %s %q is neither a duration (90s, 10m) nor a number of seconds", s, p.name, p.v))
		case d < 0:
			errs = append(errs, fmt.Errorf("trace window %q: %s %q is negative; times count from the trace's first request", s, p.name, p.v))
		default:
			*p.dst = d
		}
	}
	// An END given, even 0, bounds the window: "0,0" selects nothing,
	// where an empty END means no end.
	if len(errs) == 0 && strings.TrimSpace(b) != "" && w.End <= w.Start {
		errs = append(errs, fmt.Errorf("trace window %q: END %v is not after START %v", s, w.End, w.Start))
	}
	if len(errs) > 0 {
		return TraceWindow{}, errors.Join(errs...)
	}
	return w, nil
}

// Window returns the entries of t whose arrival times lie in w, with
// their times counted from w.Start (so a request at START is sent at the
// replay's start, and the gaps of the trace are kept). It is an error for
// w to select nothing.
func (t Trace) Window(w TraceWindow) (Trace, error) {
	if w.IsZero() {
		return t, nil
	}
	out := t
	out.Entries = nil
	for _, e := range t.Entries {
		if e.At >= w.Start && (w.End == 0 || e.At < w.End) {
			e.At -= w.Start
			out.Entries = append(out.Entries, e)
		}
	}
	if len(out.Entries) == 0 {
		last := time.Duration(0)
		if n := len(t.Entries); n > 0 {
			last = t.Entries[n-1].At
		}
		return Trace{}, fmt.Errorf("%w: window %q, but the %d requests of %s arrive between 0s and %v after its first", ErrTraceWindowEmpty, w.String(), len(t.Entries), t.File, last)
	}
	return out, nil
}

// Offsets returns the entries' arrival times divided by speedup (2 plays
// the trace twice as fast), truncated to the nanosecond: the schedule of
// a loadgen.SchedulePacer. speedup must be > 0.
func (t Trace) Offsets(speedup float64) []time.Duration {
	out := make([]time.Duration, len(t.Entries))
	for i, e := range t.Entries {
		out[i] = time.Duration(float64(e.At) / speedup)
	}
	return out
}

// Span returns the time from the first request to the last.
func (t Trace) Span() time.Duration {
	if len(t.Entries) == 0 {
		return 0
	}
	return t.Entries[len(t.Entries)-1].At - t.Entries[0].At
}
