package energy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// promSource reads the DCGM series stored in a Prometheus server through its
// HTTP API (/api/v1/query). The counter is read by instant queries at the
// window's start and end (not increase(), which extrapolates to the range
// edges); power is summarised with avg/max/stddev_over_time over the window.
type promSource struct {
	base   string
	client *http.Client
	filter Filter
}

// NewPrometheus returns a Source over the Prometheus server at base (e.g.
// http://prometheus:9090) that stores dcgm-exporter's series. Options:
// WithHTTPClient, WithFilter (applied to the returned series' labels).
func NewPrometheus(base string, opts ...Option) Source {
	o := newOptions(opts)
	return &promSource{base: strings.TrimRight(base, "/"), client: o.client, filter: o.filter}
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
	get := func(ps PromSample) *Sample {
		s := sampleOf(ps.Labels)
		if d := ps.Labels["DCGM_FI_DRIVER_VERSION"]; d != "" && snap.Driver == "" {
			snap.Driver = d
		}
		if q, ok := by[s.key()]; ok {
			return q
		}
		by[s.key()] = &s
		snap.GPUs = append(snap.GPUs, s)
		return &s
	}
	for _, ps := range energy {
		s := get(ps)
		s.EnergyMJ, s.HasEnergy = ps.Value, true
	}
	for _, ps := range stamps {
		if q, ok := by[sampleOf(ps.Labels).key()]; ok && q.HasEnergy {
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
		snap.GPUs[i] = *by[snap.GPUs[i].key()]
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
			k := sampleOf(ps.Labels).key()
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
func (p *promSource) query(ctx context.Context, q string, t time.Time) ([]PromSample, error) {
	v := url.Values{}
	v.Set("query", q)
	v.Set("time", strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64))
	u := p.base + "/api/v1/query?" + v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxScrapeBytes))
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, err)
	}
	res, err := DecodePromQuery(body)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q (HTTP %d): %w", q, resp.StatusCode, err)
	}
	kept := res[:0]
	for _, s := range res {
		if p.filter.Match(s.Labels) {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// PromSample is one series of a Prometheus instant-query result.
type PromSample struct {
	Labels map[string]string
	Time   float64 // evaluation time, Unix s
	Value  float64
}

// PromError is the error envelope of the Prometheus HTTP API
// ({"status":"error","errorType":...,"error":...}).
type PromError struct {
	Type    string // errorType, e.g. "bad_data", "timeout", "execution"
	Message string
}

// Error implements error.
func (e *PromError) Error() string {
	return fmt.Sprintf("prometheus API error %s: %s", e.Type, e.Message)
}

type promEnvelope struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// DecodePromQuery decodes a /api/v1/query response body: a "vector" or
// "scalar" result. An error envelope becomes a *PromError; a "matrix"
// (a range query) is refused. It is safe for concurrent use.
func DecodePromQuery(body []byte) ([]PromSample, error) {
	var env promEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		snippet := body
		if len(snippet) > 200 {
			snippet = snippet[:200]
		}
		return nil, fmt.Errorf("not a Prometheus API response (%v): %q", err, snippet)
	}
	if env.Status != "success" {
		if env.Status == "error" || env.Error != "" {
			return nil, &PromError{Type: env.ErrorType, Message: env.Error}
		}
		return nil, fmt.Errorf("prometheus API: status %q", env.Status)
	}
	switch env.Data.ResultType {
	case "vector":
		var series []struct {
			Metric map[string]string  `json:"metric"`
			Value  [2]json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(env.Data.Result, &series); err != nil {
			return nil, fmt.Errorf("prometheus vector result: %w", err)
		}
		out := make([]PromSample, 0, len(series))
		for i, s := range series {
			t, v, err := promPoint(s.Value)
			if err != nil {
				return nil, fmt.Errorf("prometheus vector result, series %d: %w", i, err)
			}
			if s.Metric == nil {
				s.Metric = map[string]string{}
			}
			out = append(out, PromSample{Labels: s.Metric, Time: t, Value: v})
		}
		return out, nil
	case "scalar":
		var pt [2]json.RawMessage
		if err := json.Unmarshal(env.Data.Result, &pt); err != nil {
			return nil, fmt.Errorf("prometheus scalar result: %w", err)
		}
		t, v, err := promPoint(pt)
		if err != nil {
			return nil, fmt.Errorf("prometheus scalar result: %w", err)
		}
		return []PromSample{{Labels: map[string]string{}, Time: t, Value: v}}, nil
	}
	return nil, fmt.Errorf("prometheus result type %q: want an instant vector or scalar", env.Data.ResultType)
}

func promPoint(p [2]json.RawMessage) (t, v float64, err error) {
	if p[0] == nil || p[1] == nil {
		return 0, 0, errors.New("value is not a [time, \"value\"] pair")
	}
	if err := json.Unmarshal(p[0], &t); err != nil {
		return 0, 0, fmt.Errorf("time: %w", err)
	}
	var s string
	if err := json.Unmarshal(p[1], &s); err != nil {
		return 0, 0, fmt.Errorf("value: %w", err)
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("value: %w", err)
	}
	return t, v, nil
}
