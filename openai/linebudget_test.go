package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// endlessReader yields a data line that never ends.
type endlessReader struct{ started bool }

func (r *endlessReader) Read(p []byte) (int, error) {
	n := 0
	if !r.started {
		r.started = true
		n = copy(p, "data: ")
	}
	for i := n; i < len(p); i++ {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestEndlessLineCostsOneBuffer: a line that passes the line limit fails
// the stream without its partial bytes being taken for the event's data
// (which cost a second buffer of the limit's size per endless line), and
// its full-size buffer goes back to the budget's spares for the next
// stream, still charged, rather than to the collector (issue 25, second
// review: 24 endless-line streams peaked at 352 MB RSS, 96 at up to
// 708 MB).
func TestEndlessLineCostsOneBuffer(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	budget := newLineBudget(1 << 20)
	s := sseReader{limit: limit, budget: budget}
	for round := range 3 {
		s.reset(&endlessReader{})
		if _, err := s.next(); !errors.Is(err, errSSELineTooLong) {
			t.Fatalf("round %d: %v, want errSSELineTooLong", round, err)
		}
		if s.dataCharge != 0 || cap(s.data) > sseInitialBuf {
			t.Errorf("round %d: the event's data holds %d bytes (charged %d): the partial line was taken as data", round, cap(s.data), s.dataCharge)
		}
		if len(s.buf) != limit+1 || s.bufCharge != limit+1 {
			t.Errorf("round %d: line buffer %d bytes charged %d, want one full-size buffer of %d", round, len(s.buf), s.bufCharge, limit+1)
		}
		first := &s.buf[0]
		s.reset(nil)
		if len(budget.spare) != 1 || &budget.spare[0][0] != first || budget.left.Load() != 1<<20-(limit+1) {
			t.Errorf("round %d: %d spares, budget left %d: want the buffer kept as the one spare, still charged", round, len(budget.spare), budget.left.Load())
		}
	}
}

// TestExchangeBodyBounded: a model list or tokenize answer longer than
// maxExchangeBody is refused without reading on (issue 25, second review:
// the tokenizer probes read a hostile server's endless body to 64 MiB
// each, about 630 MB of allocations at start).
func TestExchangeBodyBounded(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		block := strings.Repeat("x", 32<<10)
		for range (maxExchangeBody >> 15) + 64 {
			if _, err := io.WriteString(w, block); err != nil {
				return
			}
		}
	}))
	t.Cleanup(ts.Close)
	c, err := New(ts.URL + "/?api_key=QUERYSECRET6")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.exchange(context.Background(), http.MethodGet, c.at("/v1/models"), nil)
	if err == nil || !strings.Contains(err.Error(), "longer than 8388608 bytes") || strings.Contains(err.Error(), "QUERYSECRET6") {
		t.Errorf("%v: want a refusal of the long body, the key not quoted", err)
	}
}
