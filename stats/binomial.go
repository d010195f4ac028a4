package stats

import (
	"math"
	"sync"
)

// binomialCDF tabulates the cumulative distribution F(k) = P(B ≤ k) of
// B ~ Binomial(n, p) over the values of k that carry probability: from the
// mode outward until the probability mass of a term falls below 1e-18, at
// most 9 standard deviations (plus 12) away, or to the ends 0 and n. The
// mass left outside the table is below 1e-15 and is treated as 0: F is 0
// below the table and 1 above it.
type binomialCDF struct {
	n   int64
	lo  int64     // the first k tabulated
	cum []float64 // cum[i] = P(B ≤ lo + i)
	top float64   // the largest term, P(B = mode)
	buf *[]float64
}

// tables recycles the tables' storage: a level's summary asks for the
// ranks of dozens of quantiles, each with a table of thousands of terms
// at large n, and allocating (and zeroing) them anew cost more than
// computing them.
var tables = sync.Pool{New: func() any { return new([]float64) }}

// release gives the table's storage back for reuse; b must not be used
// after it.
func (b *binomialCDF) release() {
	if b.buf != nil {
		tables.Put(b.buf)
		b.buf, b.cum = nil, nil
	}
}

// tinyMass is the probability below which a binomial term ends the table.
const tinyMass = 1e-18

func newBinomialCDF(n int64, p float64) binomialCDF {
	mode := int64(math.Floor(float64(n+1) * p))
	mode = min(max(mode, 0), n)
	// Beyond 9 standard deviations (plus a margin for small n) a term is
	// far below tinyMass; the table is sized for that and trimmed.
	w := int64(9*math.Sqrt(float64(n)*p*(1-p))) + 12
	lo, hi := max(mode-w, 0), min(mode+w, n)
	buf := tables.Get().(*[]float64)
	if int64(cap(*buf)) < hi-lo+1 {
		*buf = make([]float64, hi-lo+1)
	}
	// Every term read below is written first: no zeroing needed.
	pmf := (*buf)[:hi-lo+1]
	lg := func(x int64) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	top := math.Exp(lg(n) - lg(mode) - lg(n-mode) + float64(mode)*math.Log(p) + float64(n-mode)*math.Log1p(-p))
	ratioUp := p / (1 - p)
	pmf[mode-lo] = top
	first, last := mode, mode // the terms kept: those above tinyMass
	for k, v := mode, top; k > lo; {
		v *= float64(k) / float64(n-k+1) / ratioUp
		k--
		if v < tinyMass {
			break
		}
		pmf[k-lo], first = v, k
	}
	for k, v := mode, top; k < hi; {
		v *= float64(n-k) / float64(k+1) * ratioUp
		k++
		if v < tinyMass {
			break
		}
		pmf[k-lo], last = v, k
	}
	cum := pmf[first-lo : last-lo+1]
	// Normalise while summing: the mode's term from Lgamma carries a
	// relative rounding error, and the truncated tails are negligible.
	var sum float64
	for _, v := range cum {
		sum += v
	}
	peak := top / sum
	var acc float64
	for i, v := range cum {
		acc += v / sum
		cum[i] = acc
	}
	cum[len(cum)-1] = 1
	return binomialCDF{n: n, lo: first, cum: cum, top: peak, buf: buf}
}

// at returns P(B ≤ k).
func (b binomialCDF) at(k int64) float64 {
	switch {
	case k < b.lo:
		return 0
	case k >= b.lo+int64(len(b.cum)):
		return 1
	}
	return b.cum[k-b.lo]
}

// search returns the least k in the table with P(B ≤ k) ≥ q (the table's
// last k when none is).
func (b binomialCDF) search(q float64) int64 {
	i, j := 0, len(b.cum)-1
	for i < j {
		m := (i + j) / 2
		if b.cum[m] >= q {
			j = m
		} else {
			i = m + 1
		}
	}
	return b.lo + int64(i)
}

// hi is the last k tabulated.
func (b binomialCDF) hi() int64 { return b.lo + int64(len(b.cum)) - 1 }
