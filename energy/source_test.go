package energy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/prom"
)

// The fixtures' window: t0 = 1771322400, t1 = t0 + 120 s.
var (
	t0 = time.Unix(1771322400, 0).UTC()
	t1 = t0.Add(120 * time.Second)
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "telemetry", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edgeClock returns t0 on its first call and t1 after.
func edgeClock() func() time.Time {
	var n atomic.Int32
	return func() time.Time {
		if n.Add(1) == 1 {
			return t0
		}
		return t1
	}
}

// scrapes serves the bodies in order, then repeats the last one.
func scrapes(t *testing.T, bodies ...[]byte) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		i := min(int(n.Add(1))-1, len(bodies)-1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(bodies[i])
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hasWarning(ws []metrics.Warning, code metrics.WarningCode) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

func measure(t *testing.T, m *Meter) Reading {
	t.Helper()
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := m.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDCGMWindow(t *testing.T) {
	srv := scrapes(t, fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after.prom"))
	m, err := Parse("dcgm="+srv.URL, WithClock(edgeClock()), WithSampleInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := measure(t, m)

	wantJ := []float64{83305.417, 83843.902, 82549.136, 83939.211}
	wantTemp := []float64{64, 67, 62, 68}
	if r.GPUCount != 4 || len(r.GPUs) != 4 {
		t.Fatalf("GPUCount = %d, want 4", r.GPUCount)
	}
	for i, g := range r.GPUs {
		if g.Index != i || !near(g.EnergyJ, wantJ[i], 1e-6) || g.ResetDetected || g.Estimated {
			t.Errorf("GPU %d = %+v, want %v J", i, g, wantJ[i])
		}
		if g.TempC != wantTemp[i] {
			t.Errorf("GPU %d start temperature = %v, want %v", i, g.TempC, wantTemp[i])
		}
		if g.Power.Samples != 2 {
			t.Errorf("GPU %d power samples = %d, want 2 (the two edges)", i, g.Power.Samples)
		}
	}
	if r.GPUs[0].Power.MeanW != (697.412+693.208)/2 {
		t.Errorf("GPU 0 sampled power mean = %v, want the mean of the two gauges", r.GPUs[0].Power.MeanW)
	}
	if !near(r.GrossEnergyJ, 333637.666, 1e-6) || r.EnergyJ != r.GrossEnergyJ {
		t.Errorf("energy = %v J (gross %v), want 333637.666", r.EnergyJ, r.GrossEnergyJ)
	}
	if !near(r.MeanW, 2780.31388, 1e-5) || r.WindowSeconds != 120 {
		t.Errorf("mean W = %v over %v s, want 2780.31388 over 120", r.MeanW, r.WindowSeconds)
	}
	if !r.Valid || r.ResetDetected || len(r.Warnings) != 0 {
		t.Errorf("Valid = %v, reset %v, warnings %v", r.Valid, r.ResetDetected, r.Warnings)
	}
	if r.Hardware() != "4xNVIDIA H100 80GB HBM3" || r.Driver != "550.90.07" || r.Source != "dcgm" {
		t.Errorf("hardware %q driver %q source %q", r.Hardware(), r.Driver, r.Source)
	}
	if f := r.Figures(421308, 1, 0); !f.Valid || !near(f.JPerToken, 0.791909, 5e-7) {
		t.Errorf("J/token = %v, want 0.791909", f.JPerToken)
	}
}

func TestDCGMIdleBaseline(t *testing.T) {
	srv := scrapes(t, fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after.prom"))
	m, err := Parse("dcgm="+srv.URL+"/metrics", WithClock(edgeClock()), WithSampleInterval(0), WithIdleBaseline(274.75))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	// README §3: 333,637.666 − 274.75 × 120 = 300,667.666 J, 0.713653 J/token.
	if !near(r.EnergyJ, 300667.666, 1e-6) || !near(r.GrossEnergyJ, 333637.666, 1e-6) || r.IdleBaselineW != 274.75 {
		t.Errorf("energy %v gross %v idle %v", r.EnergyJ, r.GrossEnergyJ, r.IdleBaselineW)
	}
	if f := r.Figures(421308, 1, 0); !near(f.JPerToken, 0.713653, 5e-7) || f.IdleBaselineW != 274.75 {
		t.Errorf("J/token with idle baseline = %v, want 0.713653", f.JPerToken)
	}
}

func TestDCGMCounterReset(t *testing.T) {
	srv := scrapes(t, fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after-gpu2-driver-reload.prom"))
	m, err := Parse("dcgm="+srv.URL, WithClock(edgeClock()), WithSampleInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	if r.Valid || !r.ResetDetected {
		t.Fatalf("Valid %v ResetDetected %v: a reset window must be invalid", r.Valid, r.ResetDetected)
	}
	if !hasWarning(r.Warnings, "energy_counter_reset") {
		t.Errorf("warnings %v: want energy_counter_reset", r.Warnings)
	}
	for i, g := range r.GPUs {
		if (i == 2) != g.ResetDetected {
			t.Errorf("GPU %d ResetDetected = %v", i, g.ResetDetected)
		}
	}
	// GPU 2 is estimated from its only power sample (689.935 W at t0) × 120 s;
	// the truth is 82,549.136 J: the estimate is within 0.3 %.
	g2 := r.GPUs[2]
	if !g2.Estimated || !near(g2.EnergyJ, 689.935*120, 1e-6) {
		t.Errorf("GPU 2 estimate = %v J (estimated %v), want %v", g2.EnergyJ, g2.Estimated, 689.935*120)
	}
	if !near(r.GPUs[0].EnergyJ, 83305.417, 1e-6) {
		t.Errorf("GPU 0 = %v J, want its exact counter delta", r.GPUs[0].EnergyJ)
	}
	if f := r.Figures(421308, 1, 40); f.Valid {
		t.Error("per-token figures of a reset window reported as valid")
	}
}

func TestDCGMFilter(t *testing.T) {
	tests := []struct {
		filter string
		gpus   int
	}{
		{"", 4},
		{"Hostname=gpu-node-01", 4},
		{"hostname=gpu-node-01", 4},
		{"Hostname=gpu-node-01,namespace=inference", 4},
		{"gpu=2", 1},
		{"UUID=GPU-08681391-ca49-9ba3-070b-938c8318280d", 1},
		{"Hostname=gpu-node-99", 0},
		{"namespace=other", 0},
	}
	before, after := fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after.prom")
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			f, err := ParseFilter(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			srv := scrapes(t, before, after)
			m, err := Parse("dcgm="+srv.URL, WithFilter(f), WithClock(edgeClock()), WithSampleInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			r := measure(t, m)
			if r.GPUCount != tc.gpus {
				t.Errorf("GPUCount = %d, want %d", r.GPUCount, tc.gpus)
			}
			if tc.gpus == 0 && (r.Valid || !hasWarning(r.Warnings, "energy_no_gpu")) {
				t.Errorf("no GPU: Valid %v warnings %v", r.Valid, r.Warnings)
			}
		})
	}
}

func TestParseFilterErrors(t *testing.T) {
	_, err := ParseFilter("Hostname=a,,x=,=y")
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"energy filter term 2", "energy filter term 3", "energy filter term 4"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	f, _ := ParseFilter("namespace=inference, Hostname=gpu-node-01")
	if f.String() != "Hostname=gpu-node-01,namespace=inference" {
		t.Errorf("String = %q", f.String())
	}
}

func TestDCGMHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "exporter down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	m, _ := Parse("dcgm=" + srv.URL)
	err := m.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("Start error = %v, want HTTP 503", err)
	}
}

// promServer answers instant queries from the DCGM fixtures: the counter at
// t0 from dcgm-before, at t1 from dcgm-after; timestamp() age seconds old.
func promServer(t *testing.T, age float64) *httptest.Server {
	t.Helper()
	before, err := ReadDCGM(strings.NewReader(string(fixture(t, "dcgm-before.prom"))), nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := ReadDCGM(strings.NewReader(string(fixture(t, "dcgm-after.prom"))), nil)
	if err != nil {
		t.Fatal(err)
	}
	avg := fixture(t, "prom-query-avg-power.json")
	vector := func(w http.ResponseWriter, at float64, snap Snapshot, val func(Sample) float64) {
		type series struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		var res []series
		for _, g := range snap.GPUs {
			res = append(res, series{
				Metric: map[string]string{"UUID": g.UUID, "gpu": strconv.Itoa(g.Index), "Hostname": g.Host,
					"modelName": g.Name, "exported_namespace": "inference", "namespace": "gpu-operator"},
				Value: [2]any{at, strconv.FormatFloat(val(g), 'f', -1, 64)},
			})
		}
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": res}})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query().Get("query")
		at, _ := strconv.ParseFloat(r.URL.Query().Get("time"), 64)
		snap := after
		if at == float64(t0.Unix()) {
			snap = before
		}
		switch {
		case q == dcgmEnergy:
			vector(w, at, snap, func(s Sample) float64 { return s.EnergyMJ })
		case q == "timestamp("+dcgmEnergy+")":
			vector(w, at, snap, func(Sample) float64 { return at - age })
		case q == dcgmPower:
			vector(w, at, snap, func(s Sample) float64 { return s.PowerW })
		case q == "avg_over_time("+dcgmPower+"[120s])":
			w.Write(avg)
		case strings.HasPrefix(q, "count_over_time("):
			vector(w, at, snap, func(Sample) float64 { return 8 })
		case strings.HasPrefix(q, "max_over_time("):
			vector(w, at, snap, func(s Sample) float64 { return s.PowerW + 10 })
		case strings.HasPrefix(q, "min_over_time("), strings.HasPrefix(q, "stddev_over_time("):
			vector(w, at, snap, func(Sample) float64 { return 1.5 })
		default:
			w.WriteHeader(http.StatusBadRequest)
			w.Write(fixture(t, "prom-error-bad-data.json"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPrometheusWindow(t *testing.T) {
	srv := promServer(t, 0)
	f, _ := ParseFilter("Hostname=gpu-node-01,namespace=inference")
	m, err := Parse("prometheus="+srv.URL, WithClock(edgeClock()), WithFilter(f))
	if err != nil {
		t.Fatal(err)
	}
	r := measure(t, m)
	if r.Source != "prometheus" || r.GPUCount != 4 || !r.Valid || len(r.Warnings) != 0 {
		t.Fatalf("reading: source %s, %d GPUs, valid %v, warnings %v", r.Source, r.GPUCount, r.Valid, r.Warnings)
	}
	if !near(r.GrossEnergyJ, 333637.666, 1e-6) {
		t.Errorf("energy = %v J, want 333637.666 (instant counter reads, not increase())", r.GrossEnergyJ)
	}
	// Power over the window comes from avg_over_time (the fixture), not the edges.
	if p := r.GPUs[0].Power; p.MeanW != 694.3057777777778 || p.Samples != 8 || p.StdW != 1.5 {
		t.Errorf("GPU 0 power = %+v, want avg_over_time 694.3057777777778", p)
	}
}

func TestPrometheusCoarseCounter(t *testing.T) {
	srv := promServer(t, 10) // samples 10 s old at both edges of a 120 s window
	m, _ := Parse("prometheus="+srv.URL, WithClock(edgeClock()))
	r := measure(t, m)
	if !hasWarning(r.Warnings, "energy_counter_coarse") {
		t.Errorf("warnings %v: want energy_counter_coarse", r.Warnings)
	}
}

func TestPrometheusErrorEnvelope(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write(fixture(t, "prom-error-bad-data.json"))
	}))
	defer srv.Close()
	m, _ := Parse("prometheus=" + srv.URL)
	err := m.Start(context.Background())
	var pe *prom.APIError
	if !errors.As(err, &pe) || pe.Type != "bad_data" || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("error = %v, want a bad_data prom.APIError", err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		spec, source, errHas string
	}{
		{"", "none", ""},
		{"none", "none", ""},
		{"NONE", "none", ""},
		{"dcgm=http://gpu-node-01:9400/metrics", "dcgm", ""},
		{"dcgm=http://gpu-node-01:9400", "dcgm", ""},
		{"prometheus=https://prom.example:9090/", "prometheus", ""},
		{"dcgm=", "", "energy source dcgm="},
		{"dcgm=ftp://x", "", "want an http(s) URL"},
		{"prometheus=not a url", "", "energy source prometheus="},
		{"none=1", "", "want one of"},
		{"rapl", "", `energy source "rapl"`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := Parse(tc.spec)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("Parse(%q) error = %v, want %q", tc.spec, err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Source().Name() != tc.source {
				t.Errorf("source = %s, want %s", m.Source().Name(), tc.source)
			}
		})
	}
}

func TestNoneReading(t *testing.T) {
	m, _ := Parse("none")
	r := measure(t, m)
	if r.Valid || r.GPUCount != 0 || r.Source != "none" || len(r.Warnings) != 0 {
		t.Errorf("none reading = %+v", r)
	}
}

func TestMeterMisuse(t *testing.T) {
	m := NewMeter(None())
	if _, err := m.Stop(context.Background()); err == nil {
		t.Error("Stop without Start: want an error")
	}
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(context.Background()); err == nil {
		t.Error("Start twice: want an error")
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
}

// Example-style check that warnings name the GPU.
func TestWarningNamesGPU(t *testing.T) {
	srv := scrapes(t, fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after-gpu2-driver-reload.prom"))
	m, _ := Parse("dcgm="+srv.URL, WithClock(edgeClock()), WithSampleInterval(0))
	r := measure(t, m)
	msg := fmt.Sprint(r.Warnings)
	if !strings.Contains(msg, "GPU-54b49ae9-a7bd-89a8-f3fc-deddc0135cf2") {
		t.Errorf("warning %s does not name GPU 2's UUID", msg)
	}
}
