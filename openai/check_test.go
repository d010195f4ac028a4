package openai

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestCheckBaseURL: a base URL without a scheme, or with a port outside
// 1..65535, is refused with the fix, and no error quotes credentials.
func TestCheckBaseURL(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want []string // in the error; nil: valid
	}{
		{"http://127.0.0.1:8000", nil},
		{"https://h/proxy/v1", nil},
		{"http://user:pw@h:8000", nil},
		{"127.0.0.1:8000", []string{"no scheme", "http://127.0.0.1:8000"}},
		{"localhost:8000", []string{"no scheme", "http://localhost:8000"}},
		{"http://127.0.0.1:99999", []string{"port 99999", "1 to 65535"}},
		{"http://127.0.0.1:0", []string{"port 0", "1 to 65535"}},
		{"http://127.0.0.1:", []string{"empty port"}},
		{"ftp://h", []string{"want http://host:port"}},
		{"http://user:SECRET@h:99999", []string{"port 99999", "REDACTED@h:99999"}},
		{"user:SECRET@h:8000", []string{"no scheme", "REDACTED@h:8000"}},
		{"http://user:SECRET@h:8000/v1/completions", []string{"not an endpoint"}},
		{"http://user:SECRET@h%zz", []string{"want http://host:port"}},
	} {
		err := CheckBaseURL(tt.url)
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("CheckBaseURL(%q) = %v, want nil", tt.url, err)
		case tt.want != nil && err == nil:
			t.Errorf("CheckBaseURL(%q) = nil, want an error", tt.url)
		case err != nil:
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckBaseURL(%q) = %q, lacks %q", tt.url, err, w)
				}
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("CheckBaseURL(%q) = %q quotes the password", tt.url, err)
			}
		}
	}
}

// TestCheckHeader: header names are tokens, values one line; the error
// never quotes the value.
func TestCheckHeader(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        string // in the error; "": valid
	}{
		{"X-Tenant", "a b\tc", ""},
		{"X-Api-Key", "sk-123", ""},
		{"Bad Header", "x", `header name "Bad Header"`},
		{"", "x", "header name is empty"},
		{"X-Ä", "x", "letters, digits"},
		{"X-Trace", "SECRET\nInjected: 1", "line break"},
		{"X-Trace", "SECRET\r", "line break"},
		{"X-Trace", "SECRET\x00", "control character"},
	} {
		err := CheckHeader(tt.name, tt.value)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckHeader(%q, %q) = %v", tt.name, tt.value, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckHeader(%q, %q) = %v, want %q", tt.name, tt.value, err, tt.want)
		} else if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("CheckHeader(%q, ...) = %q quotes the value", tt.name, err)
		}
	}
	if _, err := New("http://h", WithHeader("Bad Header", "x")); err == nil {
		t.Error("New accepted a header name with a space")
	}
}

func TestTemperatureNotANumber(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), -1} {
		if _, err := New("http://h", WithTemperature(v)); err == nil || !strings.Contains(err.Error(), "WithTemperature") {
			t.Errorf("WithTemperature(%v): %v, want an error naming WithTemperature", v, err)
		}
	}
}

// TestTLSConfig: a self-signed server is refused by default and accepted
// with its CA in WithTLSConfig (or with verification off).
func TestTLSConfig(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Models(context.Background())
	var cv *tls.CertificateVerificationError
	if !errors.As(err, &cv) {
		t.Errorf("Models with the system's roots = %v, want a certificate verification error", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	for name, cfg := range map[string]*tls.Config{
		"RootCAs":            {RootCAs: pool},
		"InsecureSkipVerify": {InsecureSkipVerify: true},
	} {
		c, err := New(srv.URL, WithTLSConfig(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if ids, err := c.Models(context.Background()); err != nil || len(ids) != 1 {
			t.Errorf("%s: Models = %v, %v", name, ids, err)
		}
	}
}

// TestModelsErrors: a non-2xx answer is a *StatusError, an empty list
// wraps ErrNoModels, and neither quotes the URL's credentials.
func TestModelsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Empty") != "" {
			w.Write([]byte(`{"object":"list","data":[]}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://user:SECRET@", 1)
	c, _ := New(base)
	_, err := c.Models(context.Background())
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("404: %v, want a *StatusError 404 without the password", err)
	}
	c, _ = New(base, WithHeader("X-Empty", "1"))
	if _, err := c.Models(context.Background()); !errors.Is(err, ErrNoModels) {
		t.Errorf("empty list: %v, want ErrNoModels", err)
	}
	c, _ = New("http://user:SECRET@127.0.0.1:1")
	if _, err := c.Models(context.Background()); err == nil || strings.Contains(err.Error(), "SECRET") || errors.As(err, &se) {
		t.Errorf("refused connection: %v, want a transport error without the password", err)
	}
}

// FuzzCheckBaseURL: no input panics, and no error quotes the password of
// the URL it refuses.
func FuzzCheckBaseURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8000", "127.0.0.1:8000", "http://u:p@h:99999", "u:p@h", "http://[::1]:0", "https://h/v1/chat/completions"} {
		f.Add(s, "pa55word")
	}
	f.Fuzz(func(t *testing.T, raw, pw string) {
		if len(pw) < 6 || strings.ContainsAny(pw, "/?#@:[]%") || strings.Contains("REDACTED", pw) {
			return
		}
		raw = strings.Replace(raw, "p@", pw+"@", 1)
		err := CheckBaseURL(raw)
		if err == nil || !strings.Contains(err.Error(), pw) {
			return
		}
		// A password: in a URL's userinfo, or anywhere before an "@" of
		// a string without a scheme.
		u, perr := url.Parse(raw)
		p, set := "", false
		if perr == nil && u.User != nil {
			p, set = u.User.Password()
		}
		if set && p == pw || !strings.Contains(raw, "://") && strings.Contains(raw, ":"+pw+"@") {
			t.Fatalf("CheckBaseURL(%q) = %q quotes the password", raw, err)
		}
	})
}
