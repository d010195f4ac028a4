package prom

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Matcher selects series by one label, as a PromQL label matcher: Value
// equals the label's value exactly, or, with Regex, is an RE2 expression
// that matches the whole value (PromQL's =~). A series without the label
// has the value "". A Matcher is a plain value.
type Matcher struct {
	Label string
	Value string
	Regex bool
}

// Eq returns the matcher label="value".
func Eq(label, value string) Matcher { return Matcher{Label: label, Value: value} }

// String returns the matcher in PromQL syntax, e.g. pod_namespace="inference".
func (m Matcher) String() string {
	op := "="
	if m.Regex {
		op = "=~"
	}
	return m.Label + op + quote(m.Value)
}

// Match reports whether labels satisfy m. An invalid regular expression
// matches nothing (ParseMatcher refuses one).
func (m Matcher) Match(labels map[string]string) bool {
	v := labels[m.Label]
	if !m.Regex {
		return v == m.Value
	}
	re, err := regexp.Compile("^(?:" + m.Value + ")$")
	return err == nil && re.MatchString(v)
}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// ParseMatcher parses "label=value" or "label=~regex". The label must be a
// Prometheus label name and the value not empty.
func ParseMatcher(term string) (Matcher, error) {
	k, v, ok := strings.Cut(term, "=")
	if !ok {
		return Matcher{}, fmt.Errorf("%q: want label=value or label=~regex", term)
	}
	m := Matcher{Label: strings.TrimSpace(k)}
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "~") {
		m.Regex, v = true, strings.TrimSpace(v[1:])
	}
	m.Value = v
	switch {
	case !labelName.MatchString(m.Label):
		return Matcher{}, fmt.Errorf("%q: %q is not a label name (letters, digits and _, not starting with a digit)", term, m.Label)
	case m.Value == "":
		return Matcher{}, fmt.Errorf("%q: the value is empty", term)
	}
	if m.Regex {
		if _, err := regexp.Compile(m.Value); err != nil {
			return Matcher{}, fmt.Errorf("%q: %w", term, err)
		}
	}
	return m, nil
}

// Selector returns family{m1,m2,...} in PromQL syntax (family alone
// without matchers).
func Selector(family string, matchers ...Matcher) string {
	if len(matchers) == 0 {
		return family
	}
	parts := make([]string, len(matchers))
	for i, m := range matchers {
		parts[i] = m.String()
	}
	return family + "{" + strings.Join(parts, ",") + "}"
}

// quote writes s as a PromQL double-quoted string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// key identifies a label set, independent of map order.
func key(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for k := range labels {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(labels[k])
		b.WriteByte(0)
	}
	return b.String()
}

// matchAll reports whether labels satisfy every matcher.
func matchAll(labels map[string]string, ms []Matcher) bool {
	for _, m := range ms {
		if !m.Match(labels) {
			return false
		}
	}
	return true
}
