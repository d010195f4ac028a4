package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// mooncakeLine is one line of a Mooncake trace; pointers tell a missing
// member from a zero.
type mooncakeLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *float64 `json:"input_length"`
	OutputLength *float64 `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

func readMooncake(br *bufio.Reader, name string) ([]TraceEntry, error) {
	errs := lineErrors{file: name}
	var out []TraceEntry
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		raw = bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\uFEFF")))
		if len(raw) > 0 {
			e, msg := parseMooncakeLine(raw, line)
			stop := false
			if msg != "" {
				stop = errs.add(line, "%s", msg)
			} else {
				stop = errs.check(e, "input_length, output_length")
				out = append(out, e)
			}
			if stop {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// parseMooncakeLine parses one non-blank line; msg says what is wrong.
func parseMooncakeLine(raw []byte, line int) (e TraceEntry, msg string) {
	var m mooncakeLine
	if raw[0] != '{' {
		return e, `not a JSON object: a Mooncake trace has one {"timestamp": ms, "input_length": N, "output_length": M, "hash_ids": [...]} per line`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return e, "invalid JSON: " + jsonMessage(err)
	}
	var missing []string
	for _, f := range []struct {
		name string
		v    *float64
	}{{"timestamp", m.Timestamp}, {"input_length", m.InputLength}, {"output_length", m.OutputLength}} {
		if f.v == nil {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return e, fmt.Sprintf("missing %s: every line needs timestamp (ms), input_length and output_length (tokens)", strings.Join(missing, ", "))
	}
	ts := *m.Timestamp
	if math.IsNaN(ts) || math.Abs(ts) > float64(maxTraceTime/time.Millisecond) {
		return e, fmt.Sprintf("timestamp %v is not a time in milliseconds since the trace's start", ts)
	}
	e = TraceEntry{Line: line, At: time.Duration(math.Round(ts * float64(time.Millisecond))), HashIDs: m.HashIDs}
	var bad []string
	for _, f := range []struct {
		name string
		v    float64
		dst  *int
	}{{"input_length", *m.InputLength, &e.InputTokens}, {"output_length", *m.OutputLength, &e.OutputTokens}} {
		if f.v != math.Trunc(f.v) || math.Abs(f.v) > maxTraceTokens*2 {
			bad = append(bad, fmt.Sprintf("%s %v is not a whole number of tokens", f.name, f.v))
			continue
		}
		*f.dst = int(f.v)
	}
	if len(bad) > 0 {
		return TraceEntry{}, strings.Join(bad, "; ")
	}
	if blocks := (e.InputTokens + MooncakeBlockTokens - 1) / MooncakeBlockTokens; e.InputTokens >= 1 && len(e.HashIDs) > blocks {
		return TraceEntry{}, fmt.Sprintf("hash_ids names %d blocks of %d tokens, but input_length %d holds only %d", len(e.HashIDs), MooncakeBlockTokens, e.InputTokens, blocks)
	}
	return e, ""
}

// traceColumns says how to read one CSV trace format.
type traceColumns struct {
	format              TraceFormat
	time, input, output string                              // required column names
	lengths             string                              // how errors name the length columns
	parseTime           func(string) (time.Duration, error) // a timestamp cell, as an offset from an arbitrary origin
	header              string                              // the published header, for messages
}

func azureColumns() traceColumns {
	return traceColumns{
		format: TraceAzure, time: "TIMESTAMP", input: "ContextTokens", output: "GeneratedTokens",
		lengths:   "ContextTokens, GeneratedTokens",
		parseTime: parseAzureTime,
		header:    "TIMESTAMP,ContextTokens,GeneratedTokens",
	}
}

func burstGPTColumns() traceColumns {
	return traceColumns{
		format: TraceBurstGPT, time: "Timestamp", input: "Request tokens", output: "Response tokens",
		lengths:   "Request tokens, Response tokens",
		parseTime: parseSecondsCell,
		header:    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type",
	}
}

// azureEpoch is the origin of Azure offsets: times are kept as offsets
// from it so that they fit a time.Duration.
var azureEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// azureLayouts are the TIMESTAMP spellings accepted (a fraction of a
// second of up to nine digits is accepted after the seconds by every
// layout).
var azureLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04:05Z07:00"}

func parseAzureTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for _, l := range azureLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if d := t.Sub(azureEpoch); d > -maxTraceTime && d < maxTraceTime {
				return d, nil
			}
			break
		}
	}
	return 0, fmt.Errorf("TIMESTAMP %q is not a date and time such as 2023-11-16 18:15:46.6805900", s)
}

func parseSecondsCell(s string) (time.Duration, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.Abs(v) > maxTraceTime.Seconds() {
		return 0, fmt.Errorf("Timestamp %q is not a number of seconds since the trace's start", s)
	}
	return time.Duration(math.Round(v * float64(time.Second))), nil
}

func readTraceCSV(br *bufio.Reader, name string, c traceColumns) ([]TraceEntry, error) {
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1 // checked here, with the line
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, csvError(name, err, c)
	}
	// ReuseRecord: the next Read overwrites this slice, and the messages
	// below quote the header.
	header = slices.Clone(header)
	idx := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))
		if _, dup := idx[strings.ToLower(h)]; !dup {
			idx[strings.ToLower(h)] = i
		}
	}
	hline, _ := r.FieldPos(0)
	var cols [3]int
	var missing []string
	for i, n := range []string{c.time, c.input, c.output} {
		j, ok := idx[strings.ToLower(n)]
		if !ok {
			missing = append(missing, n)
		}
		cols[i] = j
	}
	if len(missing) > 0 {
		return nil, &TraceError{File: name, Line: hline, Msg: fmt.Sprintf("the %s header lacks the column(s) %s: want %s", c.format, strings.Join(missing, ", "), c.header)}
	}
	width := len(header)
	errs := lineErrors{file: name}
	var out []TraceEntry
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if errs.add(pe.StartLine, "not valid CSV: %v", pe.Err) {
					break
				}
				continue
			}
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != width {
			if errs.add(line, "%d fields, but the header has %d (%s)", len(rec), width, strings.Join(header, ",")) {
				break
			}
			continue
		}
		e := TraceEntry{Line: line}
		var bad []string
		if e.At, err = c.parseTime(rec[cols[0]]); err != nil {
			bad = append(bad, err.Error())
		}
		for i, dst := range []*int{&e.InputTokens, &e.OutputTokens} {
			n, err := parseTokens(rec[cols[i+1]])
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s %v", []string{c.input, c.output}[i], err))
			}
			*dst = n
		}
		stop := false
		if len(bad) > 0 {
			stop = errs.add(line, "%s", strings.Join(bad, "; "))
		} else {
			stop = errs.check(e, c.lengths)
			out = append(out, e)
		}
		if stop {
			break
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// csvError turns an error reading a CSV trace's header into a TraceError.
func csvError(name string, err error, c traceColumns) error {
	var pe *csv.ParseError
	switch {
	case errors.As(err, &pe):
		return &TraceError{File: name, Line: pe.StartLine, Msg: fmt.Sprintf("not valid CSV: %v", pe.Err)}
	case err == io.EOF:
		return &TraceError{File: name, Msg: fmt.Sprintf("empty: a %s trace starts with the header %s", c.format, c.header)}
	}
	return fmt.Errorf("reading %s: %w", name, err)
}

// jsonMessage says what a JSON decoding error found in the file's terms: a
// key whose value has the wrong type is named by its key, not by the Go
// field it was decoded into.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	want := "a number"
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Slice, reflect.Array:
		want = "a list"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.Bool:
		want = "true or false"
	}
	if te.Field == "" {
		return fmt.Sprintf("a JSON %s where %s is wanted", te.Value, want)
	}
	return fmt.Sprintf("%q holds a JSON %s where %s is wanted", te.Field, te.Value, want)
}
