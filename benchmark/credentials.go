package benchmark

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// credential returns the bearer key to send, choosing one source of
// credentials, the most explicit given: an Authorization --header, then
// credentials in --target (user:password@, sent as Basic), then
// --api-key, then $OPENAI_API_KEY (Settings.EnvAPIKey; not sent to the
// built-in mock, which checks none). Two sources are
// never merged: the log says once which one is sent and which are not.
// No value is ever printed.
func (b *Benchmark) credential(headers http.Header) string {
	s := &b.s
	var header bool
	for k := range headers {
		header = header || http.CanonicalHeaderKey(strings.TrimSpace(k)) == "Authorization"
	}
	u, err := url.Parse(b.target)
	inURL := err == nil && u.User != nil
	var unused []string
	if s.APIKey != "" {
		unused = append(unused, "--api-key")
	}
	if s.EnvAPIKey != "" {
		unused = append(unused, "$OPENAI_API_KEY")
	}
	say := func(format string, args ...any) {
		if s.Target == "" {
			return // the built-in mock checks no credential
		}
		fmt.Fprintf(b.opt.Log, "credentials: "+format+"\n", args...)
	}
	switch {
	case header, inURL:
		from := "the Authorization --header"
		if !header {
			from = "the credentials in --target (Basic)"
		}
		if inURL && header {
			unused = append([]string{"the credentials in --target"}, unused...)
		}
		if len(unused) > 0 {
			say("sending %s; not sending %s (explicit beats implicit)", from, strings.Join(unused, " nor "))
		}
		return ""
	case s.APIKey != "":
		if s.EnvAPIKey != "" {
			say("sending --api-key; not sending $OPENAI_API_KEY")
		}
		return s.APIKey
	case s.EnvAPIKey != "" && s.Target != "":
		say("sending $OPENAI_API_KEY as the bearer token to %s (no Authorization --header, --target credentials or --api-key given; unset it to send none)", redact.URL(b.target))
		return s.EnvAPIKey
	}
	return ""
}
