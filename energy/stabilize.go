package energy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseStabilization reads a thermal gate's "WINDOW,BAND[,TIMEOUT]", e.g.
// "30s,3W,5m": how long every GPU's power must stay within ±BAND watts
// (the unit W may be left out), and the longest the gate waits (0 or
// absent: Stabilization's default). Its errors quote s and say what to
// write.
func ParseStabilization(s string) (Stabilization, error) {
	var st Stabilization
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return st, fmt.Errorf("%q: want WINDOW,BAND[,TIMEOUT], e.g. 30s,3W,5m", s)
	}
	var err error
	if st.Window, err = time.ParseDuration(strings.TrimSpace(parts[0])); err != nil || st.Window <= 0 {
		return st, fmt.Errorf("%q: window %q is not a positive duration", s, parts[0])
	}
	band := strings.TrimSuffix(strings.TrimSpace(parts[1]), "W")
	if st.BandW, err = strconv.ParseFloat(band, 64); err != nil || !(st.BandW > 0) || math.IsInf(st.BandW, 0) {
		return st, fmt.Errorf("%q: band %q is not a positive power in W, e.g. 3W", s, parts[1])
	}
	if len(parts) == 3 {
		if st.Timeout, err = time.ParseDuration(strings.TrimSpace(parts[2])); err != nil || st.Timeout <= 0 {
			return st, fmt.Errorf("%q: timeout %q is not a positive duration", s, parts[2])
		}
	}
	if err := st.Validate(); err != nil {
		return st, fmt.Errorf("%q: %w", s, err)
	}
	return st, nil
}

// StabilizationText spells s as ParseStabilization reads it, leaving out
// the fields left at 0 (their defaults): "30s,3W" or "30s,3W,5m0s".
func StabilizationText(s Stabilization) string {
	text := fmt.Sprintf("%v,%sW", s.Window, strconv.FormatFloat(s.BandW, 'g', -1, 64))
	if s.Timeout != 0 {
		text += "," + s.Timeout.String()
	}
	return text
}
