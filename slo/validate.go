package slo

import (
	"errors"
	"fmt"
)

// Validate reports every problem of o at once (errors.Join): a statistic
// constrained by more than one term, such as "ttft_p99<=1s,ttft_p99<=2s",
// whose verdict would hang on the tightest term while the others only
// mislead a reader. Parse keeps repeated terms; a CLI calls Validate to
// refuse them.
func (o Objective) Validate() error {
	var errs []error
	first := map[string]Term{}
	for _, t := range o.Terms {
		name := t.Name()
		if prev, ok := first[name]; ok {
			errs = append(errs, fmt.Errorf("slo: %s is constrained twice (%s and %s): give each statistic once, with the threshold you mean",
				name, termText(prev), termText(t)))
			continue
		}
		first[name] = t
	}
	return errors.Join(errs...)
}

// termText is t as the user wrote it, or its canonical form.
func termText(t Term) string {
	if t.Text != "" {
		return t.Text
	}
	return t.String()
}

// Streamed reports whether m is measured only on a streamed response:
// every latency but e2e needs the arrival times of the first token and of
// the chunks, which a non-streaming (--no-stream) response does not give.
func (m Metric) Streamed() bool { return m.Latency() && m != MetricE2E }
