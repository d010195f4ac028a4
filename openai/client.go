package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/gollm-bench/gollm-bench/internal/jsonstring"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/internal/rxstamp"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Client sends requests to one OpenAI-compatible server and measures them. It
// implements loadgen.Requester. Build it with New; it is safe for concurrent
// use and owns one HTTP transport (one connection pool per run,
// docs/cli.md#what-is-sent-and-read).
type Client struct {
	cfg    config
	base   string // scheme://host[:port][/prefix], without /v1 or query
	query  string // the base URL's raw query, sent with every request (at)
	url    string // the endpoint's URL, with the query
	hc     *http.Client
	header http.Header // read-only after New, shared by all requests

	// bodyPrefix is the constant part of every request body: "{" and the
	// members that do not depend on the request, encoded once.
	bodyPrefix []byte
	// Per-request members, false when --extra-body overrides them.
	sendPrompt, sendMaxTokens, sendMaxCompletion, sendMinTokens bool

	streams sync.Pool // *streamState, reused between requests
	// lineBudget bounds the SSE buffers of all streams together
	// (WithLineBudget).
	lineBudget *lineBudget
	// secrets are the credential values the Client sends (knownSecrets),
	// scrubbed from every error text a server echoes them in.
	secrets []string

	// stamping is set when the Client dials its connections with kernel
	// receive stamps (see ReceiveClockMode); userNote says why not
	// otherwise, for every record.
	stamping bool
	userNote string
}

// Sentinel causes that tell the request's own timeouts from the run's
// cancellation.
var (
	errRequestTimeout = errors.New("request timeout")
	errIdleTimeout    = errors.New("idle timeout")
)

// maxErrorMessage bounds Record.ErrorMessage, in bytes.
const maxErrorMessage = 512

// maxBody bounds a non-streaming response or an error body read, in bytes.
const maxBody = 64 << 20

// maxBodyQuote bounds the bytes of an unexpected body quoted in
// Record.ErrorMessage (not_sse).
const maxBodyQuote = 160

// MaxUsageTokens is the largest token count, in tokens, the client accepts
// from a server's usage object: 2^24 = 16,777,216, beyond the context
// window of any model. A count above it, a negative one, one that is not a
// whole number, or usage.completion_tokens 0 when generated text arrived,
// is impossible: the client notes it in Record.UsageRejected and does not
// use it.
const MaxUsageTokens = 1 << 24

// New returns a Client for the server at baseURL ("http://host:port", with
// or without a trailing "/v1"). The defaults are: completions endpoint,
// streaming with usage, ignore_eos true, temperature 0, no timeouts, a pool
// for DefaultMaxConcurrency connections. A nil option is an error.
func New(baseURL string, opts ...Option) (*Client, error) {
	cfg := config{
		endpoint:       Completions,
		header:         http.Header{},
		extra:          map[string]json.RawMessage{},
		ignoreEOS:      true,
		stream:         true,
		maxConcurrency: DefaultMaxConcurrency,
		receiveClock:   ReceiveAuto,
		maxLineBytes:   DefaultMaxLineBytes,
		lineBudget:     DefaultLineBudget,
	}
	var errs []error
	for i, o := range opts {
		if o == nil {
			errs = append(errs, fmt.Errorf("openai.New: option %d is nil; give options such as openai.WithModel(\"m\"), or leave it out", i))
			continue
		}
		if err := o(&cfg); err != nil {
			errs = append(errs, err)
		}
	}
	base, err := normalizeBase(baseURL)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, base: base, query: targetQuery(baseURL), hc: cfg.httpClient, lineBudget: newLineBudget(cfg.lineBudget)}
	c.url = c.at("/v1/" + string(cfg.endpoint))
	if err := c.chooseClock(); err != nil {
		return nil, err
	}
	if c.hc == nil {
		t := newTransport(cfg.maxConcurrency, cfg.tls, c.cfg.receiveClock)
		t.Proxy = cfg.proxy
		if cfg.maxConns > 0 {
			t.MaxConnsPerHost = cfg.maxConns
			t.MaxIdleConns = min(t.MaxIdleConns, cfg.maxConns)
			t.MaxIdleConnsPerHost = min(t.MaxIdleConnsPerHost, cfg.maxConns)
		}
		c.hc = &http.Client{Transport: t}
	}
	c.header = cfg.header.Clone()
	c.header.Set("Content-Type", "application/json")
	// net/http resends a POST whose pooled keep-alive connection turns out
	// closed before any response byte only if the request carries an
	// idempotency key; a zero-length one is never sent on the wire.
	// llama.cpp's server announces keep-alive yet closes the connection
	// after every stream, so without this about one request in six failed
	// with "server closed idle connection" or EOF after a few microseconds.
	if c.header.Get("Idempotency-Key") == "" && c.header.Get("X-Idempotency-Key") == "" {
		c.header["X-Idempotency-Key"] = []string{}
	}
	if cfg.stream {
		c.header.Set("Accept", "text/event-stream")
	} else {
		c.header.Set("Accept", "application/json")
	}
	if cfg.apiKey != "" && c.header.Get("Authorization") == "" && !hasUserinfo(base) {
		c.header.Set("Authorization", "Bearer "+cfg.apiKey)
	}
	c.secrets = withEncodings(append(knownSecrets(c.header, cfg.apiKey, base, c.proxyFor()), querySecrets(c.query)...))
	slices.SortFunc(c.secrets, func(a, b string) int { return len(b) - len(a) })
	if err := c.buildPrefix(); err != nil {
		return nil, err
	}
	return c, nil
}

// normalizeBase checks a base URL and strips a trailing "/" and "/v1".
// Its errors quote the URL without credentials.
// targetQuery returns the query of the base URL raw ("" when it has none
// or does not parse; normalizeBase reports that): every request the
// Client sends carries it, since a server may take its key as a query
// parameter (?api_key=).
func targetQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.RawQuery
}

// at returns the URL of path on the server, with the base URL's query.
func (c *Client) at(path string) string {
	if c.query == "" {
		return c.base + path
	}
	return c.base + path + "?" + c.query
}

