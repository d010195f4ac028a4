package openai

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
)

// Endpoint selects the API a Client calls.
type Endpoint string

// Endpoints (docs/cli.md#what-is-sent-and-read).
const (
	Completions Endpoint = "completions"      // POST /v1/completions, body "prompt"
	Chat        Endpoint = "chat/completions" // POST /v1/chat/completions, body "messages"
)

// ParseEndpoint maps an endpoint's name ("completions" or "chat") to an
// Endpoint.
func ParseEndpoint(s string) (Endpoint, error) {
	switch s {
	case "completions", "":
		return Completions, nil
	case "chat", "chat/completions", "chat_completions":
		return Chat, nil
	}
	return "", fmt.Errorf("endpoint %q: want completions or chat", s)
}

// DefaultMaxConcurrency is the connection pool size when WithMaxConcurrency
// is not given: the throughput profile's default in-flight cap
// (docs/metrics.md#load-profiles).
const DefaultMaxConcurrency = 512

// MinTokensFromMax passed to WithMinTokens sends each request's max_tokens
// as its min_tokens, forcing the output length (vLLM extension).
const MinTokensFromMax = -1

// Option configures a Client.
type Option func(*config) error

type config struct {
	endpoint       Endpoint
	model          string
	apiKey         string
	header         http.Header
	extra          map[string]json.RawMessage
	ignoreEOS      bool
	minTokens      int
	stream         bool
	temperature    float64
	requestTimeout time.Duration
	idleTimeout    time.Duration
	maxConcurrency int
	httpClient     *http.Client
	countTokens    func(text []byte) int // the text is valid only during the call
	tls            *tls.Config
	receiveClock   ReceiveClockMode
	maxLineBytes   int
	lineBudget     int64
	proxy          func(*http.Request) (*url.URL, error)
	maxConns       int
}

// WithEndpoint selects completions (the default) or chat.
func WithEndpoint(e Endpoint) Option {
	return func(c *config) error {
		if e != Completions && e != Chat {
			return fmt.Errorf("endpoint %q: want %q or %q", e, Completions, Chat)
		}
		c.endpoint = e
		return nil
	}
}

// WithModel sets the "model" of every request. Without it the body carries
// no model unless --extra-body has one; the CLI resolves the default from
// Client.Models.
func WithModel(name string) Option {
	return func(c *config) error { c.model = name; return nil }
}

// WithAPIKey sends "Authorization: Bearer key", unless a more explicit
// credential is given: an Authorization header (WithHeader) or
// credentials in the base URL (user:password@, sent as Basic), which are
// then sent instead and the key is not sent at all. The key is never
// logged, written to a record or included in an error.
func WithAPIKey(key string) Option {
	return func(c *config) error { c.apiKey = key; return nil }
}

// WithHeader adds a header to every request (repeatable --header K=V). A
// name or value that cannot be sent is an error (see CheckHeader).
func WithHeader(key, value string) Option {
	return func(c *config) error {
		if err := CheckHeader(key, value); err != nil {
			return err
		}
		c.header.Add(key, value)
		return nil
	}
}

// WithExtraBody merges a JSON object into every request body, last: its
// top-level members replace the defaults, including model, max_tokens,
// stream and the prompt. extra must hold one JSON object, e.g.
// json.RawMessage(`{"top_p":0.9}`); anything else is an error. Callers
// holding a Go value marshal it first (json.Marshal).
func WithExtraBody(extra json.RawMessage) Option {
	return func(c *config) error {
		if extra == nil {
			return nil
		}
		m := map[string]json.RawMessage{}
		if err := json.Unmarshal(extra, &m); err != nil || m == nil {
			if err == nil {
				err = errors.New("null")
			}
			return fmt.Errorf("WithExtraBody: want a JSON object such as '{\"top_p\":0.9}': %w", err)
		}
		for k, v := range m {
			c.extra[k] = v
		}
		return nil
	}
}

