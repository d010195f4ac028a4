package openai

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestBasicCredentialsScrubbed: a server (or proxy) that echoes the
// Authorization or Proxy-Authorization header it received does not put
// the Basic credentials the client sent into the record: the base64 form
// of URL user:password and of a proxy URL's user:password are known
// secrets, as are their parts (issue 25, second review:
// "dXNyMzpVUkxTRUNIMw==" reached stderr and requests.jsonl).
func TestBasicCredentialsScrubbed(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "denied: authorization="+r.Header.Get("Authorization")+" proxy-authorization="+r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(echo.Close)
	basic := func(user, pw string) string { return base64.StdEncoding.EncodeToString([]byte(user + ":" + pw)) }
	proxyURL, err := url.Parse(strings.Replace(echo.URL, "http://", "http://pxuser:PROXYSECRET4@", 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		base    string
		opts    []Option
		secrets []string
	}{
		{"URL credentials", strings.Replace(echo.URL, "http://", "http://usr3:URLSECRET3@", 1), nil,
			[]string{basic("usr3", "URLSECRET3"), "URLSECRET3"}},
		{"proxy credentials", "http://127.0.0.1:9", []Option{WithProxy(http.ProxyURL(proxyURL))},
			[]string{basic("pxuser", "PROXYSECRET4"), "PROXYSECRET4"}},
	} {
		c, err := New(tc.base, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		rec := do(t, context.Background(), c)
		if rec.Status == loadgen.StatusOK || !strings.Contains(rec.ErrorMessage, "denied") {
			t.Fatalf("%s: %s %s: want the echoing server's 401", tc.name, rec.Status, rec.ErrorMessage)
		}
		for _, s := range tc.secrets {
			if strings.Contains(rec.ErrorMessage, s) {
				t.Errorf("%s: error message %q holds the secret %q", tc.name, rec.ErrorMessage, s)
			}
		}
	}
}

// TestTargetQueryIsSent: the query of the base URL goes with every
// request (a server that takes its key as ?api_key= needs it), and a
// credential-named parameter's value echoed back is scrubbed (issue 25,
// second review: "--target http://host/?api_key=X" sent /v1/completions
// with no query while docs/input-checks.md says requests carry it).
func TestTargetQueryIsSent(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Path + "?" + r.URL.RawQuery:
		default:
		}
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "bad key "+r.URL.Query().Get("api_key"))
	}))
	t.Cleanup(ts.Close)
	c, err := New(ts.URL + "/v1?api_key=QUERYSECRET5&region=eu")
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	if want := "/v1/completions?api_key=QUERYSECRET5&region=eu"; len(got) != 1 || <-got != want {
		t.Errorf("the server saw another request than %q", want)
	}
	if !strings.Contains(rec.ErrorMessage, "bad key") || strings.Contains(rec.ErrorMessage, "QUERYSECRET5") {
		t.Errorf("error message %q: want the 401 with the key scrubbed", rec.ErrorMessage)
	}
}

// TestEncodedSecretsScrubbed: a server that echoes its request line or
// URL echoes the secrets percent-encoded as the user typed them; those
// spellings are scrubbed too (issue 25, third review: api_key=Q%2BS%26C
// and a user:password of us%40r:S%40cr%2Ft%3Dx reached requests.jsonl).
func TestEncodedSecretsScrubbed(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		// As a proxy or gateway that logs the URL it was given would.
		io.WriteString(w, "denied: "+r.URL.RequestURI()+" for http://us%40r:S%40cr%2Ft%3Dx@"+r.Host)
	}))
	t.Cleanup(ts.Close)
	host := strings.TrimPrefix(ts.URL, "http://")
	c, err := New("http://us%40r:S%40cr%2Ft%3Dx@" + host + "/v1?api_key=Q%2BS%26C")
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, context.Background(), c)
	if !strings.Contains(rec.ErrorMessage, "denied") {
		t.Fatalf("%s %s: want the echoing server's 401", rec.Status, rec.ErrorMessage)
	}
	for _, s := range []string{"Q%2BS%26C", "Q+S&C", "S%40cr%2Ft%3Dx", "S@cr/t=x"} {
		if strings.Contains(rec.ErrorMessage, s) {
			t.Errorf("error message %q holds the secret %q", rec.ErrorMessage, s)
		}
	}
}
