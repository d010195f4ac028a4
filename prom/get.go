package prom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// StatusError is Get's error for a response whose status is not 200 OK:
// a caller tells a refusal (401, 403) from other failures with errors.As.
type StatusError struct {
	URL    string // the scraped URL, its credentials redacted
	Status int    // the HTTP status code
	Body   string // the first 512 bytes of the body, trimmed; may be empty
}

// Error reads "scraping URL: HTTP 401: body".
func (e *StatusError) Error() string {
	if e.Body != "" {
		return fmt.Sprintf("scraping %s: HTTP %d: %s", e.URL, e.Status, e.Body)
	}
	return fmt.Sprintf("scraping %s: HTTP %d", e.URL, e.Status)
}

// MaxBody is the largest body, bytes, that Get or API.Query reads (64 MiB):
// a larger one is an error, never silently cut short.
const MaxBody = 64 << 20

// DefaultTimeout is the timeout of the private HTTP client Get, NewAPI and
// NewScrapeWindow use when given none.
const DefaultTimeout = 10 * time.Second

// textAccept asks for the classic text format (not OpenMetrics or
// protobuf), the one ParseText reads.
const textAccept = "text/plain;version=0.0.4"

// Get reads the /metrics page at url once and parses it (ParseText). A
// status other than 200 OK (a *StatusError), a body over MaxBody or a malformed page is an
// error; every error names the URL with its credentials redacted
// (user:password and credential-named query parameters become REDACTED).
// client nil means a private client with a DefaultTimeout timeout. It is
// safe for concurrent use.
func Get(ctx context.Context, client *http.Client, url string) (Snapshot, error) {
	return get(ctx, client, url, MaxBody)
}

// get is Get with the body bound as a parameter, for tests.
func get(ctx context.Context, client *http.Client, rawURL string, limit int64) (Snapshot, error) {
	shown := redact.URLs(rawURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", shown, redactErr(err))
	}
	req.Header.Set("Accept", textAccept)
	resp, err := orDefault(client).Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", shown, redactErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Snapshot{}, &StatusError{URL: shown, Status: resp.StatusCode, Body: string(bytes.TrimSpace(b))}
	}
	snap, err := ParseText(bounded(resp.Body, limit))
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", shown, err)
	}
	return snap, nil
}

// MetricsURL returns raw with the path /metrics when it has none (or only
// "/"), e.g. http://gpu-node-01:9400 → http://gpu-node-01:9400/metrics.
// Anything else, an unparsable URL included, is returned as is.
func MetricsURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return raw
	}
	u.Path = "/metrics"
	return u.String()
}

// ErrBodyTooLarge is wrapped by the error of a response body over MaxBody.
var ErrBodyTooLarge = fmt.Errorf("response body over %d MiB", MaxBody>>20)

// boundedReader reads at most n bytes of r and then fails with
// ErrBodyTooLarge if r has more.
type boundedReader struct {
	r io.Reader
	n int64 // bytes left
}

func bounded(r io.Reader, limit int64) *boundedReader { return &boundedReader{r: r, n: limit} }

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		var one [1]byte
		if n, err := b.r.Read(one[:]); n > 0 {
			return 0, ErrBodyTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// readAll reads a whole response body, up to MaxBody.
func readAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(bounded(r, MaxBody))
}

// redactErr redacts the URL an *url.Error quotes (the HTTP client's errors
// name the request's URL); other errors are returned as they are.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: redact.URLs(ue.URL), Err: ue.Err}
	}
	return err
}

// orDefault returns c, or a private client with DefaultTimeout when c is nil.
func orDefault(c *http.Client) *http.Client {
	if c == nil {
		return &http.Client{Timeout: DefaultTimeout}
	}
	return c
}
