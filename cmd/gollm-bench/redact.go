package main

import (
	"net/url"
	"strings"
)

// apiKeyFlag takes a secret as its value.
const apiKeyFlag = "--api-key"

// redactArgs returns args with secrets replaced by REDACTED: the value of
// --api-key, and Authorization or *key*/*token* headers.
func redactArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == apiKeyFlag && i+1 < len(out):
			out[i+1] = "REDACTED"
			i++
			continue
		case strings.HasPrefix(a, apiKeyFlag+"="):
			out[i] = apiKeyFlag + "=REDACTED"
		}
		if a == "--header" && i+1 < len(out) {
			out[i+1] = redactHeader(out[i+1])
			i++
		} else if v, ok := strings.CutPrefix(a, "--header="); ok {
			out[i] = "--header=" + redactHeader(v)
		}
	}
	return out
}

func redactHeader(kv string) string {
	k, _, ok := strings.Cut(kv, "=")
	lk := strings.ToLower(k)
	if ok && (lk == "authorization" || strings.Contains(lk, "key") || strings.Contains(lk, "token") || strings.Contains(lk, "secret")) {
		return k + "=REDACTED"
	}
	return kv
}

// redactURL drops credentials from a URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// commitOrVCS is the git commit the binary was built from, if known.
func commitOrVCS() string {
	if commit != "" {
		return commit
	}
	return vcsRevision()
}
