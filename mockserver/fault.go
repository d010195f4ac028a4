package mockserver

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// FaultHeader is the request header that injects faults into one request,
// in the grammar of ParseFault, e.g. "X-Mock-Fault: tokens-per-chunk=4, crlf".
const FaultHeader = "X-Mock-Fault"

// Fault is a parsed set of injected faults (docs/mock-server.md#faults). The
// zero Fault injects nothing. Counts K are token-carrying chunks already
// written.
type Fault struct {
	// HTTPStatus, when non-zero, answers with this status (400..599) and
	// an OpenAI-style JSON error body (HTTPText: a text/plain body), no stream.
	HTTPStatus int
	HTTPText   bool
	// ErrorInStream sends `data: {"error": {...}}` inside the HTTP 200
	// stream after ErrorAfter token chunks, then ends it without [DONE].
	ErrorInStream bool
	ErrorAfter    int
	// Disconnect aborts the connection after DisconnectAfter token chunks
	// (no terminating chunk, no [DONE]).
	Disconnect      bool
	DisconnectAfter int
	// SlowHeaders delays the response headers.
	SlowHeaders time.Duration
	// Stall pauses the stream for Stall after StallAfter token chunks.
	Stall      time.Duration
	StallAfter int
	// TokensPerChunk puts this many tokens in each content chunk (0 = 1).
	TokensPerChunk int
	// RoleEarly sends the chat role-only chunk on arrival, before prefill,
	// instead of with the first token.
	RoleEarly bool
	// RoleOnly sends this many extra empty chunks (chat: role-only delta;
	// completions: text "") before the first token.
	RoleOnly int
	// UsageOnly sends the usage-only chunk (`choices: []`) even when the
	// request did not ask for it; NoUsage never sends usage; UsageInFinish
	// puts usage in the finish chunk (llama.cpp's completions shape).
	UsageOnly, NoUsage, UsageInFinish bool
	// NoDone omits `data: [DONE]`; NoSpace writes `data:` without a space;
	// CRLF ends lines with \r\n; Comments writes a `: ping` comment line
	// before every event.
	NoDone, NoSpace, CRLF, Comments bool
	// Body, when set, answers HTTP 200 at once with a body that is not a
	// response, whatever "stream" asked: BodyHTML, BodyJSON, BodyText or
	// BodyEmpty.
	Body string
	// Event, when set, is written as the data of every chunk event of a
	// stream (token, role, finish and usage chunks; `[DONE]` is kept),
	// and as the whole body of a non-streaming response: EventNull,
	// EventChoicesNull or EventErrorNull. Such a stream carries no token.
	Event string
	// UsageCompletion, when UsageCompletionSet, is sent as
	// usage.completion_tokens instead of the true count (any integer, so
	// that negative and absurd values can be sent); total_tokens follows.
	UsageCompletion    int
	UsageCompletionSet bool
	// CachedTokens, when CachedTokensSet, is sent as
	// usage.prompt_tokens_details.cached_tokens (as OpenAI and vLLM report
	// prompt tokens served from the prefix cache), capped at the prompt's
	// token count.
	CachedTokens    int
	CachedTokensSet bool
	// ResponseCost, when not empty, is sent as the x-litellm-response-cost
	// response header (a LiteLLM proxy's cost of the response), verbatim.
	ResponseCost string
	// UsageCost, when not empty, is sent as usage.cost, verbatim: where a
	// LiteLLM proxy puts a streamed response's cost (its headers leave
	// before the cost is known).
	UsageCost string
}

// Bodies of the body=KIND fault (Fault.Body).
const (
	BodyHTML  = "html"  // text/html: a proxy's sign-in page
	BodyJSON  = "json"  // application/json: {"status":"ok"}, not a completion
	BodyText  = "text"  // text/plain: "OK\n"
	BodyEmpty = "empty" // no body and no Content-Type
)

// Event payloads of the data-null, choices-null and error-null faults
// (Fault.Event).
const (
	EventNull        = `null`
	EventChoicesNull = `{"choices":null}`
	EventErrorNull   = `{"error":null}`
)

// ParseFault parses a fault spec: items separated by commas, spaces
// ignored, case-insensitive. DUR is a Go duration (250ms, 2s); K and N are
// non-negative integers.
//
//	http-NNN             answer with status NNN (400..599), JSON error body
//	http-NNN-text        the same with a text/plain body
//	error-in-stream[=K]  after K token chunks (default 1), an error event; no [DONE]
//	disconnect-after=K   abort the connection after K token chunks
//	slow-headers=DUR     wait DUR before sending the response headers
//	stall=DUR[@K]        after K token chunks (default 1), pause DUR
//	tokens-per-chunk=N   N tokens per content chunk (N >= 1)
//	role-early           chat: role-only chunk on arrival, before prefill
//	role-only[=N]        N (default 1) extra role-only/empty chunks before the first token
//	usage-only           a usage-only chunk (choices: []) even if not asked
//	no-usage             never send usage
//	usage-in-finish      usage inside the finish chunk (llama.cpp completions)
//	no-done              omit data: [DONE]
//	no-space             "data:{...}" without the space
//	crlf                 \r\n line ends
//	comments             a ": ping" comment line before every event
//	body=KIND            HTTP 200 at once with a non-response body; KIND is
//	                     html, json ({"status":"ok"}), text ("OK") or empty
//	data-null            every chunk event is `data: null` (no token)
//	choices-null         every chunk event is `data: {"choices":null}`
//	error-null           every chunk event is `data: {"error":null}`
//	usage-completion=N   usage.completion_tokens is N (any integer)
//	cached-tokens=N      usage.prompt_tokens_details.cached_tokens is N (at most the prompt's tokens)
//	response-cost=X      header x-litellm-response-cost: X (X a decimal number, e.g. 0.000123)
//	usage-cost=X         usage.cost is X (a decimal number), as a LiteLLM proxy sends on a stream
//
// Every bad item is reported (errors.Join), with its 1-based column.
// ParseFault is safe for concurrent use.
func ParseFault(spec string) (Fault, error) {
	var f Fault
	err := f.apply(spec)
	return f, err
}

