package cost

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestCPM(t *testing.T) {
	tests := []struct {
		name          string
		perHour, tokS float64
		want, tol     float64
	}{
		{"issue: 3,120 tok/s at 10.8 EUR/h", 10.8, 3120, 0.9615384615, 1e-9},
		{"fixture: OpenCost namespace", 12.09622, 3510.9, 0.95704, 5e-6},
		{"fixture: GPU line only", 10.0, 3510.9, 0.79119, 5e-6},
		{"no goodput", 10.8, 0, math.Inf(1), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CPM(tc.perHour, tc.tokS)
			if math.IsInf(tc.want, 1) != math.IsInf(got, 1) || !math.IsInf(got, 1) && !near(got, tc.want, tc.tol) {
				t.Errorf("CPM = %v, want %v", got, tc.want)
			}
		})
	}
	if got := CPM(10.8, 3120); math.Round(got*100)/100 != 0.96 {
		t.Errorf("CPM rounds to %v, want 0.96", got)
	}
}

func TestPerRequestAndWindow(t *testing.T) {
	if got := PerRequest(10.8, 12); !near(got, 0.00025, 1e-12) {
		t.Errorf("PerRequest = %v, want 0.00025", got)
	}
	if !math.IsInf(PerRequest(10.8, 0), 1) {
		t.Error("PerRequest at 0 req/s must be +Inf")
	}
	if got := Window(10.8, 120); !near(got, 0.36, 1e-12) {
		t.Errorf("Window = %v, want 0.36", got)
	}
	if got := PerHourFromTotal(12.09622, 60); got != 12.09622 {
		t.Errorf("PerHourFromTotal = %v", got)
	}
	if got := PerHourFromTotal(1, 0); got != 0 {
		t.Errorf("PerHourFromTotal over 0 min = %v", got)
	}
}

func fixture(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", "opencost-allocation-namespace-1h.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenCostNamespace(t *testing.T) {
	body := fixture(t)
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/allocation" {
			http.NotFound(w, r)
			return
		}
		gotQuery = r.URL.RawQuery
		w.Write(body)
	}))
	defer srv.Close()
	c, err := NewOpenCost(srv.URL, WithCurrency("EUR"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 2, 17, 9, 0, 0, 0, time.UTC)
	a, err := c.Namespace(context.Background(), "inference", start, start.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gotQuery, "window=2026-02-17T09%3A00%3A00Z%2C2026-02-17T10%3A00%3A00Z") ||
		!strings.Contains(gotQuery, "aggregate=namespace") || !strings.Contains(gotQuery, "accumulate=true") {
		t.Errorf("query = %s", gotQuery)
	}
	want := Allocation{Name: "inference", Currency: "EUR", Start: start, End: start.Add(time.Hour), Minutes: 60,
		CPUCost: 1.01155, GPUCost: 10, RAMCost: 1.08467, TotalCost: 12.09622, GPUHours: 4, GPUCount: 4,
		CPUEfficiency: 0.23382, RAMEfficiency: 0.50781, TotalEfficiency: 0.37559}
	if a != want {
		t.Errorf("allocation = %+v\nwant %+v", a, want)
	}
	if a.PerHour() != 12.09622 || a.GPUPerHour() != 10 {
		t.Errorf("per hour = %v, GPU %v", a.PerHour(), a.GPUPerHour())
	}
	if _, err := c.Namespace(context.Background(), "missing", start, start.Add(time.Hour)); err == nil ||
		!strings.Contains(err.Error(), "--opencost-namespace") {
		t.Errorf("missing namespace: %v", err)
	}
}

func TestOpenCostErrors(t *testing.T) {
	if _, err := NewOpenCost("opencost:9003"); err == nil || !strings.Contains(err.Error(), "--opencost") {
		t.Errorf("bad URL: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"code":500,"message":"boom"}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	c, _ := NewOpenCost(srv.URL)
	if _, err := c.Namespace(context.Background(), "inference", time.Now(), time.Now()); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("HTTP 500: %v", err)
	}
	if _, err := c.Namespace(context.Background(), "", time.Now(), time.Now()); err == nil {
		t.Error("empty namespace: want an error")
	}
	if _, err := DecodeAllocation([]byte(`{"code":400,"message":"bad window"}`), "x"); err == nil || !strings.Contains(err.Error(), "bad window") {
		t.Errorf("code 400: %v", err)
	}
}

func TestDecodeAllocationSteps(t *testing.T) {
	body := `{"code":200,"data":[{"ns":{"name":"ns","minutes":30,"totalCost":1.5,"gpuCost":1}},{"ns":{"name":"ns","minutes":30,"totalCost":2.5,"gpuCost":1}}]}`
	a, err := DecodeAllocation([]byte(body), "ns")
	if err != nil || a.Minutes != 60 || a.TotalCost != 4 || a.PerHour() != 4 {
		t.Errorf("summed steps = %+v, %v", a, err)
	}
}

func FuzzDecodeAllocation(f *testing.F) {
	f.Add(fixture(f), "inference")
	f.Add([]byte(`{"code":200,"data":[null,{}]}`), "")
	f.Fuzz(func(t *testing.T, b []byte, key string) {
		a, err := DecodeAllocation(b, key)
		if err == nil && a.Minutes > 0 && math.IsNaN(a.PerHour()) && !math.IsNaN(a.TotalCost) {
			t.Fatalf("PerHour NaN for %+v", a)
		}
	})
}
