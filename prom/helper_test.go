package prom_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newText serves *body as a /metrics page and returns its URL.
func newText(t *testing.T, body *string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		io.WriteString(w, *body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