// querySecrets returns the values of the query's parameters named like a
// credential (redact.SecretName), for scrubbing from what a server echoes.
func querySecrets(query string) []string {
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil
	}
	var out []string
	for k, vs := range q {
		if redact.SecretName(k) {
			out = append(out, vs...)
		}
	}
	// The values as the user spelled them, percent-encoding and all: a
	// server that echoes its request line echoes these.
	for pair := range strings.SplitSeq(query, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if name, err := url.QueryUnescape(k); err == nil && redact.SecretName(name) && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// withEncodings returns secrets with each value's percent-encoded
// spellings added (as a query value and as a path or userinfo segment),
// where they differ, empty values dropped, longest first so that a
// secret inside a longer one is not left half-redacted: a server that
// echoes the request line or the URL echoes them encoded.
func withEncodings(secrets []string) []string {
	var out []string
	for _, v := range secrets {
		if v == "" {
			continue
		}
		out = append(out, v)
		for _, e := range []string{url.QueryEscape(v), url.PathEscape(v), (&url.URL{User: url.User(v)}).User.String()} {
			if e != v && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// proxyFor returns the proxy URL the Client's requests go through (nil:
// none, or the proxy function failed), for the secrets its credentials
// make.
func (c *Client) proxyFor() *url.URL {
	if c.cfg.proxy == nil {
		return nil
	}
	req, err := http.NewRequest(http.MethodPost, c.url, nil)
	if err != nil {
		return nil
	}
	u, err := c.cfg.proxy(req)
	if err != nil {
		return nil
	}
	return u
}

// knownSecrets lists the credential values a Client sends: every header
// value but the harmless ones (redact.HarmlessHeader), each also without
// its scheme ("Bearer KEY" gives KEY too), the API key, and the user and
// password of the base URL and of the proxy URL (nil: none), with the
// base64 user:password that net/http sends for them as Basic
// Authorization and Proxy-Authorization (RFC 7617).
func knownSecrets(h http.Header, apiKey, base string, proxy *url.URL) []string {
	out := []string{apiKey}
	for k, vs := range h {
		if redact.HarmlessHeader(k) {
			continue
		}
		for _, v := range vs {
			out = append(out, v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(tok))
			}
		}
	}
	userinfo := func(u *url.URL) {
		if u == nil || u.User == nil {
			return
		}
		user := u.User.Username()
		pw, _ := u.User.Password()
		out = append(out, user, pw, base64.StdEncoding.EncodeToString([]byte(user+":"+pw)))
	}
	if u, err := url.Parse(base); err == nil {
		userinfo(u)
	}
	userinfo(proxy)
	// Longest first, so that a key inside a longer value is not left
	// half-redacted.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// hasUserinfo reports whether base, a normalized base URL, carries
// credentials (user:password@), which net/http sends as Basic
// authorization when no Authorization header is set.
func hasUserinfo(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.User != nil
}

func normalizeBase(raw string) (string, error) {
	shown := redactUserinfo(raw)
	if !strings.Contains(raw, "://") {
		return "", fmt.Errorf("base URL %q: no scheme: write http://%s (or https://%s for TLS)", shown, shown, shown)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold credentials
		}
		return "", fmt.Errorf("base URL %q: %w; want http://host:port or https://host", shown, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("base URL %q: want http://host:port or https://host", shown)
	}
	if err := checkPort(u, shown); err != nil {
		return "", err
	}
	path := strings.TrimRight(u.Path, "/")
	for _, ep := range []string{"/completions", "/chat/completions"} {
		if strings.HasSuffix(path, "/v1"+ep) {
			return "", fmt.Errorf("base URL %q: give the server's base URL (e.g. %s://%s), not an endpoint; choose the endpoint with WithEndpoint", shown, u.Scheme, u.Host)
		}
	}
	u.Path = strings.TrimSuffix(path, "/v1")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

// chooseClock settles the receive clock: whether the Client stamps its
// connections, and the note its records carry when it does not.
func (c *Client) chooseClock() error {
	m := c.cfg.receiveClock
	switch {
	case m == ReceiveUser:
		c.userNote = loadgen.ReceiveClockChosen
	case !rxstamp.Supported():
		if err := m.Available(); err != nil {
			return err
		}
		c.userNote = rxstamp.ErrUnsupported.Error()
	case c.cfg.httpClient != nil:
		if m == ReceiveKernel {
			return errors.New("receive clock kernel: the HTTP client is injected (WithHTTPClient), so the Client does not dial its connections; use auto or user")
		}
		c.userNote = "the HTTP client is injected (WithHTTPClient): the Client does not dial its connections"
	default:
		c.stamping = true
		// Linux switches its receive stamping on lazily when the first
		// socket asks; a Keeper asks from now on, so that the Client's
		// first connections are stamped too. It is closed with the Client.
		if k, err := rxstamp.Keep(); err == nil {
			runtime.AddCleanup(c, func(k *rxstamp.Keeper) { k.Close() }, k)
		}
	}
	return nil
}

// newTransport returns a keep-alive HTTP/1.1 transport whose pool holds n
// idle connections per host and never limits connections per host, so the
// pool cannot cap concurrency (GuideLLM's 100-per-worker cap did). No proxy
// is used: inject a client with WithHTTPClient for one. tlsCfg (nil: Go's
// defaults) verifies an https server. Unless rx is ReceiveUser, each
// connection is dialled with kernel receive stamps where the platform
// has them (rxstamp.Enable); TLS runs over that connection.
func newTransport(n int, tlsCfg *tls.Config, rx ReceiveClockMode) *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	stamp := rx != ReceiveUser && rxstamp.Supported()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		switch {
		case err != nil:
			return nil, err
		case !stamp:
			return plainConn{Conn: conn}, nil
		}
		sc, err := rxstamp.Enable(conn)
		switch {
		case err == nil:
			return sc, nil
		case rx == ReceiveKernel:
			conn.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("receive clock kernel: %w", err)}
		}
		return plainConn{Conn: conn, why: "kernel receive stamps could not be enabled: " + err.Error()}, nil
	}
	return &http.Transport{
		DialContext:           dial,
		MaxIdleConns:          n,
		MaxIdleConnsPerHost:   n,
		MaxConnsPerHost:       0, // unlimited
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		TLSClientConfig:       tlsCfg,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true, // a gzip layer would batch SSE frames
		ForceAttemptHTTP2:     false,
	}
}

// buildPrefix encodes the constant members of the body once. --extra-body
// members are merged last and win; a per-request member (prompt,
// max_tokens...) named in --extra-body is not sent from the request.
func (c *Client) buildPrefix() error {
	m := map[string]any{}
	if c.cfg.model != "" {
		m["model"] = c.cfg.model
	}
	m["stream"] = c.cfg.stream
	if c.cfg.stream {
		m["stream_options"] = map[string]bool{"include_usage": true}
	}
	if c.cfg.ignoreEOS {
		m["ignore_eos"] = true
	}
	m["temperature"] = c.cfg.temperature
	if c.cfg.minTokens > 0 {
		m["min_tokens"] = c.cfg.minTokens
	}
	for k, v := range c.cfg.extra {
		m[k] = v
	}
	promptKey := "prompt"
	if c.cfg.endpoint == Chat {
		promptKey = "messages"
	}
	_, extraPrompt := c.cfg.extra[promptKey]
	_, extraMax := c.cfg.extra["max_tokens"]
	_, extraMaxC := c.cfg.extra["max_completion_tokens"]
	_, extraMin := c.cfg.extra["min_tokens"]
	c.sendPrompt = !extraPrompt
	c.sendMaxTokens = !extraMax
	c.sendMaxCompletion = c.cfg.endpoint == Chat && !extraMaxC
	c.sendMinTokens = c.cfg.minTokens == MinTokensFromMax && !extraMin

	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	c.bodyPrefix = b[:len(b)-1] // drop "}"; m is never empty ("stream")
	return nil
}

// body returns the JSON body for req.
func (c *Client) body(req *loadgen.Request) ([]byte, error) {
	// Room for the prompt's escapes too (a newline every 40 bytes or so
	// in prose), so that a long prompt is not copied again as b grows.
	b := make([]byte, 0, len(c.bodyPrefix)+len(req.Prompt)+len(req.Prompt)/32+96)
	b = append(b, c.bodyPrefix...)
	if c.sendPrompt {
		if req.Chat != nil {
			var err error
			if b, err = c.appendMessages(b, req.Chat.Messages); err != nil {
				return nil, err
			}
		} else if c.cfg.endpoint == Chat {
			// go-openai's message type carries the chat shape; the request
			// around it is ours (see doc.go).
			msg, err := json.Marshal([]goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: req.Prompt}})
			if err != nil {
				return nil, err
			}
			b = append(b, `,"messages":`...)
			b = append(b, msg...)
		} else {
			b = append(b, `,"prompt":`...)
			b = jsonstring.Append(b, req.Prompt)
		}
	}
	if req.MaxTokens > 0 {
		if c.sendMaxTokens {
			b = fmt.Appendf(b, `,"max_tokens":%d`, req.MaxTokens)
		}
		if c.sendMaxCompletion {
			b = fmt.Appendf(b, `,"max_completion_tokens":%d`, req.MaxTokens)
		}
		if c.sendMinTokens {
			b = fmt.Appendf(b, `,"min_tokens":%d`, req.MaxTokens)
		}
	}
	return append(b, '}'), nil
}

