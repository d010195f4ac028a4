package prom

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A body over the bound is an error, not a page cut short.
func TestGetBodyBound(t *testing.T) {
	page := "# TYPE c counter\nc 1\n" + strings.Repeat("# padding\n", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(page))
	}))
	defer srv.Close()
	if _, err := get(context.Background(), nil, srv.URL, int64(len(page))); err != nil {
		t.Fatalf("a body of exactly the bound: %v", err)
	}
	_, err := get(context.Background(), nil, srv.URL, int64(len(page)-1))
	if !errors.Is(err, ErrBodyTooLarge) || !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("a body over the bound: %v, want ErrBodyTooLarge naming the URL", err)
	}
}
