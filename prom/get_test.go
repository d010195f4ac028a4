package prom_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/prom"
)

func TestGet(t *testing.T) {
	var accept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		switch r.URL.Path {
		case "/metrics":
			w.Write(fixture(t, "litellm-t1.prom"))
		case "/bad":
			w.Write([]byte("ok 1\nbroken{ 2\n"))
		default:
			http.Error(w, "exporter down", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	s, err := prom.Get(ctx, nil, srv.URL+"/metrics")
	if err != nil || !s.Has("litellm_output_tokens_metric_total") {
		t.Fatalf("Get = %v, %v", s, err)
	}
	if !strings.HasPrefix(accept, "text/plain") {
		t.Errorf("Accept = %q, want the text format", accept)
	}
	// Every error names the URL, with its credentials redacted.
	secret := strings.Replace(srv.URL, "://", "://user:hunter2@", 1)
	for _, tc := range []struct{ path, want string }{
		{"/down?token=s3cret&x=1", "HTTP 503: exporter down"},
		{"/bad?token=s3cret&x=1", "line 2"},
	} {
		_, err := prom.Get(ctx, nil, secret+tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "hunter2") || strings.Contains(msg, "s3cret") || !strings.Contains(msg, "REDACTED@127.0.0.1") || !strings.Contains(msg, "x=1") {
			t.Errorf("%s: %q does not name the URL with its credentials redacted", tc.path, msg)
		}
	}
	srv.Close()
	_, err = prom.Get(ctx, nil, secret+"/metrics?api_key=s3cret")
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("connection refused: %v, want an error without the credentials", err)
	}
}

func TestMetricsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://gpu-node-01:9400":  "http://gpu-node-01:9400/metrics",
		"http://gpu-node-01:9400/": "http://gpu-node-01:9400/metrics",
		"https://h/custom/metrics": "https://h/custom/metrics",
		"http://h?x=1":             "http://h/metrics?x=1",
		"not a url":                "not a url",
		"http://user:pw@h:1":       "http://user:pw@h:1/metrics",
	} {
		if got := prom.MetricsURL(in); got != want {
			t.Errorf("MetricsURL(%q) = %q, want %q", in, got, want)
		}
	}
}
