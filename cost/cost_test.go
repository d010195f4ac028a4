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
	// The older shape: flat GPU averages, no limits.
	if a.GPURequestAverage == nil || *a.GPURequestAverage != 4 || a.GPUUsageAverage == nil || *a.GPUUsageAverage != 0 || a.IsGPUShared != nil {
		t.Errorf("GPU averages %v %v shared %v", a.GPURequestAverage, a.GPUUsageAverage, a.IsGPUShared)
	}
	a.GPURequestAverage, a.GPUUsageAverage = nil, nil
	if a != want {
		t.Errorf("allocation = %+v\nwant %+v", a, want)
	}
	if a.PerHour() != 12.09622 || a.GPUPerHour() != 10 {
		t.Errorf("per hour = %v, GPU %v", a.PerHour(), a.GPUPerHour())
	}
	if _, err := c.Namespace(context.Background(), "missing", start, start.Add(time.Hour)); err == nil ||
		!strings.Contains(err.Error(), `no allocation named "missing"`) {
		t.Errorf("missing namespace: %v", err)
	}
}

func TestOpenCostErrors(t *testing.T) {
	if _, err := NewOpenCost("opencost:9003"); err == nil || !strings.Contains(err.Error(), `OpenCost base URL "opencost:9003"`) {
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
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", "opencost-allocation-gpu-nested.json")); err == nil {
		f.Add(b, "inference")
	}
	f.Add([]byte(`{"code":200,"data":[{"x":{"gpuAllocation":null,"gpuUsageAverage":1}}]}`), "x")
	f.Add([]byte(`{"code":200,"data":[null,{}]}`), "")
	f.Fuzz(func(t *testing.T, b []byte, key string) {
		a, err := DecodeAllocation(b, key)
		if err == nil && a.Minutes > 0 && math.IsNaN(a.PerHour()) && !math.IsNaN(a.TotalCost) {
			t.Fatalf("PerHour NaN for %+v", a)
		}
	})
}

func TestParsePrices(t *testing.T) {
	p, err := ParsePrices(" input=0.50, output=1.50 ,cached_input=0.10")
	if err != nil || p.Input != 0.5 || p.Output != 1.5 || p.CachedInput != 0.1 || !p.HasCachedInput {
		t.Fatalf("%+v, %v", p, err)
	}
	if p.String() != "cached_input=0.1,input=0.5,output=1.5" {
		t.Errorf("String = %q", p.String())
	}
	for _, tc := range []struct{ in, want string }{
		{"", "input= is required"},
		{"input=0.5", "output= is required"},
		{"input=0.5,output=-1", `output="-1": want a price >= 0`},
		{"input=x,output=1", `input="x"`},
		{"input=0.5,output=1,cache=0.1", `"cache" is not a token type`},
		{"input=0.5,output=1,input=2", "given twice"},
		{"input=0.5;output=1", "want a price"},
		{"input=0.5,output=NaN", "want a price"},
		{"0.5", "want TYPE=EUR_PER_1M"},
	} {
		_, err := ParsePrices(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "prices") {
			t.Errorf("%q: %v, want an error naming the prices with %q", tc.in, err, tc.want)
		}
	}
}

// A review: "input=0.50,ouput=1.50" said "not a token type" without the
// type meant, then "output= is required" as if output had not been given.
// One error, with the suggestion.
func TestParsePricesMisspelledType(t *testing.T) {
	_, err := ParsePrices("input=0.50,ouput=1.50")
	if err == nil || !strings.Contains(err.Error(), `"ouput" is not a token type (did you mean output?)`) || strings.Contains(err.Error(), "is required") {
		t.Errorf("%v, want one error suggesting output", err)
	}
	_, err = ParsePrices("input=0.50,output=1,cahced_input=0.1")
	if err == nil || !strings.Contains(err.Error(), "did you mean cached_input?") {
		t.Errorf("%v, want cached_input suggested", err)
	}
	// Nothing near: no suggestion, and the missing output is still said.
	_, err = ParsePrices("input=0.50,reasoning=1")
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "output= is required") {
		t.Errorf("%v, want no suggestion and output= required", err)
	}
}

// Seen: "input=abc,output=1" was refused twice, for its value and as if
// input= were missing. A bad value is its key's only error.
func TestParsePricesBadValueOnce(t *testing.T) {
	_, err := ParsePrices("input=abc,output=1")
	if err == nil || strings.Contains(err.Error(), "is required") || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("%v, want one error, about input's value", err)
	}
}

// By hand: 1,000 input tokens of which 400 cached, 250 output, at
// 0.50 / 0.10 / 1.50 EUR per 1M: 600 × 0.5e-6 + 400 × 0.1e-6 + 250 × 1.5e-6
// = 0.0003 + 0.00004 + 0.000375 = 0.000715 EUR.
func TestPricesCost(t *testing.T) {
	p := Prices{Input: 0.5, Output: 1.5, CachedInput: 0.1, HasCachedInput: true}
	c := p.Cost(1000, 400, 250)
	if !near(c.Input, 0.0003, 1e-15) || !near(c.CachedInput, 0.00004, 1e-15) || !near(c.Output, 0.000375, 1e-15) || !near(c.Total(), 0.000715, 1e-15) {
		t.Errorf("cost = %+v (total %v)", c, c.Total())
	}
	// Without a cached price, cached tokens cost as input.
	p.HasCachedInput = false
	if c := p.Cost(1000, 400, 250); !near(c.Total(), 0.0005+0.000375, 1e-15) {
		t.Errorf("no cached price: %+v", c)
	}
	if c := p.Cost(10, 50, 0); c.Input != 0 || !near(c.CachedInput, 10*0.5e-6, 1e-18) {
		t.Errorf("cached above input is clamped: %+v", c)
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add("input=0.50,output=1.50,cached_input=0.10")
	f.Add("input=1e3,output=0")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrices(s)
		if err != nil {
			if !strings.Contains(err.Error(), "prices") {
				t.Fatalf("error without the prices: %v", err)
			}
			return
		}
		back, err := ParsePrices(p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, p, p.String(), back, err)
		}
	})
}

// OpenCost's newer shape: the GPU averages in a nested gpuAllocation
// object, and the CPU and RAM limits; totalCost stays the figure.
func TestDecodeAllocationNestedGPU(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", "opencost-allocation-gpu-nested.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeAllocation(b, "inference")
	if err != nil {
		t.Fatal(err)
	}
	if a.TotalCost != 12.09622 || a.PerHour() != 12.09622 || a.GPUCost != 10 || a.Minutes != 60 {
		t.Errorf("costs %+v", a)
	}
	if a.GPURequestAverage == nil || *a.GPURequestAverage != 4 || a.GPUUsageAverage == nil || *a.GPUUsageAverage != 2.87 ||
		a.IsGPUShared == nil || *a.IsGPUShared {
		t.Errorf("gpuAllocation: request %v usage %v shared %v", a.GPURequestAverage, a.GPUUsageAverage, a.IsGPUShared)
	}
	if eff, ok := a.GPUEfficiency(); !ok || !near(eff, 0.7175, 1e-12) {
		t.Errorf("GPU efficiency %v, %v", eff, ok)
	}
	if a.CPUCoreLimitAverage != 32 || a.RAMByteLimitAverage != 274877906944 {
		t.Errorf("limits %v cores, %v bytes", a.CPUCoreLimitAverage, a.RAMByteLimitAverage)
	}
	// A namespace without GPUs: requested 0, no efficiency.
	k, err := DecodeAllocation(b, "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := k.GPUEfficiency(); ok {
		t.Errorf("kube-system has a GPU efficiency: %+v", k)
	}
}
