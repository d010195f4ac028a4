package loadgen

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleRecords() []Record {
	return []Record{
		{
			Seq: 0, Level: 0, ScheduledAt: 0, SentAt: 1500, HeadersAt: 2 * time.Millisecond,
			FirstTokenAt: 20 * time.Millisecond, FirstContentAt: 25 * time.Millisecond,
			LastTokenAt: 60 * time.Millisecond, DoneAt: 61 * time.Millisecond,
			ChunkTimes:  []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond},
			ChunkTokens: []int32{1, 2, 1},
			Status:      StatusOK, PromptTokens: 128, OutputTokens: 4,
			PromptTokensSource: SourceServer, OutputTokensSource: SourceServer,
			ServerPromptTokens: 128, ServerOutputTokens: 4, LocalPromptTokens: 127, LocalOutputTokens: 4,
			RequestedOutputTokens: 4, FinishReason: "length", ConnReused: true, InWindow: true,
		},
		{
			Seq: 1, Level: 2, ScheduledAt: time.Second, SentAt: time.Second + 10, DoneAt: 2 * time.Second,
			Status: StatusError, ErrorKind: ErrorHTTP, HTTPStatus: 429, ErrorMessage: "rate limited: \"slow down\"\n\tnow ✓",
		},
		{Seq: 2, Status: StatusCancelled, ErrorKind: ErrorCancelled, ScheduledAt: 3},
	}
}