// noteOf says why conn, a connection of the Client's transport, has no
// kernel receive stamps.
func noteOf(conn net.Conn) string {
	if t, ok := conn.(*tls.Conn); ok {
		conn = t.NetConn()
	}
	if p, ok := conn.(plainConn); ok && p.why != "" {
		return p.why
	}
	return "the connection has no kernel receive stamps"
}

// bodyReader is a request body: a bytes.Reader that net/http does not wrap
// (it is an io.ReadCloser), so that the connection's ReadFrom sees its
// length and writes it in one piece (rxstamp.WriteBody), without copying
// it through a buffer; a 128,000-token prompt is about 512 KiB.
type bodyReader struct{ bytes.Reader }

func newBodyReader(b []byte) *bodyReader {
	r := &bodyReader{}
	r.Reset(b)
	return r
}

// Close implements io.Closer.
func (*bodyReader) Close() error { return nil }

// plainConn is a connection the Client dialled without kernel receive
// stamps: the user clock was chosen, or why says why they could not be
// enabled, for the records.
type plainConn struct {
	net.Conn
	why string
}

// ReadFrom writes a request body without copying it (rxstamp.WriteBody);
// net/http uses it when the connection has it.
func (u plainConn) ReadFrom(r io.Reader) (int64, error) {
	if tc, ok := u.Conn.(*net.TCPConn); ok {
		return rxstamp.WriteBody(tc, r)
	}
	return io.Copy(u.Conn, r)
}

// streamState is the per-request scratch space, pooled by the Client so a
// request allocates little beyond its Record's chunk slices.
type streamState struct {
	sse    sseReader
	ch     chunk
	text   []byte // output text, kept only with a token counter
	finish []byte
	usage  usage
	reused bool
	// delivered counts the token-carrying chunks of a stream, or is 1 for
	// a non-streaming body that carried generated text.
	delivered int
	// reply is the generated content, kept when the request asks for it
	// (loadgen.Request.KeepReply).
	reply     []byte
	keepReply bool

	// The receive clock of the request. src is the connection's kernel
	// stamps (nil: user clock); off is rxstamp.Offset when the request
	// started; rxNote is the first reason to fall back to the user clock;
	// contentAt is the index of the first content chunk (-1: none).
	src       rxstamp.Source
	off       int64
	rxNote    string
	contentAt int
	headersAt time.Duration // user-space HeadersAt, with src
	// wire is the kernel's transmit stamp of the request's first write
	// (RequestSend: moved later by the writer's pauses between writes),
	// when the request began to leave, and lastWire that of its last
	// byte (CLOCK_REALTIME ns; 0: none), settled when the exchange is
	// over (settleWire chooses).
	wire, lastWire int64
	bodyLen        int // the request body's bytes

	// live is the level's view of the request in flight, told of its
	// first token (nil outside a loadgen.Generator).
	live *loadgen.LiveRequest
}

