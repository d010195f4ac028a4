package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// parseKeyInts parses s, a comma-separated list of key=value pairs with
// whole-number values, into fields by key (the spelling of --data and
// --shared-prefix). It returns the keys given and every problem found,
// each naming its pair: a pair without "=", a key not in fields (valid
// lists the keys for the message), a key given twice, a value that is not
// a whole number. example is a valid pair shown with the first kind,
// e.g. "prefix=2048". Blank pairs are skipped.
func parseKeyInts(s string, fields map[string]*int, valid, example string) (set map[string]bool, errs []error) {
	set = map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		dst, known := fields[k]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%q is not key=value (e.g. %s)", kv, example))
			continue
		case !known:
			errs = append(errs, fmt.Errorf("unknown key %q (valid: %s)", k, valid))
			continue
		case set[k]:
			errs = append(errs, fmt.Errorf("%s is given twice", k))
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q is not a whole number", k, v))
			continue
		}
		*dst, set[k] = n, true
	}
	return set, errs
}