func encodeAll(t testing.TB, e *Encoder, recs []Record) {
	t.Helper()
	for i := range recs {
		if err := e.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

func decodeAll(t testing.TB, r io.Reader) []Record {
	t.Helper()
	d := NewDecoder(r)
	var out []Record
	for {
		var rec Record
		err := d.Decode(&rec)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

func TestEncoderRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		enc  func(io.Writer) *Encoder
	}{
		{"plain", NewEncoder},
		{"gzip", NewGzipEncoder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			want := sampleRecords()
			encodeAll(t, tt.enc(&buf), want)
			if tt.name == "plain" && strings.Count(buf.String(), "\n") != len(want) {
				t.Errorf("want one line per record, got:\n%s", buf.String())
			}
			got := decodeAll(t, &buf)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestEncoderWireFormat(t *testing.T) {
	var buf bytes.Buffer
	encodeAll(t, NewEncoder(&buf), []Record{{Seq: 3, Level: 1, ScheduledAt: 5, SentAt: 7, DoneAt: 9, Status: StatusOK, OutputTokens: 2}})
	want := `{"seq":3,"level":1,"scheduled_at":5,"sent_at":7,"done_at":9,"status":"ok","prompt_tokens":0,"output_tokens":2,"conn_reused":false,"in_window":false}` + "\n"
	if buf.String() != want {
		t.Errorf("got  %s\nwant %s", buf.String(), want)
	}
}

func TestEncoderAfterClose(t *testing.T) {
	e := NewEncoder(io.Discard)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Write(&Record{}); err == nil {
		t.Error("Write after Close succeeded")
	}
}

func TestDecoder(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	tests := []struct {
		name     string
		in       string
		wantSeqs []int64
		errLine  int // 0: no error
	}{
		{name: "empty", in: ""},
		{name: "no trailing newline", in: `{"seq":1}` + "\n" + `{"seq":2}`, wantSeqs: []int64{1, 2}},
		{name: "blank lines and CRLF", in: "\n" + `{"seq":1}` + "\r\n\r\n" + `{"seq":2}` + "\r\n", wantSeqs: []int64{1, 2}},
		{name: "long line", in: `{"seq":5,"error_message":"` + long + `"}` + "\n" + `{"seq":6}`, wantSeqs: []int64{5, 6}},
		{name: "corrupt third line", in: `{"seq":1}` + "\n" + `{"seq":2}` + "\n" + `{"seq":` + "\n", wantSeqs: []int64{1, 2}, errLine: 3},
		{name: "not an object", in: `{"seq":1}` + "\n\n" + `[1,2]`, wantSeqs: []int64{1}, errLine: 3},
		{name: "wrong type", in: `{"seq":"one"}`, errLine: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.in))
			var seqs []int64
			for {
				var rec Record
				err := d.Decode(&rec)
				if err == io.EOF {
					if tt.errLine != 0 {
						t.Errorf("no error, want one on line %d", tt.errLine)
					}
					break
				}
				if err != nil {
					var de *DecodeError
					if !errors.As(err, &de) || de.Line != tt.errLine {
						t.Errorf("error %v, want a DecodeError on line %d", err, tt.errLine)
					}
					if !strings.Contains(err.Error(), "line") {
						t.Errorf("error %q does not name the line", err)
					}
					break
				}
				seqs = append(seqs, rec.Seq)
				if rec.Seq == 5 && rec.ErrorMessage != long {
					t.Errorf("long line truncated to %d bytes", len(rec.ErrorMessage))
				}
			}
			if !reflect.DeepEqual(seqs, tt.wantSeqs) {
				t.Errorf("seqs %v, want %v", seqs, tt.wantSeqs)
			}
		})
	}
}

func TestDecodeOverwrites(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"seq":1,"chunk_times":[5],"chunk_tokens":[1],"finish_reason":"stop"}` + "\n" + `{"seq":2}`))
	var rec Record
	if err := d.Decode(&rec); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(&rec); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec, Record{Seq: 2}) {
		t.Errorf("second record kept fields of the first: %+v", rec)
	}
}

func TestTeeAndSinkFunc(t *testing.T) {
	var a, b MemorySink
	calls := 0
	s := Tee(&a, SinkFunc(func(*Record) error { calls++; return errors.New("hook failed") }), &b)
	err := s.Write(&Record{Seq: 4})
	if err == nil || a.Len() != 1 || b.Len() != 1 || calls != 1 {
		t.Errorf("err %v, a %d, b %d, calls %d; want an error and every sink written once", err, a.Len(), b.Len(), calls)
	}
}

func FuzzDecoder(f *testing.F) {
	var buf bytes.Buffer
	encodeAll(f, NewEncoder(&buf), sampleRecords())
	f.Add(buf.Bytes())
	var gz bytes.Buffer
	encodeAll(f, NewGzipEncoder(&gz), sampleRecords())
	f.Add(gz.Bytes())
	f.Add([]byte(`{"seq":1}` + "\n" + `{"seq":`))
	f.Add([]byte("\n\n{}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data))
		var got []Record
		for {
			var rec Record
			if err := d.Decode(&rec); err != nil {
				break
			}
			got = append(got, rec)
			if len(got) > len(data) {
				t.Fatalf("%d records from %d bytes", len(got), len(data))
			}
		}
		// Whatever decoded re-encodes and decodes to the same records.
		var out bytes.Buffer
		encodeAll(t, NewEncoder(&out), got)
		again := decodeAll(t, &out)
		if len(again) != len(got) {
			t.Fatalf("re-decoded %d records, want %d", len(again), len(got))
		}
		for i := range got {
			if !reflect.DeepEqual(normalize(got[i]), normalize(again[i])) {
				t.Fatalf("record %d changed in a round trip:\n%+v\n%+v", i, got[i], again[i])
			}
		}
	})
}

// normalize maps empty slices to nil (omitempty drops them).
func normalize(r Record) Record {
	if len(r.ChunkTimes) == 0 {
		r.ChunkTimes = nil
	}
	if len(r.ChunkTokens) == 0 {
		r.ChunkTokens = nil
	}
	return r
}

func benchRecord() Record {
	r := sampleRecords()[0]
	r.ChunkTimes, r.ChunkTokens = nil, nil
	for i := range 256 {
		r.ChunkTimes = append(r.ChunkTimes, time.Duration(20_000_000+i*15_000_000))
		r.ChunkTokens = append(r.ChunkTokens, 1)
	}
	r.OutputTokens = 256
	return r
}

func BenchmarkEncoder(b *testing.B) {
	rec := benchRecord()
	for _, tt := range []struct {
		name string
		enc  func(io.Writer) *Encoder
	}{{"plain", NewEncoder}, {"gzip", NewGzipEncoder}} {
		b.Run(tt.name, func(b *testing.B) {
			e := tt.enc(io.Discard)
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Write(&rec); err != nil {
					b.Fatal(err)
				}
			}
			_ = e.Close()
		})
	}
}

func BenchmarkDecoder(b *testing.B) {
	rec := benchRecord()
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	for range 1000 {
		_ = e.Write(&rec)
	}
	_ = e.Close()
	data := buf.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(data) / 1000))
	var d *Decoder
	var out Record
	for i := 0; b.Loop(); i++ {
		if i%1000 == 0 {
			d = NewDecoder(bytes.NewReader(data))
		}
		if err := d.Decode(&out); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecoderLimitLine: with LimitLine(n), a line longer than n bytes is
// read through without being kept and reported as a DecodeError naming
// it, and decoding goes on with the next line (issue 25, second review:
// `report` on a folder with a 300 MB torn line cost 1.2 GB).
func TestDecoderLimitLine(t *testing.T) {
	t.Parallel()
	long := `{"seq":2,"error_message":"` + strings.Repeat("x", 300<<10) + `"}`
	for _, tail := range []string{"\n" + `{"seq":3}` + "\n", ""} {
		d := NewDecoder(strings.NewReader(`{"seq":1}` + "\n" + long + tail))
		d.LimitLine(64 << 10)
		var rec Record
		if err := d.Decode(&rec); err != nil || rec.Seq != 1 {
			t.Fatalf("first record: %v %+v", err, rec)
		}
		var de *DecodeError
		if err := d.Decode(&rec); !errors.As(err, &de) || de.Line != 2 || !strings.Contains(err.Error(), "longer than 65536 bytes") {
			t.Fatalf("long line: %v, want a DecodeError naming line 2", err)
		}
		if cap(d.buf) > 256<<10 {
			t.Errorf("the decoder kept %d bytes for the long line, want at most about the bound", cap(d.buf))
		}
		err := d.Decode(&rec)
		switch {
		case tail == "" && err != io.EOF:
			t.Errorf("after a long last line: %v, want io.EOF", err)
		case tail != "" && (err != nil || rec.Seq != 3):
			t.Errorf("after the long line: %v %+v, want seq 3", err, rec)
		}
	}
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestDecoderBoundsLinesByDefault: the third review of issue 25 found
// report.html's digest and compare reading a 300 MB torn line whole
// (1.3 GB RSS), since only results.Recover set a bound. NewDecoder bounds
// every reader at DefaultMaxLine.
func TestDecoderBoundsLinesByDefault(t *testing.T) {
	t.Parallel()
	long := io.MultiReader(strings.NewReader(`{"seq":1,"error_message":"`), io.LimitReader(repeatReader('x'), DefaultMaxLine+1<<20),
		strings.NewReader(`"}`+"\n"+`{"seq":2}`+"\n"))
	d := NewDecoder(long)
	var rec Record
	var de *DecodeError
	if err := d.Decode(&rec); !errors.As(err, &de) || de.Line != 1 {
		t.Fatalf("a line over DefaultMaxLine: %v, want a DecodeError naming line 1", err)
	}
	if cap(d.buf) > 2*DefaultMaxLine {
		t.Errorf("the decoder kept %d bytes for the long line", cap(d.buf))
	}
	if err := d.Decode(&rec); err != nil || rec.Seq != 2 {
		t.Errorf("after the long line: %v %+v, want seq 2", err, rec)
	}
}

// FuzzDecoderLimitLine: with a line bound, no input makes Decode keep a
// line longer than the bound, and every record it returns came from a
// line within it.
func FuzzDecoderLimitLine(f *testing.F) {
	f.Add([]byte(`{"seq":1}`+"\n"+`{"seq":2,"error_message":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`+"\n"+`{"seq":3}`), 32)
	f.Add([]byte("\n\n{}\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = 1 + abs(n)%256
		d := NewDecoder(bytes.NewReader(data))
		d.LimitLine(n)
		for range len(data) + 1 {
			var rec Record
			err := d.Decode(&rec)
			if len(d.buf) > n+1 {
				t.Fatalf("kept a %d-byte line with the bound at %d", len(d.buf), n)
			}
			var de *DecodeError
			if err != nil && !errors.As(err, &de) {
				return
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