// Do sends req and fills rec (loadgen.Requester). It sets rec.SentAt only
// when the caller left it zero, and rec.RequestedOutputTokens and
// rec.RequestedPromptTokens likewise.
// It never panics: a panic while handling the request is recorded as
// StatusError/ErrorPanic, keeping what was measured until then.
func (c *Client) Do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record) {
	st, _ := c.streams.Get().(*streamState)
	if st == nil {
		st = &streamState{}
	}
	st.text, st.finish, st.usage, st.reused, st.delivered = st.text[:0], st.finish[:0], usage{}, false, 0
	st.reply, st.keepReply = st.reply[:0], req.KeepReply
	st.live = loadgen.LiveRequestOf(ctx)
	st.src, st.off, st.rxNote, st.contentAt, st.headersAt, st.wire, st.lastWire, st.bodyLen = nil, 0, "", -1, 0, 0, 0, 0
	defer func() {
		if p := recover(); p != nil {
			rec.Status, rec.ErrorKind = loadgen.StatusError, loadgen.ErrorPanic
			rec.ErrorMessage = truncate(fmt.Sprint("panic: ", p))
			if rec.DoneAt == 0 {
				rec.DoneAt = clock.Now()
			}
			func() {
				defer func() { _ = recover() }()
				c.finish(req, rec, st)
			}()
			return // st may be inconsistent: do not reuse it
		}
		c.streams.Put(st)
	}()
	if rec.RequestedOutputTokens == 0 {
		rec.RequestedOutputTokens = req.MaxTokens
	}
	if rec.RequestedPromptTokens == 0 {
		rec.RequestedPromptTokens = req.RequestedPromptTokens
		rec.ISLClampedFrom, rec.PromptTokensExact = req.ISLClampedFrom, req.PromptTokensExact
	}
	c.do(ctx, clock, req, rec, st)
	c.settleClock(clock, rec, st)
	c.finish(req, rec, st)
}

// maxOffsetJitter is the change of rxstamp.Offset between a request's
// start and end above which the wall clock is taken to have stepped: two
// medians of three readings agree to well under a microsecond otherwise.
const maxOffsetJitter = 50 * time.Microsecond

// settleClock names the record's receive clock. With kernel stamps, it
// checks that the wall clock did not step while the request ran (the
// stamps are CLOCK_REALTIME); on a step, or any other reason noted while
// streaming, the record falls back to its user-space stamps, whole, and
// says why.
func (c *Client) settleClock(clock loadgen.Clock, rec *loadgen.Record, st *streamState) {
	if rec.HeadersAt == 0 && len(rec.ChunkTimes) == 0 {
		return
	}
	if st.src == nil {
		rec.ReceiveClock, rec.ReceiveClockNote = loadgen.ReceiveClockUser, st.rxNote
		if st.rxNote == "" {
			rec.ReceiveClockNote = c.userNote
		}
		return
	}
	if step := time.Duration(rxstamp.Offset(clock.Start()) - st.off); step > maxOffsetJitter || step < -maxOffsetJitter {
		rec.ClockStep = step
		st.rxNote = fmt.Sprintf("the wall clock stepped by %v while the request ran", step)
	}
	if st.rxNote == "" && len(rec.ChunkUserTimes) == len(rec.ChunkTimes) {
		rec.ReceiveClock = loadgen.ReceiveClockKernel
		settleWire(rec, st)
		return
	}
	// Fall back to the user-space stamps.
	if st.headersAt != 0 {
		rec.HeadersAt = st.headersAt
	}
	if u := rec.ChunkUserTimes; len(u) > 0 && len(u) == len(rec.ChunkTimes) {
		copy(rec.ChunkTimes, u)
		rec.FirstTokenAt, rec.LastTokenAt = u[0], u[len(u)-1]
		if st.contentAt >= 0 {
			rec.FirstContentAt = u[st.contentAt]
		}
	}
	rec.ChunkUserTimes = nil
	rec.ReceiveClock, rec.ReceiveClockNote = loadgen.ReceiveClockUser, st.rxNote
}

// smallUpload is the largest request body, in bytes, that always leaves
// as it is written: the server's first TCP window takes it whole, whatever
// the server does, so nothing but the client can delay it.
const smallUpload = 16 << 10

// maxQuickUpload is how long a larger request's upload, from its first
// write (net of the writer's own pauses) to the kernel's sending of its
// last byte, may take for the request to count as sent as written: longer,
// and the server or the network held the bytes (a server reading a large
// body slowly, or stalling before it reads), which is not the client's
// time.
const maxQuickUpload = time.Millisecond

// settleWire sets rec.WireAt, on the kernel clock, from the kernel's
// transmit stamps, converted as the receive stamps are: that of the
// request's last byte where the request left as it was written
// (leftAsWritten): the exact moment it was all out. Otherwise that of its
// first write (when it began to leave, moved later by the client's own
// pauses between its writes), so that an upload the server held up is in
// the latencies. A stamp is missing when the kernel gave none, or had not
// given it either when the request's write ended or when the response
// headers came; one outside [SentAt, HeadersAt] (the request cannot have
// gone out before it was sent, nor after the response began) is not used.
// Either way the note says so, and the latencies start at SentAt.
func settleWire(rec *loadgen.Record, st *streamState) {
	end := rec.HeadersAt
	if end == 0 {
		end = rec.FirstTokenAt
	}
	inside := func(at time.Duration) bool { return at >= rec.SentAt && (end == 0 || at <= end) }
	if st.lastWire != 0 {
		if last := time.Duration(st.lastWire - st.off); leftAsWritten(rec, st, last) && inside(last) {
			rec.WireAt = last
			return
		}
	}
	if st.wire == 0 {
		rec.ReceiveClockNote = "no kernel transmit stamp of the request's first write: latencies start at sent_at"
		if rec.WroteAt == 0 {
			rec.ReceiveClockNote = "the response began before the request was written (no kernel transmit stamp): latencies start at sent_at"
		}
		return
	}
	at := time.Duration(st.wire - st.off)
	if !inside(at) {
		rec.ReceiveClockNote = "the kernel transmit stamp fell outside [sent_at, headers_at]: latencies start at sent_at"
		return
	}
	rec.WireAt = at
}