// apply parses spec on top of f (so a header adds to the config's spec).
func (f *Fault) apply(spec string) error {
	var errs []error
	col := 1
	for item := range strings.SplitSeq(spec, ",") {
		at := col
		col += len(item) + 1
		lead := len(item) - len(strings.TrimLeft(item, " \t"))
		item = strings.ToLower(strings.TrimSpace(item))
		if item == "" {
			continue
		}
		if err := f.applyItem(item); err != nil {
			errs = append(errs, fmt.Errorf("%s: column %d: %q: %w", FaultHeader, at+lead, item, err))
		}
	}
	return errors.Join(errs...)
}

func (f *Fault) applyItem(item string) error {
	name, arg, hasArg := strings.Cut(item, "=")
	name, arg = strings.TrimSpace(name), strings.TrimSpace(arg)
	noArg := func() error {
		if hasArg {
			return fmt.Errorf("takes no value")
		}
		return nil
	}
	count := func(def int) (int, error) {
		if !hasArg {
			return def, nil
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("value %q is not a non-negative integer", arg)
		}
		return n, nil
	}
	dur := func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("value %q is not a non-negative duration such as 250ms or 2s", s)
		}
		return d, nil
	}
	var err error
	switch name {
	case "error-in-stream":
		f.ErrorInStream = true
		f.ErrorAfter, err = count(1)
	case "disconnect-after":
		if !hasArg {
			return fmt.Errorf("needs a token-chunk count, e.g. disconnect-after=3")
		}
		f.Disconnect = true
		f.DisconnectAfter, err = count(0)
	case "slow-headers":
		if !hasArg {
			return fmt.Errorf("needs a duration, e.g. slow-headers=2s")
		}
		f.SlowHeaders, err = dur(arg)
	case "stall":
		if !hasArg {
			return fmt.Errorf("needs a duration, e.g. stall=5s or stall=5s@3")
		}
		d, k, hasK := strings.Cut(arg, "@")
		if f.Stall, err = dur(d); err != nil {
			return err
		}
		f.StallAfter = 1
		if hasK {
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 {
				return fmt.Errorf("chunk count %q after @ is not a non-negative integer", k)
			}
			f.StallAfter = n
		}
	case "tokens-per-chunk":
		if !hasArg {
			return fmt.Errorf("needs a count, e.g. tokens-per-chunk=4")
		}
		f.TokensPerChunk, err = count(1)
		if err == nil && f.TokensPerChunk == 0 {
			err = fmt.Errorf("must be at least 1")
		}
	case "role-early":
		f.RoleEarly = true
		err = noArg()
	case "role-only":
		f.RoleOnly, err = count(1)
	case "usage-only":
		f.UsageOnly = true
		err = noArg()
	case "no-usage":
		f.NoUsage = true
		err = noArg()
	case "usage-in-finish":
		f.UsageInFinish = true
		err = noArg()
	case "no-done":
		f.NoDone = true
		err = noArg()
	case "no-space":
		f.NoSpace = true
		err = noArg()
	case "crlf":
		f.CRLF = true
		err = noArg()
	case "comments":
		f.Comments = true
		err = noArg()
	case "body":
		switch arg {
		case BodyHTML, BodyJSON, BodyText, BodyEmpty:
			f.Body = arg
		default:
			return fmt.Errorf("needs one of html, json, text, empty, e.g. body=html")
		}
	case "data-null":
		f.Event = EventNull
		err = noArg()
	case "choices-null":
		f.Event = EventChoicesNull
		err = noArg()
	case "error-null":
		f.Event = EventErrorNull
		err = noArg()
	case "usage-completion":
		n, perr := strconv.Atoi(arg)
		if !hasArg || perr != nil {
			return fmt.Errorf("needs an integer, e.g. usage-completion=-7")
		}
		f.UsageCompletion, f.UsageCompletionSet = n, true
	case "cached-tokens":
		n, perr := strconv.Atoi(arg)
		if !hasArg || perr != nil || n < 0 {
			return fmt.Errorf("needs a token count >= 0, e.g. cached-tokens=64")
		}
		f.CachedTokens, f.CachedTokensSet = n, true
	case "response-cost":
		v, perr := strconv.ParseFloat(arg, 64)
		if !hasArg || perr != nil || v < 0 {
			return fmt.Errorf("needs a cost >= 0, e.g. response-cost=0.000123")
		}
		f.ResponseCost = arg
	case "usage-cost":
		v, perr := strconv.ParseFloat(arg, 64)
		if !hasArg || perr != nil || !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("needs a cost >= 0, e.g. usage-cost=0.0000129")
		}
		f.UsageCost = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		code, ok := strings.CutPrefix(name, "http-")
		if !ok {
			return fmt.Errorf("unknown fault; the faults are listed in docs/mock-server.md (e.g. http-500, disconnect-after=3, stall=2s)")
		}
		code, text := strings.CutSuffix(code, "-text")
		n, perr := strconv.Atoi(code)
		if perr != nil || n < 400 || n > 599 {
			return fmt.Errorf("status %q is not in 400..599", code)
		}
		f.HTTPStatus, f.HTTPText = n, text
		err = noArg()
	}
	return err
}
