// Package promfake is a stand-in Prometheus server for tests: it answers
// the instant queries package prom sends, increase(family{matchers}[Wms]),
// from two /metrics snapshots taken at the window's edges, and records
// every query so a test can check its window. Nothing else of PromQL is
// understood: any other query gets the API's bad_data error.
package promfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/prom"
)

// Query is one query the server answered.
type Query struct {
	Expr     string
	Time     time.Time // the time parameter, to the millisecond
	Family   string
	Matchers []prom.Matcher
	Range    time.Duration // the range selector's length
}

// Start returns the range's start: Time − Range.
func (q Query) Start() time.Time { return q.Time.Add(-q.Range) }

// Server answers increase() queries with prom.Diff(Before, After).
type Server struct {
	*httptest.Server

	mu      sync.Mutex
	before  prom.Snapshot
	after   prom.Snapshot
	queries []Query
}

// New starts a server on 127.0.0.1 whose increase() answers are the
// increase from before to after, whatever the range asked. Close it when done.
func New(before, after prom.Snapshot) *Server {
	s := &Server{before: before, after: after}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetSnapshots replaces the two snapshots.
func (s *Server) SetSnapshots(before, after prom.Snapshot) {
	s.mu.Lock()
	s.before, s.after = before, after
	s.mu.Unlock()
}

// Queries returns the queries answered so far.
func (s *Server) Queries() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Query(nil), s.queries...)
}

var increaseRe = regexp.MustCompile(`^increase\(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\[(\d+)ms\]\)$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	expr := r.FormValue("query")
	sec, err := strconv.ParseFloat(r.FormValue("time"), 64)
	if err != nil {
		badData(w, "invalid time "+r.FormValue("time"))
		return
	}
	m := increaseRe.FindStringSubmatch(expr)
	if m == nil {
		badData(w, "promfake understands only increase(family{...}[Nms]): "+expr)
		return
	}
	ms, err := parseMatchers(m[2])
	if err != nil {
		badData(w, err.Error())
		return
	}
	n, _ := strconv.ParseInt(m[3], 10, 64)
	q := Query{Expr: expr, Time: time.UnixMilli(int64(sec*1000 + 0.5)).UTC(), Family: m[1], Matchers: ms, Range: time.Duration(n) * time.Millisecond}
	s.mu.Lock()
	s.queries = append(s.queries, q)
	series := prom.Diff(s.before, s.after, q.Family, ms...)
	s.mu.Unlock()

	type item struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	result := []item{}
	for _, x := range series {
		result = append(result, item{Metric: x.Labels, Value: [2]any{sec, strconv.FormatFloat(x.Increase, 'f', -1, 64)}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
}

// parseMatchers parses {a="x",b=~"y"} as package prom writes it.
func parseMatchers(s string) ([]prom.Matcher, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	var out []prom.Matcher
	for s != "" {
		i := strings.Index(s, "=")
		if i <= 0 {
			return nil, fmt.Errorf("bad matchers %q", s)
		}
		m := prom.Matcher{Label: s[:i]}
		s = s[i+1:]
		if strings.HasPrefix(s, "~") {
			m.Regex, s = true, s[1:]
		}
		if !strings.HasPrefix(s, `"`) {
			return nil, fmt.Errorf("bad matcher value %q", s)
		}
		end := 1
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(s) {
			return nil, fmt.Errorf("unterminated value %q", s)
		}
		v, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return nil, err
		}
		m.Value = v
		out = append(out, m)
		s = strings.TrimPrefix(s[end+1:], ",")
	}
	return out, nil
}

func badData(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"status": "error", "errorType": "bad_data", "error": msg})
}