// leftAsWritten reports whether the request, whose last byte the kernel
// sent at last, left as the client wrote it: a small body always does; a
// larger one where its upload, from its first write to its last byte, took
// at most maxQuickUpload (without a first-write stamp: where the last byte
// left within maxQuickUpload of the write's return). The write's return
// alone does not tell: a write blocked by a server that stalled, then read
// fast, returns with its last byte just sent.
func leftAsWritten(rec *loadgen.Record, st *streamState, last time.Duration) bool {
	switch {
	case st.bodyLen <= smallUpload:
		return true
	case st.wire != 0:
		return last-time.Duration(st.wire-st.off) <= maxQuickUpload
	case rec.WroteAt != 0:
		return last-rec.WroteAt <= maxQuickUpload
	}
	return false
}

// do runs the HTTP exchange.
func (c *Client) do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record, st *streamState) {
	// wrote is set by the transport's writing goroutine, which may call
	// WroteRequest after the response has arrived: it is read once the
	// exchange is over, and per request, not in the pooled streamState.
	// So is wire, the connection's RequestSend as the request's write
	// ended (the stamp of the request's first write: GotConn marks the
	// connection before the transport writes the request, after a TLS
	// handshake's writes; 0 while the stamp was still to come), and wsrc,
	// the connection's stamps for the writer: GotConn sets it before the
	// transport hands the request to its writing goroutine.
	var wrote, wire, lastWire atomic.Int64
	var wsrc rxstamp.Source
	// headerWire is RequestSend when the headers came, if the request
	// had been written by then: the Read of the headers has read a stamp
	// that was still to come when the write ended.
	var headerWire int64
	// headerLast is LastSend when the headers came, if the request had
	// been written by then (the last byte written is then the request's).
	var headerLast int64
	defer func() {
		rec.DoneAt = clock.Now()
		rec.WroteAt = time.Duration(wrote.Load())
		if st.wire = wire.Load(); st.wire == 0 {
			st.wire = headerWire
		}
		if st.lastWire = lastWire.Load(); st.lastWire == 0 {
			st.lastWire = headerLast
		}
	}()
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d := c.cfg.requestTimeout; d > 0 {
		var stop context.CancelFunc
		rctx, stop = context.WithTimeoutCause(rctx, d, errRequestTimeout)
		defer stop()
	}
	var idle *time.Timer
	if d := c.cfg.idleTimeout; d > 0 {
		idle = time.AfterFunc(d, func() { cancel(errIdleTimeout) })
		defer idle.Stop()
	}
	if c.stamping {
		st.off = rxstamp.Offset(clock.Start())
	}
	rctx = httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			st.reused = info.Reused
			if c.stamping {
				st.src = rxstamp.SourceOf(info.Conn)
				wsrc = st.src
				if st.src == nil {
					st.rxNote = noteOf(info.Conn)
				} else {
					st.src.MarkRequest()
				}
			}
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				wrote.Store(int64(clock.Now()))
				if wsrc != nil {
					wire.Store(wsrc.RequestSend())
					lastWire.Store(wsrc.LastSend())
				}
			}
		},
	})
	body, err := c.body(req)
	st.bodyLen = len(body)
	if err != nil {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorDecode, "encode request: "+err.Error())
		return
	}
	newRequest := func() (*http.Request, error) {
		hreq, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, newBodyReader(body))
		if err != nil {
			return nil, err
		}
		hreq.ContentLength = int64(len(body))
		hreq.GetBody = func() (io.ReadCloser, error) { return newBodyReader(body), nil }
		hreq.Header = c.header
		return hreq, nil
	}
	hreq, err := newRequest()
	if err != nil {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorConnect, err.Error())
		return
	}
	if rec.SentAt == 0 {
		rec.SentAt = clock.Now()
	}
	resp, err := c.hc.Do(hreq)
	if err != nil && st.reused && ctx.Err() == nil && context.Cause(rctx) == nil &&
		(wrote.Load() == 0 && closedBeforeWrite(err) || peerReset(err)) {
		// The server closed the pooled connection as we wrote to it:
		// the request is sent again, once, on another connection (the
		// transport replays only idempotent methods). The failed attempt
		// is not the server's failure. Either nothing was written, or the
		// peer reset the connection (EPIPE, ECONNRESET) before a byte of
		// response: a server closing an idle keep-alive connection just
		// as our request arrived discards it unread, and its kernel
		// answers the unread bytes with a reset. A POST to a completion
		// endpoint changes nothing on the server, so even a request it
		// did read before failing costs it only the work twice; the
		// record says conn_retried, so nothing is hidden.
		rec.ConnRetried = true
		wrote.Store(0)
		wire.Store(0)
		lastWire.Store(0)
		if hreq, err = newRequest(); err == nil {
			resp, err = c.hc.Do(hreq)
		}
	}
	rec.ConnReused = st.reused
	if err != nil {
		if st.reused && wrote.Load() == 0 && rctx.Err() == nil && closedUnderWrite(err) {
			// Not our cancellation (rctx is live): the server closed the
			// idle keep-alive connection as we wrote on it, and the
			// transport closed its side. The request was never written
			// whole, so the server never processed it.
			c.fail(rec, loadgen.StatusError, loadgen.ErrorNotSent, "the reused keep-alive connection was closed under the request before it was written whole (the server's idle close racing the write); it never reached the server: "+unwrapURL(err).Error())
			return
		}
		c.failErr(ctx, rctx, rec, err, true)
		return
	}
	defer resp.Body.Close()
	rec.HeadersAt = clock.Now()
	if st.src != nil && wrote.Load() != 0 {
		// The request was written, and the connection is not yet
		// another request's (its response is still to be read).
		headerWire, headerLast = st.src.RequestSend(), st.src.LastSend()
	}
	if st.src != nil {
		// The headers' last byte came by the connection's latest read
		// (the transport's reader stops after them).
		st.headersAt = rec.HeadersAt
		rec.HeadersAt = c.kernelTime(rec.HeadersAt, st.src.LastReceive(), rec, st)
	}
	rec.HTTPStatus = resp.StatusCode
	if v := resp.Header.Get(ResponseCostHeader); v != "" {
		rec.ResponseCost = responseCost(v)
	}
	var r io.Reader = resp.Body
	if idle != nil {
		idle.Reset(c.cfg.idleTimeout)
		r = &idleReader{r: resp.Body, t: idle, d: c.cfg.idleTimeout}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(r, maxBody))
		if err != nil && len(b) == 0 && (ctx.Err() != nil || context.Cause(rctx) != nil) {
			c.failErr(ctx, rctx, rec, err, false)
			return
		}
		c.fail(rec, loadgen.StatusError, loadgen.ErrorHTTP, httpErrorMessage(resp.StatusCode, b))
		return
	}
	if !c.cfg.stream {
		c.readBody(ctx, rctx, r, rec, st)
		return
	}
	c.readStream(ctx, rctx, clock, r, resp.Header.Get("Content-Type"), rec, st)
}

