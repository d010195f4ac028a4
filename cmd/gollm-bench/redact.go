package main

import (
	"net/url"
	"regexp"
	"strings"
)

// Secrets never reach an output or a message: run.json's command line and
// config, the scorecard, report.html and stderr show REDACTED in place of
// the value of --api-key, the value of every --header whose name suggests a
// credential (secretHeader), the credentials of every URL (user:password@)
// and the values of URL query parameters named like a credential.

// redacted replaces a secret.
const redacted = "REDACTED"

// apiKeyFlag takes a secret as its value.
const apiKeyFlag = "--api-key"

// redactArgs returns args with every secret replaced by REDACTED.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactURLs(a)
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == apiKeyFlag && i+1 < len(out):
			out[i+1] = redacted
			i++
		case strings.HasPrefix(a, apiKeyFlag+"="):
			out[i] = apiKeyFlag + "=" + redacted
		case a == "--header" && i+1 < len(out):
			out[i+1] = redactHeader(out[i+1])
			i++
		case strings.HasPrefix(a, "--header="):
			out[i] = "--header=" + redactHeader(strings.TrimPrefix(a, "--header="))
		}
	}
	return out
}

// redactHeader redacts the value of a --header K=V whose name suggests a
// credential.
func redactHeader(kv string) string {
	k, _, ok := strings.Cut(kv, "=")
	if ok && secretHeader(k) {
		return k + "=" + redacted
	}
	return kv
}

// secretHeader reports whether a header (or query parameter) name
// suggests a credential: Authorization, Proxy-Authorization, Cookie,
// X-Api-Key, Api-Key, and any name that contains, in any case, "auth",
// "cookie", "key", "token", "secret", "password", "passwd", "credential"
// or "session". Redacting a harmless header costs nothing; leaking a key
// does.
func secretHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, w := range []string{"auth", "cookie", "key", "token", "secret", "password", "passwd", "credential", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactURL drops the credentials of a URL and redacts its secret query
// values; run.json's config.target holds it.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return redactURLs(raw)
	}
	u.User = nil
	return redactURLs(u.String())
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

// redactURLs redacts every URL inside s: credentials become REDACTED@ and
// the values of query parameters named like a credential (secretHeader)
// become REDACTED. It is used on whatever quotes a URL: command lines,
// stderr messages, errors.
func redactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = userinfo().ReplaceAllString(s, "${1}"+redacted+"@")
	q := queryParam()
	return q.ReplaceAllStringFunc(s, func(m string) string {
		sub := q.FindStringSubmatch(m)
		if !secretHeader(sub[2]) {
			return m
		}
		return sub[1] + sub[2] + "=" + redacted
	})
}

// commitOrVCS is the git commit the binary was built from, if known.
func commitOrVCS() string {
	if commit != "" {
		return commit
	}
	return vcsRevision()
}
