package openai

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CheckBaseURL reports whether raw can be a Client's base URL (New's
// baseURL, the --target flag): an http or https URL with a host and, if
// given, a port from 1 to 65535, that is not an endpoint's URL. The error
// names the base URL and the fix, and never quotes credentials.
func CheckBaseURL(raw string) error {
	_, err := normalizeBase(raw)
	return err
}

// CheckHeader reports whether name and value can be sent as an HTTP header
// (WithHeader, the --header flag): name is an RFC 9110 token (letters,
// digits and !#$%&'*+-.^_`|~), value holds no line break and no control
// character but tab. The error quotes the name, never the value, which
// may be a secret.
func CheckHeader(name, value string) error {
	if name == "" {
		return errors.New("header name is empty: want a name such as X-Tenant")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			fix := strings.Map(func(r rune) rune {
				if r < 0x80 && isTokenChar(byte(r)) {
					return r
				}
				return '-'
			}, name)
			return fmt.Errorf("header name %q: a header name is one word of letters, digits and !#$%%&'*+-.^_`|~ (no spaces or control characters), e.g. %s", name, fix)
		}
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return fmt.Errorf("header %s: the value holds a line break or control character (byte %d); give it on one line, without control characters", name, i+1)
		}
	}
	return nil
}

// isTokenChar reports whether c may appear in an HTTP token (RFC 9110 §5.6.2).
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// WithTLSConfig sets the TLS configuration of the transport New builds: a
// private CA's roots (the --ca-cert flag) or, for a test server only,
// InsecureSkipVerify (--insecure). nil keeps Go's defaults (the system's
// roots). Ignored with WithHTTPClient, whose transport is the caller's.
func WithTLSConfig(cfg *tls.Config) Option {
	return func(c *config) error {
		if cfg != nil {
			cfg = cfg.Clone()
		}
		c.tls = cfg
		return nil
	}
}

// checkPort refuses a port outside 1..65535 in u ("" is the scheme's
// default).
func checkPort(u *url.URL, shown string) error {
	p := u.Port()
	if p == "" {
		if strings.HasSuffix(u.Host, ":") {
			return fmt.Errorf("base URL %q: empty port: write a port from 1 to 65535 after the colon, or none for the scheme's default", shown)
		}
		return nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("base URL %q: port %s is out of range: a TCP port is 1 to 65535", shown, p)
	}
	return nil
}

// redactUserinfo returns raw with the credentials of a URL (user:password@)
// replaced by "REDACTED@", so that errors can quote a --target. Without a
// scheme, where the host's end is a guess, everything up to the last "@"
// is taken for credentials.
func redactUserinfo(raw string) string {
	rest := raw
	scheme := ""
	end := len(rest)
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = raw[:i+3], raw[i+3:]
		end = len(rest)
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			end = j
		}
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		return scheme + "REDACTED" + rest[at:]
	}
	return raw
}