// readStream consumes an SSE stream, timing every token-carrying chunk.
// ctype is the response's Content-Type. A body that is not an event stream
// fails with ErrorNotSSE, a stream without a token with ErrorEmptyResponse.
func (c *Client) readStream(ctx, rctx context.Context, clock loadgen.Clock, r io.Reader, ctype string, rec *loadgen.Record, st *streamState) {
	if n := rec.RequestedOutputTokens + 1; cap(rec.ChunkTimes) < n && n <= 1<<16 {
		rec.ChunkTimes = make([]time.Duration, 0, n)
		rec.ChunkTokens = make([]int32, 0, n)
		if st.src != nil {
			rec.ChunkUserTimes = make([]time.Duration, 0, n)
		}
	}
	rec.ChunkTimes, rec.ChunkTokens, rec.ChunkUserTimes = rec.ChunkTimes[:0], rec.ChunkTokens[:0], rec.ChunkUserTimes[:0]
	st.sse.reset(r)
	st.sse.src = st.src
	st.sse.limit, st.sse.budget = c.cfg.maxLineBytes, c.lineBudget
	defer st.sse.reset(nil)
	events, end := 0, "EOF"
	for {
		data, err := st.sse.next()
		now := clock.Now()
		if err == io.EOF {
			break
		}
		if err == errNotSSE {
			c.fail(rec, loadgen.StatusError, loadgen.ErrorNotSSE, fmt.Sprintf("HTTP %d body is not an event stream (Content-Type %q): %s",
				rec.HTTPStatus, ctype, quoteBody(st.sse.notSSE())))
			return
		}
		if err == errSSELineTooLong || err == errSSELineBudget {
			why := fmt.Sprintf("longer than the %d-byte limit", st.sse.maxLine())
			if err == errSSELineBudget {
				why = "longer than the SSE buffer budget shared by all streams had left"
			}
			c.fail(rec, loadgen.StatusError, loadgen.ErrorLineTooLong, fmt.Sprintf("a stream line (or event) %s, after %d events; the connection is closed", why, events))
			return
		}
		if err != nil {
			c.failErr(ctx, rctx, rec, err, false)
			return
		}
		events++
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			// Read the end of the body so the connection can be reused.
			_, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10))
			end = "[DONE]"
			break
		}
		if err := c.chunk(now, st.sse.stamp, data, rec, st); err != nil {
			return
		}
	}
	switch {
	case st.delivered > 0 && end == "EOF" && len(st.finish) == 0:
		// Tokens, then the body ended with neither a finish_reason nor
		// [DONE]: the stream was cut short, whatever closed it.
		c.fail(rec, loadgen.StatusError, loadgen.ErrorDisconnect, fmt.Sprintf("the stream ended (EOF) after %d token chunks with neither a finish_reason nor [DONE]: cut short", st.delivered))
	case st.delivered > 0:
		rec.Status = loadgen.StatusOK
	case !st.sse.started && !isEventStream(ctype):
		c.fail(rec, loadgen.StatusError, loadgen.ErrorNotSSE, fmt.Sprintf("HTTP %d with an empty body (Content-Type %q), not an event stream", rec.HTTPStatus, ctype))
	default:
		c.fail(rec, loadgen.StatusError, loadgen.ErrorEmptyResponse, fmt.Sprintf("the stream ended (%s) after %d events, none carrying a token%s", end, events, c.claims(st)))
	}
}

