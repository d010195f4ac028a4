package energy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Filter keeps the GPUs whose series labels match every pair (the
// --energy-filter flag, e.g. "Hostname=gpu-node-01,namespace=inference").
// The zero Filter keeps everything. Matching is exact on values, with two
// conveniences: the host label matches as "Hostname" or "hostname"
// (dcgm-exporter spells it both ways across versions), and a key k also
// matches "exported_k", which a Prometheus scrape through a ServiceMonitor
// writes when the target's own namespace/pod/container labels win. A
// Filter is immutable after parsing and safe for concurrent use.
type Filter map[string]string

// ParseFilter parses "k=v[,k=v...]". Every bad term is reported at once
// (errors.Join), each naming the energy filter and the term.
func ParseFilter(s string) (Filter, error) {
	f := Filter{}
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	var errs []error
	for i, term := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(term), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			errs = append(errs, fmt.Errorf("energy filter term %d %q: want label=value, e.g. Hostname=gpu-node-01", i+1, term))
			continue
		}
		f[k] = v
	}
	return f, errors.Join(errs...)
}

// String returns the filter in flag form, keys sorted.
func (f Filter) String() string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + f[k]
	}
	return strings.Join(keys, ",")
}

// Match reports whether labels satisfy every pair of f.
func (f Filter) Match(labels map[string]string) bool {
	for k, want := range f {
		if got, ok := lookup(labels, k); !ok || got != want {
			return false
		}
	}
	return true
}

func lookup(labels map[string]string, k string) (string, bool) {
	if strings.EqualFold(k, "hostname") {
		if v, ok := labels["Hostname"]; ok {
			return v, true
		}
		v, ok := labels["hostname"]
		return v, ok
	}
	if v, ok := labels["exported_"+k]; ok {
		return v, true
	}
	v, ok := labels[k]
	return v, ok
}
