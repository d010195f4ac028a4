package energy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/promfake"
	"github.com/gollm-bench/gollm-bench/prom"
)

// The Kepler pairs in testdata/telemetry (README there): over the fixtures'
// 120 s window the pod's GPUs drew 333,637.666 J (the DCGM deltas), of
// which 32,970 J idle (the idle watts × 120 s) and 300,667.666 J active,
// all attributed to the one pod; its CPU drew 21,600 J (package) + 2,880 J
// (dram).
const (
	keplerPodGPUJ  = 300667.666
	keplerPodCPUJ  = 24480.0
	keplerNodeGPUJ = 333637.666
	keplerIdleJ    = 32970.0
	vllmPod        = "vllm-llama31-70b-6d8f9c7b54-q7x2m"
)

func snapshot(t testing.TB, name string) prom.Snapshot {
	t.Helper()
	s, err := prom.ParseText(bytes.NewReader(fixture(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readPod(t *testing.T, m *PodMeter) PodReading {
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

func checkCurrent(t *testing.T, r PodReading, scope string) {
	t.Helper()
	if !r.Valid || r.Generation != KeplerCurrent || r.Scope != scope || len(r.Warnings) != 0 {
		t.Fatalf("reading = %+v", r)
	}
	if !near(r.GPUJ, keplerPodGPUJ, 1e-6) || !near(r.CPUJ, keplerPodCPUJ, 1e-6) || !near(r.EnergyJ, keplerPodGPUJ+keplerPodCPUJ, 1e-6) {
		t.Errorf("GPU %v J, CPU %v J, total %v J; want %v, %v, %v", r.GPUJ, r.CPUJ, r.EnergyJ, keplerPodGPUJ, keplerPodCPUJ, keplerPodGPUJ+keplerPodCPUJ)
	}
	if r.NodeGPUJ == nil || !near(*r.NodeGPUJ, keplerNodeGPUJ, 1e-6) ||
		r.NodeGPUIdleJ == nil || !near(*r.NodeGPUIdleJ, keplerIdleJ, 1e-6) ||
		r.NodeGPUActiveJ == nil || !near(*r.NodeGPUActiveJ, keplerPodGPUJ, 1e-6) {
		t.Errorf("node GPU %v, idle %v, active %v", r.NodeGPUJ, r.NodeGPUIdleJ, r.NodeGPUActiveJ)
	}
	if len(r.Pods) != 1 || r.Pods[0] != vllmPod || len(r.Nodes) != 1 || r.Nodes[0] != "gpu-node-01" {
		t.Errorf("pods %v, nodes %v", r.Pods, r.Nodes)
	}
	if r.WindowSeconds != 120 {
		t.Errorf("window %v s", r.WindowSeconds)
	}
}

// Kepler 0.10+, read by scraping the exporter at the window's edges.
func TestKeplerScrape(t *testing.T) {
	srv := scrapes(t, fixture(t, "kepler-v0.11-t0.prom"), fixture(t, "kepler-v0.11-t1.prom"))
	m, err := ParsePodEnergy("kepler="+srv.URL+",namespace=inference,pod="+vllmPod, WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := readPod(t, m)
	checkCurrent(t, r, "pod")
	if r.Via != "scrape" || r.Selector != "namespace=inference,pod="+vllmPod {
		t.Errorf("via %q selector %q", r.Via, r.Selector)
	}
}

// Kepler 0.10+ through Prometheus: every increase() query covers exactly
// the window, start and end to the second.
func TestKeplerPrometheusWindow(t *testing.T) {
	srv := promfake.New(snapshot(t, "kepler-v0.11-t0.prom"), snapshot(t, "kepler-v0.11-t1.prom"))
	defer srv.Close()
	m, err := ParsePodEnergy("prometheus="+srv.URL+",namespace=inference,pod=~vllm-.*", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := readPod(t, m)
	checkCurrent(t, r, "pod")
	qs := srv.Queries()
	families := map[string]bool{}
	for _, q := range qs {
		families[q.Family] = true
		if !q.Start().Equal(t0) || !q.Time.Equal(t1) || q.Range.Seconds() != 120 {
			t.Errorf("%s: window %v .. %v, want %v .. %v", q.Expr, q.Start(), q.Time, t0, t1)
		}
	}
	for _, f := range []string{KeplerPodGPU, KeplerPodCPU, KeplerNodeGPU, KeplerNodeGPUIdle, KeplerNodeGPUActive} {
		if !families[f] {
			t.Errorf("no query of %s in %v", f, qs)
		}
	}
	if !strings.Contains(qs[0].Expr, `pod_namespace="inference"`) || !strings.Contains(qs[0].Expr, `pod_name=~"vllm-.*"`) {
		t.Errorf("first query %s does not filter by namespace and pod", qs[0].Expr)
	}
}

// A container selection reads the container families, joined to the
// matched pods by pod_id.
func TestKeplerContainer(t *testing.T) {
	srv := promfake.New(snapshot(t, "kepler-v0.11-t0.prom"), snapshot(t, "kepler-v0.11-t1.prom"))
	defer srv.Close()
	m, err := ParsePodEnergy("prometheus="+srv.URL+",namespace=inference,container=vllm", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	checkCurrent(t, readPod(t, m), "container")
	m, err = ParsePodEnergy("prometheus="+srv.URL+",namespace=inference,container=sidecar", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := readPod(t, m)
	if r.Valid || !hasWarning(r.Warnings, WarnPodNoSeries) {
		t.Errorf("unknown container: %+v", r)
	}
}

// Kepler 0.9-: kepler_container_joules_total with mode; another
// namespace's container is left out.
func TestKeplerLegacy(t *testing.T) {
	for _, via := range []string{"scrape", "prometheus"} {
		t.Run(via, func(t *testing.T) {
			var spec string
			if via == "scrape" {
				srv := scrapes(t, fixture(t, "kepler-legacy-v0.7-t0.prom"), fixture(t, "kepler-legacy-v0.7-t1.prom"))
				spec = "kepler=" + srv.URL
			} else {
				srv := promfake.New(snapshot(t, "kepler-legacy-v0.7-t0.prom"), snapshot(t, "kepler-legacy-v0.7-t1.prom"))
				t.Cleanup(srv.Close)
				spec = "prometheus=" + srv.URL
			}
			m, err := ParsePodEnergy(spec+",namespace=inference", WithClock(edgeClock()))
			if err != nil {
				t.Fatal(err)
			}
			r := readPod(t, m)
			if !r.Valid || r.Generation != KeplerLegacy || len(r.Warnings) != 0 {
				t.Fatalf("reading = %+v", r)
			}
			if !near(r.GPUJ, keplerPodGPUJ, 1e-6) || !near(r.CPUJ, keplerPodCPUJ, 1e-6) || !near(r.EnergyJ, keplerPodGPUJ+keplerPodCPUJ+600, 1e-6) {
				t.Errorf("GPU %v, CPU %v, total %v", r.GPUJ, r.CPUJ, r.EnergyJ)
			}
			if r.IdleAttributedJ == nil || !near(*r.IdleAttributedJ, 32970+6000+960, 1e-6) {
				t.Errorf("idle attributed %v", r.IdleAttributedJ)
			}
			if r.NodeGPUJ != nil || len(r.Pods) != 1 || r.Pods[0] != vllmPod {
				t.Errorf("node %v pods %v", r.NodeGPUJ, r.Pods)
			}
		})
	}
}

// The shared single readings of both generations hold every family the
// reader uses, with the values their README gives.
func TestKeplerFixtureFamilies(t *testing.T) {
	none := prom.Snapshot{}
	cur := snapshot(t, "kepler-v0.11-gpu.prom")
	for _, c := range []struct {
		family string
		ms     []prom.Matcher
		want   float64
	}{
		{KeplerPodGPU, []prom.Matcher{prom.Eq("pod_namespace", "inference")}, 5187604.3},
		{KeplerPodCPU, []prom.Matcher{prom.Eq("pod_name", vllmPod)}, 61873.52 + 412955.87},
		{KeplerContainerGPU, []prom.Matcher{prom.Eq("container_name", "vllm")}, 5187604.3},
		{KeplerNodeGPU, []prom.Matcher{prom.Eq("gpu", "0")}, 902966432.378},
		{KeplerNodeGPUIdle, nil, 6412466 + 6570709 + 6267036 + 6499482},
		{KeplerNodeGPUActive, nil, 39871455.123 + 40133208.917 + 39412876.002 + 40305117.482},
	} {
		if got := prom.Sum(prom.Diff(none, cur, c.family, c.ms...)); !near(got, c.want, 1e-3) {
			t.Errorf("%s = %v, want %v", c.family, got, c.want)
		}
	}
	legacy := snapshot(t, "kepler-legacy-v0.7.prom")
	ns := prom.Eq("container_namespace", "inference")
	for _, c := range []struct {
		family, mode string
		want         float64
	}{
		{KeplerLegacyContainerGPU, "dynamic", 5187604.3},
		{KeplerLegacyContainerGPU, "idle", 863204.4},
		{KeplerLegacyContainerPackage, "dynamic", 412955.87},
	} {
		if got := prom.Sum(prom.Diff(none, legacy, c.family, ns, prom.Eq("mode", c.mode))); !near(got, c.want, 1e-6) {
			t.Errorf("%s{mode=%s} = %v, want %v", c.family, c.mode, got, c.want)
		}
	}
}

// A selection nothing matches is a warning and no figure, never a zero
// presented as a measurement.
func TestKeplerNoSeries(t *testing.T) {
	srv := promfake.New(snapshot(t, "kepler-v0.11-t0.prom"), snapshot(t, "kepler-v0.11-t1.prom"))
	defer srv.Close()
	m, err := ParsePodEnergy("prometheus="+srv.URL+",namespace=elsewhere", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := readPod(t, m)
	if r.Valid || !hasWarning(r.Warnings, WarnPodNoSeries) || !strings.Contains(r.Warnings[0].Message, "namespace=elsewhere") {
		t.Errorf("reading = %+v", r)
	}
}

func TestKeplerReset(t *testing.T) {
	// The t1 reading first, then t0: every counter goes backwards.
	srv := scrapes(t, fixture(t, "kepler-v0.11-t1.prom"), fixture(t, "kepler-v0.11-t0.prom"))
	m, err := ParsePodEnergy("kepler="+srv.URL+",namespace=inference", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	r := readPod(t, m)
	if r.Valid || !hasWarning(r.Warnings, WarnPodReset) {
		t.Errorf("reading = %+v", r)
	}
}

func TestParsePodEnergyErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"", "start with prometheus=URL or kepler=URL"},
		{"dcgm=http://x:9400", "start with prometheus=URL or kepler=URL"},
		{"prometheus=prom:9090,namespace=a", `want an http(s) URL`},
		{"prometheus=http://prom:9090", "namespace=NS is required"},
		{"prometheus=http://prom:9090,namespace=~a.*", "not a regular expression"},
		{"prometheus=http://prom:9090,namespace=a,node=b", "the terms are namespace=, pod= and container="},
		{"prometheus=http://prom:9090,namespace=a,pod=~(", "missing closing"},
	} {
		_, err := ParsePodEnergy(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "pod energy") {
			t.Errorf("%q: %v, want an error naming the pod energy with %q", tc.spec, err, tc.want)
		}
	}
}

// The gap between the GPUs' counters and Kepler's pod GPU energy is
// Kepler's idle estimate here, and says so.
func TestComparePod(t *testing.T) {
	srv := scrapes(t, fixture(t, "dcgm-before.prom"), fixture(t, "dcgm-after.prom"))
	gm, err := Parse("dcgm="+srv.URL, WithClock(edgeClock()), WithSampleInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer gm.Close()
	gpu := measure(t, gm)
	ks := scrapes(t, fixture(t, "kepler-v0.11-t0.prom"), fixture(t, "kepler-v0.11-t1.prom"))
	pm, err := ParsePodEnergy("kepler="+ks.URL+",namespace=inference", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	pod := readPod(t, pm)
	gap, ws, ok := ComparePod(gpu, pod)
	if !ok || len(ws) != 0 {
		t.Fatalf("ok %v, warnings %v", ok, ws)
	}
	if !near(gap.GapJ, keplerIdleJ, 1e-6) || !near(gap.GapFraction, keplerIdleJ/keplerNodeGPUJ, 1e-9) || gap.GPUSource != "dcgm" {
		t.Errorf("gap = %+v, want %v J", gap, keplerIdleJ)
	}
	if !strings.Contains(gap.Reason, "active power") || !strings.Contains(gap.Reason, "idle") || !strings.Contains(gap.Reason, "MIG") || !strings.Contains(gap.Reason, "(100 % of the gap)") {
		t.Errorf("reason = %q", gap.Reason)
	}
	// Pod GPU energy above the GPUs' own is flagged.
	pod.GPUJ = keplerNodeGPUJ * 1.2
	if _, ws, _ := ComparePod(gpu, pod); !hasWarning(ws, "pod_energy_above_gpu") {
		t.Errorf("warnings %v", ws)
	}
	pod.Valid = false
	if _, _, ok := ComparePod(gpu, pod); ok {
		t.Error("an invalid pod reading must not be compared")
	}
}

// TestPodReadingJSONOmitsUnmeasured: a selector matching nothing wrote
// "energy_j": 0, "cpu_j": 0, "gpu_j": 0 beside "valid": false into
// run.json. A reading that is not valid carries no figure; a valid one
// keeps its figures, 0 included; the old form still decodes.
func TestPodReadingJSONOmitsUnmeasured(t *testing.T) {
	srv := promfake.New(snapshot(t, "kepler-v0.11-t0.prom"), snapshot(t, "kepler-v0.11-t1.prom"))
	defer srv.Close()
	m, err := ParsePodEnergy("prometheus="+srv.URL+",namespace=elsewhere", WithClock(edgeClock()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(readPod(t, m))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"energy_j"`, `"cpu_j"`, `"gpu_j"`, `"node_gpu_j"`} {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("invalid reading carries %s: %s", key, b)
		}
	}
	if !bytes.Contains(b, []byte(`"valid":false`)) || !bytes.Contains(b, []byte(`"selector":"namespace=elsewhere"`)) || !bytes.Contains(b, []byte(string(WarnPodNoSeries))) {
		t.Errorf("invalid reading lost its other fields: %s", b)
	}
	b, err = json.Marshal(PodReading{Source: "kepler", Valid: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"energy_j":0`, `"cpu_j":0`, `"gpu_j":0`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("valid reading lacks %s: %s", key, b)
		}
	}
	var old PodReading
	if err := json.Unmarshal([]byte(`{"source":"kepler","energy_j":0,"cpu_j":0,"gpu_j":0,"valid":false}`), &old); err != nil || old.Valid {
		t.Errorf("old form: %+v, %v", old, err)
	}
}
