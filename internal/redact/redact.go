// Package redact keeps secrets out of every output and message: the value
// of an API key flag, credential headers, a URL's user:password and
// credential-named query parameters become REDACTED.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Secrets never reach an output or a message: run.json's command line and
// config, the scorecard, report.html and stderr show REDACTED in place of
// the value of --api-key, the value of every --header but a few harmless
// ones (HarmlessHeader), the credentials of every URL (user:password@)
// and the values of URL query parameters named like a credential.

// Redacted replaces a secret.
const Redacted = "REDACTED"

// apiKeyFlag takes a secret as its value.
const apiKeyFlag = "--api-key"

// Args returns args with every secret replaced by REDACTED.
func Args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = URLs(a)
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == apiKeyFlag && i+1 < len(out):
			out[i+1] = Redacted
			i++
		case strings.HasPrefix(a, apiKeyFlag+"="):
			out[i] = apiKeyFlag + "=" + Redacted
		case a == "--header" && i+1 < len(out):
			out[i+1] = Header(out[i+1])
			i++
		case strings.HasPrefix(a, "--header="):
			out[i] = "--header=" + Header(strings.TrimPrefix(a, "--header="))
		}
	}
	return out
}

// Header redacts the value of a --header K=V unless its name is on the
// short list of harmless headers (HarmlessHeader): a header a user adds
// is as likely a credential under a name of its own (X-Custom-Creds,
// OpenAI-Organization) as anything else.
func Header(kv string) string {
	k, _, ok := strings.Cut(kv, "=")
	if ok && !HarmlessHeader(k) {
		return k + "=" + Redacted
	}
	return kv
}

// HarmlessHeader reports whether a header's value may be written in
// clear: Content-Type, Accept, Accept-Encoding, Accept-Language,
// User-Agent, Cache-Control, X-Mock-Fault (the built-in mock's fault
// script) and X-Request-Id, in any case. Every other value is redacted.
func HarmlessHeader(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "content-type", "accept", "accept-encoding", "accept-language", "user-agent", "cache-control", "x-mock-fault", "x-request-id":
		return true
	}
	return false
}

// Scrub replaces every occurrence in s of each known secret value (of at
// least 4 bytes: shorter ones would blank ordinary text) with REDACTED:
// for a server's error text that echoes the key it was sent.
func Scrub(s string, secrets []string) string {
	for _, v := range secrets {
		if len(v) >= 4 && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// SecretName reports whether a header (or query parameter) name
// suggests a credential: Authorization, Proxy-Authorization, Cookie,
// X-Api-Key, Api-Key, and any name that contains, in any case, "auth",
// "cookie", "key", "token", "secret", "password", "passwd", "credential"
// or "session". Redacting a harmless header costs nothing; leaking a key
// does.
func SecretName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, w := range []string{"auth", "cookie", "key", "token", "secret", "password", "passwd", "credential", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// URL drops the credentials of a URL and redacts its secret query
// values; run.json's config.target holds it.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return URLs(raw)
	}
	u.User = nil
	return URLs(u.String())
}

// userinfo matches the credentials of a URL: what lies between "scheme://"
// and "@" before the host.
func userinfo() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#@"'<>]*@`)
}

// queryParam matches a URL query parameter and its value.
func queryParam() *regexp.Regexp {
	return regexp.MustCompile(`([?&])([^=&\s"'<>#]+)=([^&\s"'<>#]*)`)
}

// URLs redacts every URL inside s: credentials become REDACTED@ and
// the values of query parameters named like a credential (SecretName)
// become REDACTED. It is used on whatever quotes a URL: command lines,
// stderr messages, errors.
func URLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = userinfo().ReplaceAllString(s, "${1}"+Redacted+"@")
	q := queryParam()
	return q.ReplaceAllStringFunc(s, func(m string) string {
		sub := q.FindStringSubmatch(m)
		if !SecretName(sub[2]) {
			return m
		}
		return sub[1] + sub[2] + "=" + Redacted
	})
}