// isEventStream reports whether a Content-Type names text/event-stream.
func isEventStream(ctype string) bool {
	mt, _, _ := strings.Cut(ctype, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}

// claims describes what a response without tokens said about itself: its
// finish reason and usage.completion_tokens, if any.
func (c *Client) claims(st *streamState) string {
	var b strings.Builder
	if len(st.finish) > 0 {
		fmt.Fprintf(&b, ", finish_reason %s", st.finish)
	}
	switch u := st.usage.completion; {
	case u.bad != "":
		fmt.Fprintf(&b, ", usage.completion_tokens %s", u.bad)
	case u.set:
		fmt.Fprintf(&b, ", usage.completion_tokens %d", u.n)
	}
	return b.String()
}

// quoteBody quotes the first maxBodyQuote bytes of an unexpected body as a
// Go string literal: one line, control bytes and invalid UTF-8 escaped,
// "…" after it when the body was longer.
func quoteBody(b []byte) string {
	if len(b) <= maxBodyQuote {
		return strconv.Quote(string(b))
	}
	cut := maxBodyQuote
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

// chunk handles one data payload that the client had parsed at now and
// whose last byte the kernel received at stamp (CLOCK_REALTIME ns, 0 if
// unknown); a non-nil error means the request failed (rec says how).
func (c *Client) chunk(now time.Duration, stamp int64, data []byte, rec *loadgen.Record, st *streamState) error {
	if err := st.ch.decode(data); err != nil {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorDecode, fmt.Sprintf("SSE data %q: %v", prefix(data, 128), err))
		return err
	}
	if len(st.ch.Error) > 0 || st.ch.isErrorObject() {
		msg := streamError(st.ch.Error)
		if st.ch.isErrorObject() {
			msg = streamError(data)
		}
		c.fail(rec, loadgen.StatusError, loadgen.ErrorInStream, msg)
		return errors.New(msg)
	}
	k := st.ch.classify()
	if st.keepReply {
		st.reply = st.ch.appendContent(st.reply)
	}
	if k.token {
		st.delivered++
		n := k.tokens
		if count := c.cfg.countTokens; count != nil {
			before := len(st.text)
			st.text = st.ch.appendText(st.text)
			if n == 0 {
				n = count(st.text[before:])
			}
		}
		n = max(n, 1)
		at := now
		if st.src != nil {
			at = c.kernelTime(now, stamp, rec, st)
			rec.ChunkUserTimes = append(rec.ChunkUserTimes, now)
		}
		rec.ChunkTimes = append(rec.ChunkTimes, at)
		rec.ChunkTokens = append(rec.ChunkTokens, int32(min(n, 1<<31-1)))
		if rec.FirstTokenAt == 0 {
			rec.FirstTokenAt = at
			st.live.NoteFirstToken(at)
		}
		if k.content && rec.FirstContentAt == 0 {
			rec.FirstContentAt = at
			st.contentAt = len(rec.ChunkTimes) - 1
		}
		rec.LastTokenAt = at
	}
	if fr := st.ch.finishReason(); fr != nil {
		st.finish = append(st.finish[:0], fr...)
	}
	if st.ch.Usage.present {
		st.usage = st.ch.Usage
	}
	return nil
}

// kernelTime converts a chunk's kernel stamp to the run's clock. A chunk
// without a stamp, or whose stamp lies outside [rec.SentAt, now] (where
// no byte of the response can have arrived), makes the record fall back
// to the user clock (settleClock); its user stamp stands in meanwhile.
func (c *Client) kernelTime(now time.Duration, stamp int64, rec *loadgen.Record, st *streamState) time.Duration {
	at := time.Duration(stamp - st.off)
	switch {
	case stamp == 0:
		if st.rxNote == "" {
			st.rxNote = "a read without a kernel receive stamp"
		}
		return now
	case at > now || at < rec.SentAt:
		if st.rxNote == "" {
			st.rxNote = "a kernel receive stamp fell outside [sent_at, read]"
		}
		return now
	}
	return at
}

// readBody handles a non-streaming response: no TTFT, usage from the body.
func (c *Client) readBody(ctx, rctx context.Context, r io.Reader, rec *loadgen.Record, st *streamState) {
	b, err := io.ReadAll(io.LimitReader(r, maxBody))
	if err != nil {
		c.failErr(ctx, rctx, rec, err, false)
		return
	}
	if len(bytes.TrimSpace(b)) == 0 {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorEmptyResponse, fmt.Sprintf("HTTP %d with an empty body", rec.HTTPStatus))
		return
	}
	if err := st.ch.decode(b); err != nil {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorDecode, fmt.Sprintf("response body %q: %v", prefix(b, 128), err))
		return
	}
	if len(st.ch.Error) > 0 {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorInStream, streamError(st.ch.Error))
		return
	}
	if st.ch.isErrorObject() {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorInStream, streamError(b))
		return
	}
	if c.cfg.countTokens != nil {
		st.text = st.ch.appendText(st.text)
	}
	if st.keepReply {
		st.reply = st.ch.appendContent(st.reply)
	}
	if fr := st.ch.finishReason(); fr != nil {
		st.finish = append(st.finish[:0], fr...)
	}
	st.usage = st.ch.Usage
	if !st.ch.classify().token {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorEmptyResponse, fmt.Sprintf("the response body carried no generated text%s: %s", c.claims(st), quoteBody(b)))
		return
	}
	st.delivered = 1
	rec.Status = loadgen.StatusOK
}

// finish fills the token counts and their sources
// (docs/metrics.md#isl-and-osl). The server's usage counts are judged first
// (usageCount): an impossible one is noted in rec.UsageRejected and not used.
// The server's output count is used only when tokens were delivered: a
// response without any counts 0.
func (c *Client) finish(req *loadgen.Request, rec *loadgen.Record, st *streamState) {
	if len(st.finish) > 0 {
		rec.FinishReason = rawJSON(st.finish).str()
	}
	if req.KeepReply {
		req.Reply = string(st.reply)
	}
	prompt, promptOK, promptNote := usageCount("prompt_tokens", st.usage.prompt, 0)
	out, outOK, outNote := usageCount("completion_tokens", st.usage.completion, st.delivered)
	cachedNote := c.cachedCount(rec, st.usage.cached, prompt, promptOK)
	if rec.ResponseCost == nil && st.usage.cost.set {
		// A LiteLLM proxy sends no cost header on a stream (its headers
		// leave before the cost is known) and puts the cost in the final
		// usage chunk instead; the header wins where both came.
		v := st.usage.cost.v
		rec.ResponseCost = &v
	}
	var notes []string
	for _, n := range []string{promptNote, outNote, cachedNote} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	rec.UsageRejected = strings.Join(notes, "; ")
	if promptOK {
		rec.ServerPromptTokens = prompt
	}
	if outOK {
		rec.ServerOutputTokens = out
	}
	if c.cfg.countTokens != nil {
		rec.LocalOutputTokens = c.cfg.countTokens(st.text)
	}
	if req.PromptTokensSource == loadgen.SourceTokenizer {
		rec.LocalPromptTokens = req.PromptTokens
	}
	rec.PromptTemplated = c.cfg.endpoint == Chat || req.Chat != nil
	switch {
	case outOK && st.delivered > 0:
		rec.OutputTokens, rec.OutputTokensSource = out, loadgen.SourceServer
	case c.cfg.countTokens != nil:
		rec.OutputTokens, rec.OutputTokensSource = rec.LocalOutputTokens, loadgen.SourceTokenizer
	case c.cfg.stream:
		n := 0
		for _, k := range rec.ChunkTokens {
			n += int(k)
		}
		rec.OutputTokens, rec.OutputTokensSource = n, loadgen.SourceChunks
	default:
		rec.OutputTokens, rec.OutputTokensSource = 0, loadgen.SourceNone
	}
	switch {
	case promptOK && prompt > 0:
		rec.PromptTokens, rec.PromptTokensSource = prompt, loadgen.SourceServer
	case req.PromptTokens > 0:
		rec.PromptTokens, rec.PromptTokensSource = req.PromptTokens, req.PromptTokensSource
		if rec.PromptTokensSource == loadgen.SourceNone {
			rec.PromptTokensSource = loadgen.SourceDataset
		}
	}
}

