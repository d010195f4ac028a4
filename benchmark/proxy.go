package benchmark

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/gollm-bench/gollm-bench/internal/redact"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// WarnProxy: the requests went through a proxy, whose own latency is in
// every figure.
const WarnProxy metrics.WarningCode = "proxy_used"

// proxy returns the proxy function of the target's requests
// (Settings.ProxyEnv, as Go's http.ProxyFromEnvironment reads it), nil
// when no proxy is set, and notes the proxy the target goes through in
// b.proxyUsed, credentials redacted. A proxy URL that cannot be parsed is
// an error naming the variable.
func (b *Benchmark) proxy() (func(*http.Request) (*url.URL, error), error) {
	env := b.s.ProxyEnv
	if env.HTTPProxy == "" && env.HTTPSProxy == "" {
		return nil, nil
	}
	pick := env.ProxyFunc()
	u, err := url.Parse(b.target)
	if err != nil {
		return nil, nil // the target was checked before: not reached
	}
	p, err := pick(u)
	if err != nil {
		return nil, fmt.Errorf("HTTP_PROXY or HTTPS_PROXY: %s; want a proxy URL such as http://proxy.example:3128, or unset it", redact.URLs(err.Error()))
	}
	if p != nil {
		b.proxyUsed = redact.URL(p.String())
		fmt.Fprintf(b.opt.Log, "proxy: the requests to %s go through %s (HTTP_PROXY/HTTPS_PROXY); a proxy adds its own latency to every figure (set NO_PROXY to bypass it)\n", redact.URL(b.target), b.proxyUsed)
	}
	return func(r *http.Request) (*url.URL, error) { return pick(r.URL) }, nil
}

// proxyWarnings says when the requests went through a proxy.
func (b *Benchmark) proxyWarnings() []metrics.Warning {
	if b.proxyUsed == "" {
		return nil
	}
	return []metrics.Warning{{Code: WarnProxy, Level: -1, Message: fmt.Sprintf("the requests went through the proxy %s (HTTP_PROXY/HTTPS_PROXY): its own latency is in every figure", b.proxyUsed)}}
}

// ProxyEnv reads the proxy settings as Go's http.ProxyFromEnvironment does
// (httpproxy.FromEnvironment), from getenv rather than the process's
// environment: HTTP_PROXY, HTTPS_PROXY and NO_PROXY, or their lowercase
// forms, and REQUEST_METHOD (set under CGI, where HTTP_PROXY is a request
// header and is then ignored). It is Settings.ProxyEnv.
func ProxyEnv(getenv func(string) string) httpproxy.Config {
	either := func(k string) string { return cmp.Or(getenv(k), getenv(strings.ToLower(k))) }
	return httpproxy.Config{HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY"), CGI: getenv("REQUEST_METHOD") != ""}
}
