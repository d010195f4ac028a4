package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/jsonstring"
)

// Option configures a Server.
type Option func(*options)

type options struct {
	count       func(string) int
	counted     bool // count is not HeuristicTokens (WithTokenCounter)
	groundTruth bool
	logger      *slog.Logger
}

// WithTokenCounter counts prompt tokens (usage.prompt_tokens and the
// prefill cost) with count, typically the served tokenizer's Count, instead
// of HeuristicTokens. count must be safe for concurrent use.
func WithTokenCounter(count func(string) int) Option {
	return func(o *options) { o.count, o.counted = count, true }
}

// WithGroundTruth makes the server keep a RequestTrace of every request,
// read with GroundTruth. It costs memory per request: use it in tests and
// short runs.
func WithGroundTruth() Option {
	return func(o *options) { o.groundTruth = true }
}

// WithLogger sets the logger for the HTTP server's own errors (default:
// discard).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// Server is a simulated OpenAI-compatible inference server. Build it with
// New, serve it with Start or mount Handler, and always Close it: New
// starts the scheduler goroutine. All methods are safe for concurrent use.
type Server struct {
	cfg   Config
	fault Fault
	opts  options
	vocab []string

	model     string
	modelJSON []byte
	created   int64
	handler   http.Handler

	sched *scheduler
	cache *prefixCache // nil: off
	stop  chan struct{}
	wg    sync.WaitGroup

	ids   atomic.Uint64
	cold  atomic.Int64 // generation requests admitted, for Config.ColdRequests
	rngMu sync.Mutex
	rng   *rand.Rand

	promptTokens  atomic.Int64
	cachedTokens  atomic.Int64
	successLength atomic.Int64
	successStop   atomic.Int64

	gtMu   sync.Mutex
	traces []RequestTrace

	srvMu     sync.Mutex
	srv       *http.Server
	closeOnce sync.Once
	closeErr  error
}

// New validates cfg and returns a Server whose scheduler is running.
func New(cfg Config, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fault, _ := ParseFault(cfg.Fault) // validated above
	s := &Server{
		cfg:     cfg,
		fault:   fault,
		vocab:   vocabulary(),
		model:   cfg.model(),
		created: time.Now().Unix(),
		sched:   newScheduler(cfg),
		cache:   newPrefixCache(cfg.PrefixCacheBlockTokens, cfg.PrefixCacheBlocks),
		stop:    make(chan struct{}),
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x6d6f636b)),
	}
	s.opts.count = HeuristicTokens
	for _, o := range opts {
		o(&s.opts)
	}
	if s.opts.logger == nil {
		s.opts.logger = slog.New(slog.DiscardHandler)
	}
	s.modelJSON = jsonstring.Append(nil, s.model)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, false) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, true) })
	if !cfg.NoTokenize {
		mux.HandleFunc("POST /tokenize", s.serveTokenize)
	}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.handler = mux
	s.wg.Go(func() { s.sched.run(s.stop) })
	return s, nil
}

// Config returns the server's configuration.
func (s *Server) Config() Config { return s.cfg }

// Handler returns the HTTP handler serving every endpoint; mount it in
// httptest.NewServer or your own http.Server.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on Config.Addr (default 127.0.0.1:0) and serves in the
// background until ctx is cancelled or Close is called. It returns the
// base URL, e.g. "http://127.0.0.1:41234" (append /v1/...). A Server can
// be started once.
func (s *Server) Start(ctx context.Context) (string, error) {
	addr := s.cfg.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.srv != nil {
		return "", errors.New("mockserver: Start called twice")
	}
	select {
	case <-s.stop:
		return "", errors.New("mockserver: Start after Close")
	default:
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mockserver: listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.logger.Handler(), slog.LevelDebug),
	}
	s.srv = srv
	s.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opts.logger.Error("mockserver: serve", "err", err)
		}
	})
	s.wg.Go(func() {
		select {
		case <-ctx.Done():
			s.shutdown()
		case <-s.stop:
		}
	})
	return "http://" + ln.Addr().String(), nil
}

