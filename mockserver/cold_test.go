package mockserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestColdStart: with ColdRequests 2 and ColdDelay 300 ms, the first two
// requests take 300 ms longer than the third, which is served warm.
func TestColdStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Config{TTFT: 10 * time.Millisecond, OutputTokens: 1, ColdRequests: 2, ColdDelay: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var took []time.Duration
		for range 3 {
			req := httptest.NewRequest(http.MethodPost, "/v1/completions", strings.NewReader(`{"prompt":"hello","max_tokens":1}`))
			w := httptest.NewRecorder()
			start := time.Now()
			s.Handler().ServeHTTP(w, req)
			took = append(took, time.Since(start))
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
		}
		want := []time.Duration{310 * time.Millisecond, 310 * time.Millisecond, 10 * time.Millisecond}
		for i := range want {
			if took[i] != want[i] {
				t.Errorf("request %d took %v, want %v (all: %v)", i, took[i], want[i], took)
			}
		}
	})
	if err := (Config{ColdRequests: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "ColdRequests") {
		t.Errorf("Validate(ColdRequests -1) = %v", err)
	}
}
