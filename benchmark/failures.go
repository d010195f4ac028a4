package benchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/internal/termtext"
	"github.com/gollm-bench/gollm-bench/openai"
)

// maxKindsShown is how many error kinds the end-of-run summary lists.
const maxKindsShown = 5

// failureTally is a run's failed requests by error kind, over every
// record of every level (warmup and cooldown included), with the first
// message of each kind.
type failureTally struct {
	ok, failed int64
	kinds      map[string]int64
	examples   map[string]string
	// cut counts the requests cut off unfinished (incomplete), and
	// unanswered those of them sent in a window without a first token;
	// waited is the longest such wait, ms.
	cut, unanswered int64
	waited          float64
}

func tallyFailures(levels []harness.Level) failureTally {
	t := failureTally{kinds: map[string]int64{}, examples: map[string]string{}}
	for _, lv := range levels {
		t.ok += lv.Result.OK
		t.cut += lv.Result.Cancelled
		if c := lv.Summary.Censored.TTFT.AtLeast; c.Count > 0 {
			t.unanswered += c.Count
			t.waited = max(t.waited, c.Max)
		}
		for k, n := range lv.ErrorKinds {
			t.kinds[k] += n
			t.failed += n
			if _, ok := t.examples[k]; !ok && lv.ErrorExamples[k] != "" {
				t.examples[k] = lv.ErrorExamples[k]
			}
		}
	}
	return t
}

// top returns the error kinds, most frequent first (ties by name).
func (t failureTally) top() []string {
	kinds := slices.Collect(maps.Keys(t.kinds))
	slices.SortFunc(kinds, func(a, b string) int {
		return cmp.Or(cmp.Compare(t.kinds[b], t.kinds[a]), cmp.Compare(a, b))
	})
	return kinds
}

// print writes the summary of failures that ends every run that had any:
// the most frequent error kinds with their counts and first message, and,
// with hint, what to check when the failures say what is wrong (a refused
// connection, a certificate).
func (t failureTally) print(w io.Writer, target string, hint bool) {
	if t.failed == 0 {
		return
	}
	fmt.Fprintf(w, "failed requests: %d (%d ok), by kind (every message is in requests.jsonl):\n", t.failed, t.ok)
	kinds := t.top()
	for i, k := range kinds {
		if i == maxKindsShown {
			fmt.Fprintf(w, "  ... and %d more kinds\n", len(kinds)-i)
			break
		}
		fmt.Fprintf(w, "  %-16s %8d  %s\n", k, t.kinds[k], termtext.Escape(oneLine(redact.URLs(t.examples[k]))))
	}
	if h := connectHint(t.examples[kinds[0]], target); hint && h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

// noSuccess is a runtime failure when no request succeeded at any level:
// the server is down, refuses, or rejects every request, and no SLO
// verdict means anything. It names the error kinds seen and, when the
// first failures say why, what to check; written says whether the
// records went to a requests.jsonl, where the error messages are, or
// nowhere (no output folder), when it quotes the most frequent one.
func (t failureTally) noSuccess(target string, written bool) error {
	if t.ok > 0 || t.failed == 0 && t.cut == 0 {
		return nil
	}
	if t.failed == 0 {
		waited := ""
		if t.unanswered > 0 {
			waited = fmt.Sprintf(", %d of them measured after waiting up to %.3g s without a first token", t.unanswered, t.waited/1000)
		}
		return fmt.Errorf("no request succeeded at any level: %d request(s) were cut off unfinished%s: the server at %s accepted them but did not answer (with an SLO, each counts against its TTFT and E2E terms as at least its wait); check the server's logs and load",
			t.cut, waited, redact.URL(target))
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.kinds)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, t.kinds[k]))
	}
	shown := redact.URL(target)
	if h := connectHint(t.examples[t.top()[0]], target); h != "" {
		return fmt.Errorf("no request succeeded at any level (%s): %s", strings.Join(parts, ", "), h)
	}
	if !written {
		top := t.top()[0]
		return fmt.Errorf("no request succeeded at any level (%s); is the server at %s up and serving this model? The first %s error: %s",
			strings.Join(parts, ", "), shown, top, termtext.Escape(oneLine(redact.URLs(t.examples[top]))))
	}
	return fmt.Errorf("no request succeeded at any level (%s); is the server at %s up and serving this model? The error messages are in requests.jsonl",
		strings.Join(parts, ", "), shown)
}

// connectHint says what to check for a failure that never reached the
// server (msg is its error message), or "" when msg is no such failure.
func connectHint(msg, target string) string {
	shown := redact.URL(target)
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "server gave http response to https client"),
		strings.Contains(m, "first record does not look like a tls handshake"):
		return fmt.Sprintf("the server at %s answers plain HTTP: write http:// in --target", shown)
	case strings.Contains(m, "x509:"), strings.Contains(m, "tls: failed to verify"), strings.Contains(m, "certificate"):
		return fmt.Sprintf("the TLS certificate of %s could not be verified: if a private CA signed it, give --ca-cert FILE (that CA's PEM certificate); for a test server with a self-signed certificate, --insecure skips verification", shown)
	case strings.Contains(m, "http request to an https server"):
		return fmt.Sprintf("the server at %s expects TLS: write https:// in --target", shown)
	case strings.Contains(m, "connection refused"):
		return fmt.Sprintf("nothing is listening at %s: is the server up, and are the host and port of --target right?", shown)
	case strings.Contains(m, "no such host"), strings.Contains(m, "server misbehaving"):
		return fmt.Sprintf("the host of --target %s does not resolve: check its spelling, or give an IP address", shown)
	case strings.Contains(m, "network is unreachable"), strings.Contains(m, "no route to host"):
		return fmt.Sprintf("%s cannot be reached from this machine: check --target and the network", shown)
	case strings.Contains(m, "i/o timeout"):
		return fmt.Sprintf("%s did not accept a connection in time: check the host and port of --target, and any firewall", shown)
	}
	return ""
}

// modelLookupError explains a failed GET /v1/models, sent because --model
// was not given. "Give --model NAME" is the fix only when the server
// answered and the lookup itself failed (404, an empty or unreadable
// list); a connection or TLS failure, or refused credentials, get their
// own hint.
func modelLookupError(target string, err error) error {
	var se *openai.StatusError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("--model not given, and the server at %s did not answer GET /v1/models within its timeout (%w): it accepted the connection but stayed silent, or is overloaded; check that it is serving, or give --model NAME", redact.URL(target), err)
	case errors.As(err, &se) && (se.Status == 401 || se.Status == 403 || se.Status == 407):
		return fmt.Errorf("--model not given, and %w: the server refused the credentials; check --api-key (or $OPENAI_API_KEY) and --header", err)
	case errors.As(err, &se) && connectHint(se.Message, target) != "":
		return fmt.Errorf("--model not given, and %w: %s", err, connectHint(se.Message, target))
	case errors.As(err, &se), errors.Is(err, openai.ErrNoModels):
		return fmt.Errorf("--model not given, and the server's model list could not be used: %w (give --model NAME)", err)
	}
	if h := connectHint(err.Error(), target); h != "" {
		return fmt.Errorf("%w: %s", err, h)
	}
	return fmt.Errorf("--model not given, and %w", err)
}

// oneLine cuts s at its first line break.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