// Close stops the scheduler (waiting requests end at once), closes the
// listener and connections opened by Start, and waits for the server's
// goroutines. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.closeErr = s.shutdown()
		s.wg.Wait()
	})
	return s.closeErr
}

func (s *Server) shutdown() error {
	s.srvMu.Lock()
	srv := s.srv
	s.srvMu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

// Stats is a snapshot of the server's counters (the /metrics values).
type Stats struct {
	Running, Waiting int64 // sequences in service and queued
	PromptTokens     int64 // prompt tokens admitted
	CachedTokens     int64 // ... of which the prefix cache served (not prefilled)
	GenerationTokens int64 // tokens generated
	SuccessLength    int64 // requests finished with "length"
	SuccessStop      int64 // requests finished with "stop"
	Steps            int64 // batch scheduler steps taken
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	return Stats{
		Running:          s.sched.running.Load(),
		Waiting:          s.sched.waiting.Load(),
		PromptTokens:     s.promptTokens.Load(),
		CachedTokens:     s.cachedTokens.Load(),
		GenerationTokens: s.sched.generated.Load(),
		SuccessLength:    s.successLength.Load(),
		SuccessStop:      s.successStop.Load(),
		Steps:            s.sched.steps.Load(),
	}
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	b := []byte(`{"object":"list","data":[{"id":`)
	b = append(b, s.modelJSON...)
	b = append(b, `,"object":"model","created":`...)
	b = appendInt(b, s.created)
	b = append(b, `,"owned_by":"gollm-bench","root":`...)
	b = append(b, s.modelJSON...)
	b = append(b, `,"parent":null}]}`...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// serveTokenize answers POST /tokenize in vLLM's shape: {"model",
// "prompt"} or {"model", "messages"} counted as usage.prompt_tokens counts
// them, answered {"count": N}. The mock has no token ids, so it sends the
// count alone. add_special_tokens is accepted and changes nothing: the
// mock adds no special tokens.
func (s *Server) serveTokenize(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, false, "mockserver: reading body: "+err.Error())
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, false, "mockserver: body is not valid JSON: "+err.Error())
		return
	}
	if req.Model != "" && req.Model != s.model {
		writeError(w, http.StatusNotFound, false, fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	_, n, err := s.promptOf(&req, len(req.Messages) > 0)
	if err != nil {
		writeError(w, http.StatusBadRequest, false, "mockserver: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(appendInt([]byte(`{"count":`), int64(n)), '}'))
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	st := s.Stats()
	label := `model_name="` + promEscape(s.model) + `"`
	var b strings.Builder
	metric := func(name, typ, help string, lines ...string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
		fmt.Sprintf("vllm:num_requests_running{%s} %d", label, st.Running))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
		fmt.Sprintf("vllm:num_requests_waiting{%s} %d", label, st.Waiting))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
		fmt.Sprintf("vllm:prompt_tokens_total{%s} %d", label, st.PromptTokens))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
		fmt.Sprintf("vllm:generation_tokens_total{%s} %d", label, st.GenerationTokens))
	metric("vllm:request_success_total", "counter", "Count of successfully processed requests.",
		fmt.Sprintf(`vllm:request_success_total{finished_reason="length",%s} %d`, label, st.SuccessLength),
		fmt.Sprintf(`vllm:request_success_total{finished_reason="stop",%s} %d`, label, st.SuccessStop))
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	io.WriteString(w, b.String())
}

func promEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// apiRequest is the subset of the OpenAI completions and chat bodies the
// mock reads.
type apiRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []apiMessage    `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           int             `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// promptOf returns the prompt text and its token count.
func (s *Server) promptOf(req *apiRequest, chat bool) (string, int, error) {
	if chat {
		if len(req.Messages) == 0 {
			return "", 0, errors.New("messages: at least one message is required")
		}
		// Each message is counted on its own, as a chat template
		// tokenizes each message's content between its own markers.
		var sb strings.Builder
		n := 0
		for i, m := range req.Messages {
			text, err := contentText(m.Content)
			if err != nil {
				return "", 0, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			if i > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(text)
			n += s.opts.count(text)
		}
		return sb.String(), n + s.cfg.ChatTemplateTokens*len(req.Messages), nil
	}
	raw := req.Prompt
	if len(raw) == 0 || string(raw) == "null" {
		return "", 0, errors.New("prompt: required")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, s.opts.count(text), nil
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err == nil {
		return "", len(ids), nil
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err == nil && len(texts) == 1 {
		return texts[0], s.opts.count(texts[0]), nil
	}
	return "", 0, errors.New("prompt: use a string, a one-element string array or a token-id array (the mock serves one prompt per request)")
}

func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("use a string or an array of {type, text} parts")
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	return sb.String(), nil
}

// plan is what a request will generate.
type plan struct {
	target  int    // tokens the scheduler generates (EOS included)
	visible int    // tokens sent as text
	finish  string // "length" or "stop"
	eos     bool   // the last generated token is an invisible EOS
}

func (s *Server) planOf(req *apiRequest, prompt string) (plan, error) {
	if s.cfg.OutputTokens > 0 {
		n := s.cfg.OutputTokens
		return plan{target: n, visible: n, finish: "length"}, nil
	}
	maxT := s.cfg.defaultMaxTokens()
	field := "max_tokens"
	switch {
	case req.MaxCompletionTokens != nil:
		maxT, field = *req.MaxCompletionTokens, "max_completion_tokens"
	case req.MaxTokens != nil:
		maxT = *req.MaxTokens
	}
	if maxT < 1 {
		return plan{}, fmt.Errorf("%s is %d: it must be at least 1", field, maxT)
	}
	if req.MinTokens < 0 || req.MinTokens > maxT {
		return plan{}, fmt.Errorf("min_tokens is %d: it must be in [0, %s=%d]", req.MinTokens, field, maxT)
	}
	if req.IgnoreEOS {
		return plan{target: maxT, visible: maxT, finish: "length"}, nil
	}
	// Without ignore_eos the mock "samples" EOS at a seeded length L in
	// [min_tokens+1, max_tokens]; L == max_tokens ends by length.
	lo := req.MinTokens + 1
	if lo >= maxT {
		return plan{target: maxT, visible: maxT, finish: "length"}, nil
	}
	l := lo + int(hash64(s.cfg.Seed, prompt)%uint64(maxT-lo+1))
	if l == maxT {
		return plan{target: maxT, visible: maxT, finish: "length"}, nil
	}
	return plan{target: l, visible: l - 1, finish: "stop", eos: true}, nil
}

func (s *Server) drawError() bool {
	if s.cfg.ErrorRate <= 0 {
		return false
	}
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64() < s.cfg.ErrorRate
}

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, text bool, msg string) {
	if text {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(appendErrorJSON(nil, status, msg))
}

// writeBody answers HTTP 200 with the body of the body=KIND fault.
func writeBody(w http.ResponseWriter, kind string) {
	var ctype, body string
	switch kind {
	case BodyHTML:
		ctype = "text/html; charset=utf-8"
		body = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body><h1>Sign in to continue</h1><form action=\"/login\"></form></body></html>\n"
	case BodyJSON:
		ctype, body = "application/json", `{"status":"ok"}`
	case BodyText:
		ctype, body = "text/plain; charset=utf-8", "OK\n"
	}
	if ctype == "" { // BodyEmpty: no Content-Type, and nothing to sniff one from
		w.Header()["Content-Type"] = nil
	} else {
		w.Header().Set("Content-Type", ctype)
	}
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
}

func appendErrorJSON(b []byte, status int, msg string) []byte {
	typ := strings.ReplaceAll(http.StatusText(status), " ", "")
	if typ == "" {
		typ = "Error"
	}
	b = append(b, `{"error":{"message":`...)
	b = jsonstring.Append(b, msg)
	b = append(b, `,"type":`...)
	b = jsonstring.Append(b, typ)
	b = append(b, `,"param":null,"code":`...)
	b = appendInt(b, int64(status))
	return append(b, "}}"...)
}

func (s *Server) serveGenerate(w http.ResponseWriter, r *http.Request, chat bool) {
	tr := &RequestTrace{Arrival: time.Now(), Endpoint: "completions"}
	if chat {
		tr.Endpoint = "chat"
	}
	if s.opts.groundTruth {
		defer s.record(tr)
	}
	fail := func(status int, text bool, msg string) {
		tr.Status, tr.Error = status, msg
		writeError(w, status, text, msg)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		fail(http.StatusBadRequest, false, "mockserver: reading body: "+err.Error())
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, false, "mockserver: body is not valid JSON: "+err.Error())
		return
	}
	prompt, promptTokens, err := s.promptOf(&req, chat)
	if err != nil {
		fail(http.StatusBadRequest, false, "mockserver: "+err.Error())
		return
	}
	tr.Prompt, tr.PromptTokens = prompt, promptTokens
	if req.Model != "" && req.Model != s.model {
		fail(http.StatusNotFound, false, fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	f := s.fault
	if err := f.apply(r.Header.Get(FaultHeader)); err != nil {
		fail(http.StatusBadRequest, false, "mockserver: "+err.Error())
		return
	}
	p, err := s.planOf(&req, prompt)
	if err != nil {
		fail(http.StatusBadRequest, false, "mockserver: "+err.Error())
		return
	}
	n := s.ids.Add(1)
	tr.ID = "cmpl-" + strconv.FormatUint(n, 10)
	if chat {
		tr.ID = "chat" + tr.ID
	}
	w.Header().Set("X-Request-Id", tr.ID)
	if f.ResponseCost != "" {
		w.Header().Set("X-Litellm-Response-Cost", f.ResponseCost)
	}
	if s.drawError() {
		fail(s.cfg.errorStatus(), false, "mockserver: injected error (ErrorRate)")
		return
	}
	if f.HTTPStatus != 0 {
		fail(f.HTTPStatus, f.HTTPText, fmt.Sprintf("mockserver: injected HTTP %d (%s)", f.HTTPStatus, FaultHeader))
		return
	}
	if f.Body != "" {
		tr.Status, tr.Error = http.StatusOK, "body="+f.Body+" (injected)"
		writeBody(w, f.Body)
		return
	}
	ctx := r.Context()
	if f.SlowHeaders > 0 && !s.sleep(ctx, f.SlowHeaders) {
		tr.Error = "cancelled"
		return
	}
	if s.cfg.ColdRequests > 0 && s.cold.Add(1) <= int64(s.cfg.ColdRequests) && !s.sleep(ctx, s.cfg.ColdDelay) {
		tr.Error = "cancelled"
		return
	}
	tr.CachedTokens = s.cachedPrefix(prompt, promptTokens)
	q := newSequence(promptTokens-tr.CachedTokens, p.target)
	defer q.cancelled.Store(true) // frees its batch slot if it is still running
	s.promptTokens.Add(int64(promptTokens))
	s.sched.submit(q)
	g := &generation{
		s: s, w: w, rc: http.NewResponseController(w), q: q, p: p, f: f, tr: tr,
		chat: chat, seed: hash64(s.cfg.Seed, prompt), usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
	}
	if req.Stream {
		g.stream(ctx)
	} else {
		g.whole(ctx)
	}
}

func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

// waitTokens blocks until the scheduler has produced more tokens for q.
func (s *Server) waitTokens(ctx context.Context, q *sequence) bool {
	select {
	case <-q.wake:
		return true
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

func (s *Server) succeeded(finish string) {
	if finish == "stop" {
		s.successStop.Add(1)
	} else {
		s.successLength.Add(1)
	}
}
