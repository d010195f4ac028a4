package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseSeconds reads a duration in Go's spelling (2s, 500ms, 10m) or as a
// bare number of seconds (1.5), at most 1e9 s (about 31 years) either way.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	const most = 1e9 * time.Second
	if d, err := time.ParseDuration(s); err == nil && d >= -most && d <= most {
		return d, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > most.Seconds() {
		return 0, fmt.Errorf("%q is not a duration (write e.g. 2s or 500ms)", s)
	}
	return time.Duration(v * float64(time.Second)), nil
}
