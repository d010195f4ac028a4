package loadgen

import (
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// GammaPacer places arrivals as a gamma renewal process: independent
// gaps drawn from a gamma distribution of shape Shape and mean 1/Rate s,
// as `vllm bench serve --burstiness` does. Shape sets the burstiness with
// the mean rate unchanged: the gaps' coefficient of variation (standard
// deviation over mean) is 1/√Shape, so Shape 1 is a Poisson process (CV
// 1), Shape < 1 clusters arrivals into bursts with longer lulls between
// them (0.5: CV 1.41), and Shape > 1 spaces them more evenly than Poisson
// (CV → 0 as Shape grows).
//
// As with PoissonPacer, the gap before arrival i comes from its own PCG
// stream keyed by (Seed, i), so the plan is reproducible for a seed and
// independent of timing. With Shape 1 the plan is PoissonPacer's, arrival
// for arrival. GammaPacer is a value, pure, and safe for concurrent use.
type GammaPacer struct {
	Rate  float64 // requests/s, > 0
	Shape float64 // gamma shape K, > 0 (1: Poisson)
	Seed  uint64
}

// Arrival returns prev + Gap(i), and 0 for i == 0.
func (p GammaPacer) Arrival(i int64, prev time.Duration) time.Duration {
	if i <= 0 {
		return 0
	}
	return prev + p.Gap(i)
}

// Gap returns the gap between arrivals i−1 and i: a unit-mean gamma draw
// of shape Shape (gonum's distuv.Gamma), divided by Rate.
func (p GammaPacer) Gap(i int64) time.Duration {
	return time.Duration(unitGap(p.Seed, i, p.Shape) / p.Rate * 1e9)
}

// unitGap draws the gap before arrival i of a renewal process with mean
// gap 1 whose gaps are gamma-distributed with the given shape (rate =
// shape), from rand.NewPCG(seed, splitmix64(i)). Shape 1 uses the
// exponential inverse transform of PoissonPacer, so that a shape of 1
// reproduces its plan exactly.
func unitGap(seed uint64, i int64, shape float64) float64 {
	src := rand.NewPCG(seed, splitmix64(uint64(i)))
	if shape == 1 {
		u := float64(src.Uint64()>>11) * 0x1p-53 // as PoissonPacer.Gap
		return -math.Log1p(-u)
	}
	return distuv.Gamma{Alpha: shape, Beta: shape, Src: src}.Rand()
}
