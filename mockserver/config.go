package mockserver

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"
)

// Scheduler names the mock's latency model (see the package overview).
type Scheduler string

const (
	// SchedulerFixed gives every request a fixed TTFT (plus PrefillPerToken
	// per prompt token) and then one token every ITL, independent of load.
	// MaxBatch, if positive, caps the requests in service; the rest wait
	// in a FIFO queue. The empty Scheduler means SchedulerFixed.
	SchedulerFixed Scheduler = "fixed"
	// SchedulerBatch is a vLLM-like continuous-batching engine: one global
	// decode step at a time, step = ITLBase + ITLPerSeq × batch +
	// PrefillPerToken × (prompt tokens admitted in the step), at most
	// MaxBatch running sequences, FIFO queue beyond.
	SchedulerBatch Scheduler = "batch"
)

// Default values used where a Config field is left at its zero value.
const (
	// DefaultModel is the served model id when Config.Model is empty.
	DefaultModel = "mock-model"
	// DefaultMaxTokens is the output length, in tokens, when a request
	// gives neither max_tokens nor max_completion_tokens (OpenAI's
	// completions default).
	DefaultMaxTokens = 16
	// DefaultAddr is the listen address of Start when Config.Addr is empty.
	DefaultAddr = "127.0.0.1:0"
)

// Config describes a mock server. It is a plain value; the zero Config is
// an instant server (fixed scheduler, TTFT 0, ITL 0, no batch limit, no
// faults) serving DefaultModel. Durations are wall-clock time.Duration.
type Config struct {
	// Addr is the listen address used by Start ("" = 127.0.0.1:0).
	Addr string
	// Model is the id served by /v1/models and expected in requests
	// ("" = DefaultModel). A request naming another model gets a 404,
	// as vLLM does; a request with no model is accepted.
	Model string

	// Scheduler selects the latency model ("" = SchedulerFixed).
	Scheduler Scheduler
	// MaxBatch is B, the most sequences in service at once (vLLM's
	// max_num_seqs); 0 means unlimited. Requests beyond B wait in a FIFO queue.
	MaxBatch int
	// PrefillPerToken is the prefill cost per prompt token. Batch: added
	// to the step that admits the prompt. Fixed: added to TTFT.
	PrefillPerToken time.Duration
	// ITLBase is the fixed part of a batch decode step (batch scheduler).
	ITLBase time.Duration
	// ITLPerSeq is the cost of a batch decode step per running sequence
	// (batch scheduler).
	ITLPerSeq time.Duration
	// TTFT is the time from admission to the first token (fixed scheduler).
	TTFT time.Duration
	// ITL is the time between consecutive tokens (fixed scheduler); 0
	// makes all tokens available at once, at TTFT.
	ITL time.Duration

	// OutputTokens, when positive, makes every request generate exactly
	// this many tokens (finish_reason "length"), overriding max_tokens
	// and ignore_eos: the fixed OSL of client benchmarks.
	OutputTokens int
	// DefaultMaxTokens is the output length when a request sets no limit
	// (0 = DefaultMaxTokens).
	DefaultMaxTokens int
	// ChatTemplateTokens is added to usage.prompt_tokens per chat message,
	// standing in for the chat template (0 = none).
	ChatTemplateTokens int
	// NoTokenize turns off POST /tokenize, as on a server that has no
	// tokenize endpoint (it then answers 404).
	NoTokenize bool

	// PrefixCacheBlockTokens, when positive, turns on the prefix cache:
	// prompts are cut into blocks of this many tokens (vLLM's default
	// block is 16; 64 is coarser), a prompt's leading run of blocks
	// already seen is served from the cache and not charged to prefill,
	// and usage.prompt_tokens_details.cached_tokens reports it. A block
	// is known by its content and everything before it, so only a shared
	// prefix hits. The blocks of every prompt admitted, and of every
	// finished request's prompt and output together (what the next turn
	// of a chat starts with), are kept, least recently used first out.
	// 0, the default, is off: every prompt token is prefilled and no
	// cached_tokens is reported.
	PrefixCacheBlockTokens int
	// PrefixCacheBlocks is the cache's capacity, blocks (0 =
	// DefaultPrefixCacheBlocks).
	PrefixCacheBlocks int

	// ErrorRate is the probability, in [0, 1], that a request is answered
	// with ErrorStatus instead of being served. Draws come from Seed, in
	// arrival order.
	ErrorRate float64
	// ErrorStatus is the HTTP status of ErrorRate failures (0 = 500).
	ErrorStatus int
	// Fault is a fault spec in the X-Mock-Fault grammar (see ParseFault)
	// applied to every request; a request's header adds to it.
	Fault string
	// Seed seeds the error draws and the early-stop lengths of requests
	// without ignore_eos.
	Seed uint64

	// ColdRequests and ColdDelay stand for a cold engine (kernels not yet
	// compiled, an empty allocator, cold caches): the first ColdRequests
	// generation requests the server admits each wait ColdDelay before
	// they are served, so that their TTFT is ColdDelay longer. 0: a warm
	// engine from the first request.
	ColdRequests int
	ColdDelay    time.Duration
}

