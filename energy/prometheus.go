package energy

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/prom"
)

// promSource reads the DCGM series stored in a Prometheus server through its
// HTTP API (/api/v1/query, prom.API). The counter is read by instant
// queries at the window's start and end (not increase(), which
// extrapolates to the range edges); power is summarised with
// avg/max/stddev_over_time over the window.
type promSource struct {
	api    *prom.API
	filter Filter
}

// NewPrometheus returns a Source over the Prometheus server at base (e.g.
// http://prometheus:9090; a trailing / and /api/v1/... are dropped) that
// stores dcgm-exporter's series. Options: WithHTTPClient, WithFilter
// (applied to the returned series' labels).
func NewPrometheus(base string, opts ...Option) Source {
	o := newOptions(opts)
	return &promSource{api: prom.NewAPI(base, o.client), filter: o.filter}
}

func (p *promSource) Name() string { return "prometheus" }

func (p *promSource) Read(ctx context.Context, at time.Time) (Snapshot, error) {
	energy, err := p.query(ctx, dcgmEnergy, at)
	if err != nil {
		return Snapshot{}, err
	}
	stamps, err := p.query(ctx, "timestamp("+dcgmEnergy+")", at)
	if err != nil {
		return Snapshot{}, err
	}
	power, err := p.query(ctx, dcgmPower, at)
	if err != nil {
		return Snapshot{}, err
	}
	var snap Snapshot
	by := map[string]*Sample{}
	get := func(ps prom.Sample) *Sample {
		s := sampleOf(ps.Labels)
		if d := ps.Labels["DCGM_FI_DRIVER_VERSION"]; d != "" && snap.Driver == "" {
			snap.Driver = d
		}
		if q, ok := by[s.Key()]; ok {
			return q
		}
		by[s.Key()] = &s
		snap.GPUs = append(snap.GPUs, s)
		return &s
	}
	for _, ps := range energy {
		s := get(ps)
		s.EnergyMJ, s.HasEnergy = ps.Value, true
	}
	for _, ps := range stamps {
		if q, ok := by[sampleOf(ps.Labels).Key()]; ok && q.HasEnergy {
			sec, frac := math.Modf(ps.Value)
			ts := time.Unix(int64(sec), int64(frac*1e9))
			if age := at.Sub(ts); age > 0 {
				q.CounterAge = age
			}
		}
	}
	for _, ps := range power {
		s := get(ps)
		s.PowerW, s.HasPower = ps.Value, true
	}
	for i := range snap.GPUs {
		snap.GPUs[i] = *by[snap.GPUs[i].Key()]
	}
	return snap, nil
}

func (p *promSource) windowPower(ctx context.Context, start, end time.Time) (map[string]PowerStats, error) {
	secs := int64(math.Ceil(end.Sub(start).Seconds()))
	if secs < 1 {
		secs = 1
	}
	rng := fmt.Sprintf("[%ds]", secs)
	out := map[string]PowerStats{}
	for _, fn := range []string{"count_over_time", "avg_over_time", "max_over_time", "min_over_time", "stddev_over_time"} {
		res, err := p.query(ctx, fn+"("+dcgmPower+rng+")", end)
		if err != nil {
			return nil, err
		}
		for _, ps := range res {
			k := sampleOf(ps.Labels).Key()
			st := out[k]
			switch fn {
			case "count_over_time":
				st.Samples = int(ps.Value)
			case "avg_over_time":
				st.MeanW = ps.Value
			case "max_over_time":
				st.MaxW = ps.Value
			case "min_over_time":
				st.MinW = ps.Value
			case "stddev_over_time":
				st.StdW = ps.Value
			}
			out[k] = st
		}
	}
	return out, nil
}

// query runs one instant query at t and returns the series that match the
// source's filter.
func (p *promSource) query(ctx context.Context, q string, t time.Time) ([]prom.Sample, error) {
	res, err := p.api.Query(ctx, q, t)
	if err != nil {
		return nil, err
	}
	kept := res[:0]
	for _, s := range res {
		if p.filter.Match(s.Labels) {
			kept = append(kept, s)
		}
	}
	return kept, nil
}