// ResponseCostHeader is the response header in which a LiteLLM proxy gives
// the response's cost, in the currency of its prices. The client copies it
// into Record.ResponseCost; without it, the usage object's "cost" (a
// LiteLLM proxy's streams, OpenRouter) is taken.
const ResponseCostHeader = "x-litellm-response-cost"

// responseCost parses the ResponseCostHeader's value: a finite number >= 0,
// else nil (the header is then ignored).
func responseCost(v string) *float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	return &f
}

// usageCount judges one member of the server's usage object. ok is false
// when the member is absent or impossible; note says why it was rejected
// ("" when absent or accepted). delivered is the number of token-carrying
// chunks (1 for a non-streaming body with text): a completion count of 0
// beside delivered text is impossible.
func usageCount(name string, c count, delivered int) (n int, ok bool, note string) {
	switch {
	case !c.set:
		return 0, false, ""
	case c.bad != "":
		return 0, false, fmt.Sprintf("usage.%s %s is not a token count", name, c.bad)
	case c.n < 0:
		return 0, false, fmt.Sprintf("usage.%s %d is negative", name, c.n)
	case c.n > MaxUsageTokens:
		return 0, false, fmt.Sprintf("usage.%s %d exceeds %d, longer than any context window", name, c.n, MaxUsageTokens)
	case c.n == 0 && delivered > 0 && name == "completion_tokens":
		return 0, false, fmt.Sprintf("usage.%s is 0 but generated text arrived", name)
	}
	return int(c.n), true, ""
}

// fail records a failure, keeping the first one.
func (c *Client) fail(rec *loadgen.Record, s loadgen.Status, k loadgen.ErrorKind, msg string) {
	if rec.ErrorKind != loadgen.ErrorNone {
		return
	}
	// The message quotes the server: no terminal control in it reaches
	// requests.jsonl, the reports or the console.
	rec.Status, rec.ErrorKind, rec.ErrorMessage = s, k, termtext.Escape(truncate(redact.Scrub(msg, c.secrets)))
}

// failErr classifies a transport or read error. ctx is the run's context,
// rctx the request's. beforeResponse is true when no headers came back.
func (c *Client) failErr(ctx, rctx context.Context, rec *loadgen.Record, err error, beforeResponse bool) {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the message without the URL
	}
	switch cause := context.Cause(rctx); {
	case ctx.Err() != nil:
		c.fail(rec, loadgen.StatusCancelled, loadgen.ErrorCancelled, "cancelled: "+context.Cause(ctx).Error())
		return
	case errors.Is(cause, errIdleTimeout):
		c.fail(rec, loadgen.StatusTimeout, loadgen.ErrorIdleTimeout, fmt.Sprintf("no byte received for %v", c.cfg.idleTimeout))
		return
	case errors.Is(cause, errRequestTimeout):
		c.fail(rec, loadgen.StatusTimeout, loadgen.ErrorTimeout, fmt.Sprintf("request took longer than %v", c.cfg.requestTimeout))
		return
	}
	if isClientResourceError(err) {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorClientResource, "client out of resources, nothing reached the server: "+err.Error())
		return
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.fail(rec, loadgen.StatusTimeout, loadgen.ErrorTimeout, err.Error())
		return
	}
	if beforeResponse && isConnectError(err) {
		c.fail(rec, loadgen.StatusError, loadgen.ErrorConnect, err.Error())
		return
	}
	c.fail(rec, loadgen.StatusError, loadgen.ErrorDisconnect, err.Error())
}

// closedUnderWrite reports a write that failed because the connection was
// closed: locally (net.ErrClosed, "use of closed network connection"), or
// by the peer (EPIPE, ECONNRESET).
func closedUnderWrite(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" {
		return false
	}
	return errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// peerReset reports a connection the peer reset or closed under us:
// EPIPE on a write, ECONNRESET on a read or write. Unlike net.ErrClosed, it
// is never our own close (a cancellation).
func peerReset(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// unwrapURL returns err without the *url.Error around it, whose message
// repeats the URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// isClientResourceError reports a failure of the client's own resources:
// too many open files in the process (EMFILE) or the system (ENFILE), no
// free ephemeral port or local address (EADDRNOTAVAIL), no socket buffer
// (ENOBUFS). The dial or socket call failed here, so nothing was sent.
func isClientResourceError(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.ENOBUFS)
}

// isConnectError reports a dial, DNS or TLS failure: nothing was sent.
func isConnectError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	var cv *tls.CertificateVerificationError
	var rh tls.RecordHeaderError
	return errors.As(err, &dns) || errors.As(err, &cv) || errors.As(err, &rh)
}

// httpErrorMessage extracts the message of a non-2xx response body: an
// OpenAI error object, a vLLM/FastAPI "message" or "detail", or plain text.
func httpErrorMessage(status int, body []byte) string {
	msg := ""
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		switch {
		case len(v.Error) > 0 && string(v.Error) != "null":
			msg = streamError(v.Error)
		case v.Message != "":
			msg = v.Message
		case len(v.Detail) > 0:
			msg = streamError(v.Detail)
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return fmt.Sprintf("HTTP %d: %s", status, msg)
}

// truncate cuts s to maxErrorMessage bytes at a rune boundary and replaces
// invalid UTF-8.
func truncate(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxErrorMessage {
		return s
	}
	cut := maxErrorMessage - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// prefix returns at most n bytes of b.
func prefix(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// idleReader resets the idle timer whenever bytes arrive.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.t.Reset(ir.d)
	}
	return n, err
}

// closedBeforeWrite reports whether err is the transport's failure to
// write a request on a pooled connection that the server had already
// closed: its own close while we wrote (net.ErrClosed, "use of closed
// network connection"), a reset or broken pipe, or an EOF before any
// response. The caller retries only when the request was not written.
func closedBeforeWrite(err error) bool {
	switch {
	case errors.Is(err, net.ErrClosed), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF):
		return true
	}
	return strings.Contains(err.Error(), "server closed idle connection")
}
