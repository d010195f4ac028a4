package cmdline

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/internal/redact"
)

// Record returns every setting of fs by its flag's long name with the
// value it holds, defaults included: what run.json's "settings" records
// and what ReadConfig reads back from it. Booleans are JSON booleans,
// numbers JSON numbers, lists lists of strings, the rest (durations
// included) strings in the flag's own spelling. Left out are hidden flags
// (peer aliases), deprecated ones, --config, and the names in omit (the
// API key, and flags that are not settings, such as --quiet). Secrets
// never appear: every URL's credentials and every credential header's
// value are REDACTED (package internal/redact). Each value is JSON text
// (the type of results.Settings, which run.json's "settings" is).
func Record(fs *pflag.FlagSet, omit ...string) map[string]json.RawMessage {
	skip := map[string]bool{"config": true}
	for _, o := range omit {
		skip[o] = true
	}
	out := map[string]json.RawMessage{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" || skip[f.Name] {
			return
		}
		b, err := json.Marshal(value(f))
		if err != nil { // a number pflag spells as JSON does not: its text
			b, _ = json.Marshal(redact.URLs(f.Value.String()))
		}
		out[f.Name] = b
	})
	return out
}

// value is a flag's value as JSON data, with secrets redacted.
func value(f *pflag.Flag) any {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		list := []string{}
		for _, v := range sv.GetSlice() {
			if f.Name == "header" {
				v = redact.Header(v)
			}
			list = append(list, redact.URLs(v))
		}
		return list
	}
	s := f.Value.String()
	switch f.Value.Type() {
	case "bool":
		b, err := strconv.ParseBool(s)
		if err == nil {
			return b
		}
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		if x, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
			return json.Number(s)
		}
	}
	return redact.URLs(s)
}
