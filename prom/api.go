package prom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// API is a client of a Prometheus server's HTTP query API (/api/v1/query).
// It is safe for concurrent use.
type API struct {
	base   string
	client *http.Client
}

// NewAPI returns a client of the Prometheus server at base, e.g.
// http://prometheus:9090 (a trailing / and /api/v1/... are dropped).
// client nil means a private client with a DefaultTimeout timeout.
func NewAPI(base string, client *http.Client) *API {
	base = strings.TrimRight(base, "/")
	if i := strings.Index(base, "/api/v1"); i >= 0 {
		base = base[:i]
	}
	return &API{base: base, client: orDefault(client)}
}

// Query runs one instant query (GET /api/v1/query) evaluated at at, given
// to the millisecond (FormatTime), and decodes its answer (DecodeQuery).
// Errors name the query; an answer in the API's error envelope is an
// *APIError, whatever the HTTP status. A URL an error quotes has its
// credentials redacted. It is safe for concurrent use.
func (a *API) Query(ctx context.Context, q string, at time.Time) ([]Sample, error) {
	v := url.Values{}
	v.Set("query", q)
	v.Set("time", FormatTime(at))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v1/query?"+v.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, redactErr(err))
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", q, redactErr(err))
	}
	defer resp.Body.Close()
	body, err := readAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q (HTTP %d): %w", q, resp.StatusCode, err)
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
