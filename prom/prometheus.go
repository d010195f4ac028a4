package prom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds one HTTP body read.
const maxBody = 64 << 20

// Prometheus is a Window over a Prometheus server's HTTP API
// (/api/v1/query). Begin and End only note their instants; Increase asks
// the server, so it may be called long after the window (Prometheus keeps
// the samples). It is not safe for concurrent use.
type Prometheus struct {
	base       string
	client     *http.Client
	start, end time.Time
}

// NewPrometheus returns a Window over the Prometheus server at base, e.g.
// http://prometheus:9090 (a trailing / and /api/v1/... are dropped).
// client nil means a private client with a 10 s timeout.
func NewPrometheus(base string, client *http.Client) *Prometheus {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	base = strings.TrimRight(base, "/")
	if i := strings.Index(base, "/api/v1"); i >= 0 {
		base = base[:i]
	}
	return &Prometheus{base: base, client: client}
}

// Name implements Window.
func (p *Prometheus) Name() string { return "prometheus" }

// Begin implements Window: it notes the window's start.
func (p *Prometheus) Begin(_ context.Context, at time.Time) error {
	p.start, p.end = at, time.Time{}
	return nil
}

// End implements Window: it notes the window's end.
func (p *Prometheus) End(_ context.Context, at time.Time) error {
	if p.start.IsZero() {
		return errors.New("prom: End called without Begin")
	}
	p.end = at
	return nil
}

// Increase implements Window with one instant query, IncreaseQuery.
func (p *Prometheus) Increase(ctx context.Context, family string, matchers ...Matcher) ([]Series, error) {
	if p.end.IsZero() {
		return nil, errors.New("prom: Increase called before End")
	}
	q, at, err := IncreaseQuery(family, matchers, p.start, p.end)
	if err != nil {
		return nil, err
	}
	res, err := p.Query(ctx, q, at)
	if err != nil {
		return nil, err
	}
	out := make([]Series, 0, len(res))
	for _, s := range res {
		out = append(out, Series{Labels: s.Labels, Increase: s.Value})
	}
	return out, nil
}

// IncreaseQuery returns the PromQL query that reads family's increase over
// [start, end], and the instant to evaluate it at:
//
//	increase(family{matchers}[Wms]) at end
//
// with end and start cut to whole milliseconds (the precision of the
// API's time parameter) and W = end − start in milliseconds, so that the
// query's range begins exactly at start and ends exactly at end. A window
// shorter than 1 ms is an error.
func IncreaseQuery(family string, matchers []Matcher, start, end time.Time) (query string, at time.Time, err error) {
	e, s := end.Truncate(time.Millisecond), start.Truncate(time.Millisecond)
	w := e.Sub(s).Milliseconds()
	if w < 1 {
		return "", time.Time{}, fmt.Errorf("prom: window %v to %v is shorter than 1 ms", start, end)
	}
	return fmt.Sprintf("increase(%s[%dms])", Selector(family, matchers...), w), e, nil
}

// Sample is one series of an instant-query result.
type Sample struct {
	Labels map[string]string
	Time   float64 // evaluation time, Unix s
	Value  float64
}

// Query runs one instant query (GET /api/v1/query) evaluated at at, given
// to the millisecond.
func (p *Prometheus) Query(ctx context.Context, q string, at time.Time) ([]Sample, error) {
	v := url.Values{}
	v.Set("query", q)
	v.Set("time", FormatTime(at))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/v1/query?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, err)
	}
	res, err := DecodeQuery(body)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q (HTTP %d): %w", q, resp.StatusCode, err)
	}
	return res, nil
}

// FormatTime writes t as the API's time parameter: Unix seconds with three
// decimals, e.g. "1771322520.000".
func FormatTime(t time.Time) string {
	ms := t.UnixMilli()
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d.%03d", sign, ms/1000, ms%1000)
}

// APIError is the error envelope of the Prometheus HTTP API
// ({"status":"error","errorType":...,"error":...}).
type APIError struct {
	Type    string // errorType, e.g. "bad_data", "timeout", "execution"
	Message string
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("prometheus API error %s: %s", e.Type, e.Message)
}

// DecodeQuery decodes an /api/v1/query response body: a "vector" or
// "scalar" result. An error envelope becomes an *APIError; a "matrix" (a
// range query) is refused. It is safe for concurrent use.
func DecodeQuery(body []byte) ([]Sample, error) {
	var env struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("not a Prometheus API response (%v): %q", err, prefix(body, 200))
	}
	if env.Status != "success" {
		if env.Status == "error" || env.Error != "" {
			return nil, &APIError{Type: env.ErrorType, Message: env.Error}
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
		out := make([]Sample, 0, len(series))
		for i, s := range series {
			t, v, err := point(s.Value)
			if err != nil {
				return nil, fmt.Errorf("prometheus vector result, series %d: %w", i, err)
			}
			if s.Metric == nil {
				s.Metric = map[string]string{}
			}
			out = append(out, Sample{Labels: s.Metric, Time: t, Value: v})
		}
		return out, nil
	case "scalar":
		var pt [2]json.RawMessage
		if err := json.Unmarshal(env.Data.Result, &pt); err != nil {
			return nil, fmt.Errorf("prometheus scalar result: %w", err)
		}
		t, v, err := point(pt)
		if err != nil {
			return nil, fmt.Errorf("prometheus scalar result: %w", err)
		}
		return []Sample{{Labels: map[string]string{}, Time: t, Value: v}}, nil
	}
	return nil, fmt.Errorf("prometheus result type %q: want an instant vector or scalar", env.Data.ResultType)
}

func point(p [2]json.RawMessage) (t, v float64, err error) {
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

func prefix(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