// WithIgnoreEOS sets "ignore_eos" (default true, so outputs reach
// max_tokens). Turn it off for models that break with it (gpt-oss/Harmony).
func WithIgnoreEOS(on bool) Option {
	return func(c *config) error { c.ignoreEOS = on; return nil }
}

// WithMinTokens sends "min_tokens" (a vLLM extension): n > 0 sends n,
// MinTokensFromMax sends each request's max_tokens, 0 (the default) sends
// nothing.
func WithMinTokens(n int) Option {
	return func(c *config) error {
		if n < MinTokensFromMax {
			return fmt.Errorf("min_tokens %d: want >= 0, or MinTokensFromMax", n)
		}
		c.minTokens = n
		return nil
	}
}

// WithStream chooses streaming (the default) or a plain JSON response
// (--no-stream), for which TTFT is not reported.
func WithStream(on bool) Option {
	return func(c *config) error { c.stream = on; return nil }
}

// WithTemperature sets "temperature" (default 0).
func WithTemperature(t float64) Option {
	return func(c *config) error {
		if !(t >= 0) || math.IsInf(t, 0) {
			return fmt.Errorf("WithTemperature(%g): want a number >= 0, e.g. 0 or 0.7", t)
		}
		c.temperature = t
		return nil
	}
}

// WithRequestTimeout bounds each whole request (--request-timeout); 0, the
// default, means no bound. A request that runs out is recorded as
// StatusTimeout/ErrorTimeout.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("WithRequestTimeout(%v): want >= 0", d)
		}
		c.requestTimeout = d
		return nil
	}
}

// WithIdleTimeout bounds the longest gap between received bytes, from the
// moment the request is sent (--idle-timeout); 0, the default, means no
// bound. A request that stalls longer is recorded as
// StatusTimeout/ErrorIdleTimeout.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("WithIdleTimeout(%v): want >= 0", d)
		}
		c.idleTimeout = d
		return nil
	}
}

// WithMaxConcurrency sizes the connection pool for n requests in flight, so
// the pool never caps concurrency (docs/cli.md#what-is-sent-and-read).
// Default DefaultMaxConcurrency. Ignored with WithHTTPClient.
func WithMaxConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max concurrency %d: want >= 1", n)
		}
		c.maxConcurrency = n
		return nil
	}
}

// WithMaxLineBytes bounds one line of an event stream, and the data of
// one event, to n bytes (default DefaultMaxLineBytes). A longer one fails
// the request as loadgen.ErrorLineTooLong and closes its connection; the
// run goes on. n must be at least 1 KiB.
func WithMaxLineBytes(n int) Option {
	return func(c *config) error {
		if n < 1<<10 {
			return fmt.Errorf("max line bytes %d: want at least 1024 (1 KiB); the default is %d (4 MiB)", n, DefaultMaxLineBytes)
		}
		c.maxLineBytes = n
		return nil
	}
}

// WithLineBudget bounds, to n bytes, the buffers that all the Client's
// streams together may hold beyond 4 KiB each for long lines (default
// DefaultLineBudget). A stream whose line needs more than is left fails
// as loadgen.ErrorLineTooLong, so the Client's memory stays bounded
// whatever the number of streams. n must be >= 0.
func WithLineBudget(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("line budget %d: want >= 0 bytes; the default is %d (128 MiB)", n, DefaultLineBudget)
		}
		c.lineBudget = n
		return nil
	}
}

// WithProxy sends every request through the proxy that proxy returns for
// it (nil URL: none), as http.Transport.Proxy does; for the environment's
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY, pass http.ProxyFromEnvironment, or
// golang.org/x/net/http/httpproxy's Config.ProxyFunc for an environment of
// one's own. Without it no proxy is used. A proxy adds its own latency to
// every figure. Ignored with WithHTTPClient.
func WithProxy(proxy func(*http.Request) (*url.URL, error)) Option {
	return func(c *config) error { c.proxy = proxy; return nil }
}