// Validate reports every problem in c at once (errors.Join), each naming
// the field and how to fix it.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Scheduler {
	case "", SchedulerFixed, SchedulerBatch:
	default:
		bad("mockserver: Scheduler %q is unknown: use %q or %q", c.Scheduler, SchedulerFixed, SchedulerBatch)
	}
	if c.MaxBatch < 0 {
		bad("mockserver: MaxBatch is %d: use 0 (unlimited) or a positive batch size", c.MaxBatch)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"PrefillPerToken", c.PrefillPerToken}, {"ITLBase", c.ITLBase}, {"ITLPerSeq", c.ITLPerSeq}, {"TTFT", c.TTFT}, {"ITL", c.ITL}} {
		if d.v < 0 {
			bad("mockserver: %s is %v: durations must be >= 0", d.name, d.v)
		}
	}
	if c.Scheduler == SchedulerBatch && c.ITLBase+c.ITLPerSeq <= 0 {
		bad("mockserver: the batch scheduler needs ITLBase + ITLPerSeq > 0 (a zero-length step would spin); use the fixed scheduler for instant tokens")
	}
	if c.ColdRequests < 0 || c.ColdDelay < 0 {
		bad("mockserver: ColdRequests %d and ColdDelay %v: must be >= 0", c.ColdRequests, c.ColdDelay)
	}
	if c.OutputTokens < 0 {
		bad("mockserver: OutputTokens is %d: use 0 (honour max_tokens) or a positive count", c.OutputTokens)
	}
	if c.DefaultMaxTokens < 0 {
		bad("mockserver: DefaultMaxTokens is %d: use 0 (default %d) or a positive count", c.DefaultMaxTokens, DefaultMaxTokens)
	}
	if c.ChatTemplateTokens < 0 {
		bad("mockserver: ChatTemplateTokens is %d: must be >= 0", c.ChatTemplateTokens)
	}
	if c.PrefixCacheBlockTokens < 0 {
		bad("mockserver: PrefixCacheBlockTokens is %d: use 0 (no prefix cache) or a block size in tokens, e.g. 16", c.PrefixCacheBlockTokens)
	}
	if c.PrefixCacheBlocks < 0 {
		bad("mockserver: PrefixCacheBlocks is %d: use 0 (default %d) or a positive number of blocks", c.PrefixCacheBlocks, DefaultPrefixCacheBlocks)
	}
	if !(c.ErrorRate >= 0 && c.ErrorRate <= 1) {
		bad("mockserver: ErrorRate is %v: use a probability in [0, 1]", c.ErrorRate)
	}
	if c.ErrorStatus != 0 && (c.ErrorStatus < 400 || c.ErrorStatus > 599) {
		bad("mockserver: ErrorStatus is %d: use 0 (500) or a status in 400..599", c.ErrorStatus)
	}
	if _, err := ParseFault(c.Fault); err != nil {
		bad("mockserver: Fault: %w", err)
	}
	return errors.Join(errs...)
}

func (c Config) model() string {
	if c.Model == "" {
		return DefaultModel
	}
	return c.Model
}

func (c Config) defaultMaxTokens() int {
	if c.DefaultMaxTokens == 0 {
		return DefaultMaxTokens
	}
	return c.DefaultMaxTokens
}

func (c Config) errorStatus() int {
	if c.ErrorStatus == 0 {
		return 500
	}
	return c.ErrorStatus
}

func (c Config) batch() bool { return c.Scheduler == SchedulerBatch }

// presets are the named configurations; see Preset. A function, not a
// package variable, so nobody can mutate them.
func presets() map[string]Config {
	return map[string]Config{
		// demo: a small vLLM-like engine whose SLO knee (ISL 256, OSL 64,
		// ttft_p99<=500ms, itl_p95<=50ms) is ≈21.6 req/s; docs/mock-server.md
		// derives it.
		"demo": {
			Scheduler:       SchedulerBatch,
			MaxBatch:        128,
			PrefillPerToken: 20 * time.Microsecond,
			ITLBase:         10 * time.Millisecond,
			ITLPerSeq:       500 * time.Microsecond,
		},
		// demo-cache: demo with a prefix cache of 16-token blocks, so
		// that the later turns of a multi-turn session, whose prompt
		// starts with the conversation so far, prefill only what is new.
		"demo-cache": {
			Scheduler:              SchedulerBatch,
			MaxBatch:               128,
			PrefillPerToken:        20 * time.Microsecond,
			ITLBase:                10 * time.Millisecond,
			ITLPerSeq:              500 * time.Microsecond,
			PrefixCacheBlockTokens: 16,
		},
		// fast: fixed TTFT 20 ms, ITL 5 ms, no batch limit; for measuring
		// the client's own overhead against known truth.
		"fast": {
			Scheduler: SchedulerFixed,
			TTFT:      20 * time.Millisecond,
			ITL:       5 * time.Millisecond,
		},
		// instant: every token at once, no latency: the mock's maximum
		// request rate.
		"instant": {Scheduler: SchedulerFixed},
	}
}

// Preset returns the named configuration: "demo" (batch scheduler with a
// knee near 21.6 req/s at ISL 256 / OSL 64), "demo-cache" (demo with a
// prefix cache of 16-token blocks), "fast" (fixed TTFT 20 ms, ITL 5 ms)
// or "instant" (no latency). An unknown name is an error listing the
// known ones.
func Preset(name string) (Config, error) {
	p, ok := presets()[name]
	if !ok {
		return Config{}, fmt.Errorf("mockserver: unknown preset %q: use one of %v", name, PresetNames())
	}
	return p, nil
}

// PresetNames returns the names Preset knows, sorted.
func PresetNames() []string {
	var names []string
	for n := range presets() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckAddr checks a listen address (Config.Addr): HOST:PORT with a port
// from 0 to 65535 (0: any free port), HOST empty for every interface. Its
// error quotes addr and says how to write it.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want HOST:PORT, e.g. 127.0.0.1:8000 (or 127.0.0.1:0 for any free port)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535; want HOST:PORT, e.g. %s:8000", addr, port, cmp.Or(host, "127.0.0.1"))
	}
	return nil
}