// WithMaxConnections bounds the connections the Client holds to the
// target, in use and idle together, to n (default: no bound): a process
// whose open files are limited must not dial beyond them, and an idle
// connection held in the pool counts as much as a busy one. A request
// finding every connection in use waits for one. Ignored with
// WithHTTPClient.
func WithMaxConnections(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("max connections %d: want >= 1", n)
		}
		c.maxConns = n
		return nil
	}
}

// WithHTTPClient injects the HTTP client (tests, proxies, TLS settings).
// Its Timeout should be 0: the Client enforces its own timeouts.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return fmt.Errorf("nil *http.Client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTokenCounter plugs a local tokenizer: count returns the number of
// tokens in text. With it, the Client counts the tokens of every chunk
// (unless the chunk has logprobs) and of the whole output text
// (Record.LocalOutputTokens), which becomes the OSL when the server sends no
// usage. count must be safe for concurrent use. Without it the output text
// is not kept, which saves an allocation per chunk. Each call converts the
// text to a string, an allocation per chunk; WithByteTokenCounter saves it.
func WithTokenCounter(count func(text string) int) Option {
	return func(c *config) error {
		c.countTokens = nil
		if count != nil {
			c.countTokens = func(b []byte) int { return count(string(b)) }
		}
		return nil
	}
}

// WithByteTokenCounter is WithTokenCounter for a counter that takes the
// text's bytes and keeps neither them nor any part of them once it returns
// (the Client reuses its buffer): no copy of the text is made per chunk.
// (*tokenize.Tokenizer).CountBytes is one.
func WithByteTokenCounter(count func(text []byte) int) Option {
	return func(c *config) error { c.countTokens = count; return nil }
}

// ReceiveClockMode chooses the clock that stamps each received chunk
// (--receive-clock).
type ReceiveClockMode string

// Receive clock modes.
const (
	// ReceiveAuto stamps chunks with the kernel's receive time where the
	// platform and the connection allow it (Linux, plain or TLS over the
	// TCP connections the Client dials) and with the user-space time
	// elsewhere; each record says which (loadgen.Record.ReceiveClock) and
	// why not the kernel's. The default.
	ReceiveAuto ReceiveClockMode = "auto"
	// ReceiveKernel requires the kernel's receive time: New fails on a
	// platform without it or with WithHTTPClient, and a connection on
	// which it cannot be enabled fails to connect.
	ReceiveKernel ReceiveClockMode = "kernel"
	// ReceiveUser stamps every chunk when the client's goroutine has read
	// and parsed it, as before the kernel clock existed.
	ReceiveUser ReceiveClockMode = "user"
)

// ParseReceiveClock maps a receive clock's name (auto, kernel or user; ""
// is auto) to a mode.
func ParseReceiveClock(s string) (ReceiveClockMode, error) {
	switch m := ReceiveClockMode(s); m {
	case ReceiveAuto, ReceiveKernel, ReceiveUser:
		return m, nil
	case "":
		return ReceiveAuto, nil
	}
	return "", fmt.Errorf("receive clock %q: want auto, kernel or user", s)
}

// Available reports whether m can be used on this platform: ReceiveKernel
// needs Linux. The error names the mode and the way out.
func (m ReceiveClockMode) Available() error {
	if m == ReceiveKernel && !rxstamp.Supported() {
		return fmt.Errorf("receive clock kernel: %w (this is %s); use auto or user", rxstamp.ErrUnsupported, runtime.GOOS)
	}
	return nil
}

// WithReceiveClock chooses the clock of the chunk stamps (default
// ReceiveAuto; see ReceiveClockMode).
func WithReceiveClock(m ReceiveClockMode) Option {
	return func(c *config) error {
		if _, err := ParseReceiveClock(string(m)); err != nil {
			return err
		}
		c.receiveClock = m
		return nil
	}
}
