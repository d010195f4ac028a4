package energy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/prom"
)

// Kepler's counter names (sustainable-computing-io/kepler). All are joules
// since the exporter started.
const (
	// Kepler 0.10 and later. Pod series carry pod_id, pod_name,
	// pod_namespace, node_name (and zone for CPU: package, dram);
	// container series carry container_id, container_name, pod_id.
	KeplerPodCPU        = "kepler_pod_cpu_joules_total"
	KeplerPodGPU        = "kepler_pod_gpu_joules_total"
	KeplerContainerCPU  = "kepler_container_cpu_joules_total"
	KeplerContainerGPU  = "kepler_container_gpu_joules_total"
	KeplerNodeGPU       = "kepler_node_gpu_joules_total"
	KeplerNodeGPUIdle   = "kepler_node_gpu_idle_joules_total"
	KeplerNodeGPUActive = "kepler_node_gpu_active_joules_total"
	// Kepler 0.9 and earlier: container series with container_namespace,
	// pod_name, container_name and mode ("dynamic" or "idle").
	KeplerLegacyContainer        = "kepler_container_joules_total"
	KeplerLegacyContainerPackage = "kepler_container_package_joules_total"
	KeplerLegacyContainerDRAM    = "kepler_container_dram_joules_total"
	KeplerLegacyContainerGPU     = "kepler_container_gpu_joules_total"
)

// Kepler generations, as PodReading.Generation names them.
const (
	KeplerCurrent = "0.10+" // kepler_pod_* and kepler_container_{cpu,gpu}_joules_total
	KeplerLegacy  = "0.9-"  // kepler_container_joules_total with mode
)

// PodSelector says whose energy Kepler reports: a namespace, optionally a
// pod (exact or a regular expression) and a container within it. It is a
// plain value.
type PodSelector struct {
	Namespace string
	// Pod selects pods by name; the zero Matcher selects every pod of the
	// namespace. Its Label is ignored.
	Pod prom.Matcher
	// Container selects containers by name; the zero Matcher reads whole
	// pods. Its Label is ignored.
	Container prom.Matcher
}

// String returns the selector in the flag's form, e.g.
// "namespace=inference,pod=~vllm-.*".
func (s PodSelector) String() string {
	parts := []string{"namespace=" + s.Namespace}
	term := func(name string, m prom.Matcher) {
		if m.Value == "" {
			return
		}
		op := "="
		if m.Regex {
			op = "=~"
		}
		parts = append(parts, name+op+m.Value)
	}
	term("pod", s.Pod)
	term("container", s.Container)
	return strings.Join(parts, ",")
}

// PodReading is what Kepler attributed to the selected pods over one
// window, J. Kepler's counters are read at the window's edges, so like the
// GPU counters these are measurements of the window, not estimates (the
// edge error is discussed in docs/telemetry.md). It is plain data.
type PodReading struct {
	// Source is "kepler"; Via is how its counters were read: "prometheus"
	// (increase() over the window) or "scrape" (the exporter's /metrics at
	// each edge).
	Source string `json:"source"`
	Via    string `json:"via"`
	// Generation is KeplerCurrent or KeplerLegacy: which names answered.
	Generation string `json:"generation,omitempty"`
	// Scope is "pod" or "container".
	Scope         string    `json:"scope"`
	Selector      string    `json:"selector"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	WindowSeconds float64   `json:"window_s"`
	// Pods and Nodes are the pod and node names the matching series carried.
	Pods  []string `json:"pods,omitempty"`
	Nodes []string `json:"nodes,omitempty"`

	// EnergyJ = CPUJ + GPUJ (0.10+), or kepler_container_joules_total in
	// mode "dynamic" (0.9-, which also counts other components), J.
	EnergyJ float64 `json:"energy_j"`
	// CPUJ is the CPU part: zones package and dram (0.10+), or the
	// package and dram counters in mode "dynamic" (0.9-), J.
	CPUJ float64 `json:"cpu_j"`
	// GPUJ is the GPU part, J: the pod's share of its GPUs' active power.
	GPUJ float64 `json:"gpu_j"`
	// IdleAttributedJ is the idle energy Kepler 0.9- shared out to the
	// selection (mode "idle"), J; not part of EnergyJ. Nil for 0.10+.
	IdleAttributedJ *float64 `json:"idle_attributed_j,omitempty"`
	// NodeGPUJ, NodeGPUIdleJ and NodeGPUActiveJ are Kepler's own node GPU
	// counters over the window, summed over the selection's nodes, J (0.10+
	// only, nil when not exported).
	NodeGPUJ       *float64 `json:"node_gpu_j,omitempty"`
	NodeGPUIdleJ   *float64 `json:"node_gpu_idle_j,omitempty"`
	NodeGPUActiveJ *float64 `json:"node_gpu_active_j,omitempty"`

	// Valid is true when matching series were found for the window and
	// none was reset; otherwise the figures above are not measurements
	// and are not used.
	Valid    bool              `json:"valid"`
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// MarshalJSON writes r as run.json stores it. A reading that is not Valid
// carries no energy figure (energy_j, cpu_j, gpu_j and the node and idle
// counters are left out): they were not measured, and a 0 beside
// valid: false would read as one. Decoding is the default: a file with
// those figures (as older versions wrote them) still reads.
func (r PodReading) MarshalJSON() ([]byte, error) {
	type plain PodReading
	if r.Valid {
		return json.Marshal(plain(r))
	}
	r.IdleAttributedJ, r.NodeGPUJ, r.NodeGPUIdleJ, r.NodeGPUActiveJ = nil, nil, nil, nil
	return json.Marshal(struct {
		plain
		EnergyJ *float64 `json:"energy_j,omitempty"`
		CPUJ    *float64 `json:"cpu_j,omitempty"`
		GPUJ    *float64 `json:"gpu_j,omitempty"`
	}{plain: plain(r)})
}

// PodMeter reads Kepler's counters over windows (--pod-energy): Start at
// the window's start, Stop at its end. Start and Stop must be called from
// one goroutine.
type PodMeter struct {
	win     prom.Window
	sel     PodSelector
	now     func() time.Time
	t0      time.Time
	running bool
}

// NewPodMeter returns a PodMeter reading sel's counters through win.
// Options: WithClock.
func NewPodMeter(win prom.Window, sel PodSelector, opts ...Option) *PodMeter {
	o := newOptions(opts)
	return &PodMeter{win: win, sel: sel, now: o.now}
}

// Selector returns the meter's selector.
func (m *PodMeter) Selector() PodSelector { return m.sel }

// Start opens a window.
func (m *PodMeter) Start(ctx context.Context) error {
	if m.running {
		return errors.New("energy: pod meter: Start called twice without Stop")
	}
	t0 := m.now()
	if err := m.win.Begin(ctx, t0); err != nil {
		return fmt.Errorf("kepler: reading counters at the window's start: %w", err)
	}
	m.t0, m.running = t0, true
	return nil
}

// Stop closes the window and returns what Kepler attributed in it. An
// error means the counters could not be read at all; a selection that
// matches nothing is a Reading with Valid false and a warning.
func (m *PodMeter) Stop(ctx context.Context) (PodReading, error) {
	if !m.running {
		return PodReading{}, errors.New("energy: pod meter: Stop called without Start")
	}
	m.running = false
	t1 := m.now()
	if err := m.win.End(ctx, t1); err != nil {
		return PodReading{}, fmt.Errorf("kepler: reading counters at the window's end: %w", err)
	}
	return ReadPod(ctx, m.win, m.sel, m.t0, t1)
}

// ReadPod reads sel's Kepler counters over [start, end] from a window win
// already closed by End: the 0.10+ names first, then the 0.9- ones.
func ReadPod(ctx context.Context, win prom.Window, sel PodSelector, start, end time.Time) (PodReading, error) {
	r := PodReading{Source: "kepler", Via: win.Name(), Scope: "pod", Selector: sel.String(),
		Start: start, End: end, WindowSeconds: end.Sub(start).Seconds()}
	if sel.Container.Value != "" {
		r.Scope = "container"
	}
	found, err := readCurrent(ctx, win, sel, &r)
	if err != nil {
		return PodReading{}, err
	}
	if !found {
		if found, err = readLegacy(ctx, win, sel, &r); err != nil {
			return PodReading{}, err
		}
	}
	if !found {
		r.Warnings = append(r.Warnings, warn(WarnPodNoSeries,
			"Kepler (%s) has no series for %s over the %.1f s window (looked for %s, %s and %s): no pod energy for this window; check the namespace, pod and container, and that Kepler runs on the pod's node",
			win.Name(), r.Selector, r.WindowSeconds, KeplerPodGPU, KeplerPodCPU, KeplerLegacyContainer))
		return r, nil
	}
	r.Valid = true
	for _, w := range r.Warnings {
		if w.Code == WarnPodNoSeries || w.Code == WarnPodReset {
			r.Valid = false
		}
	}
	return r, nil
}

// Warning codes of a PodReading.
const (
	WarnPodNoSeries metrics.WarningCode = "pod_energy_no_series"     // nothing matched the selector: no figure
	WarnPodReset    metrics.WarningCode = "pod_energy_counter_reset" // a counter went backwards: no valid figure
)

// readCurrent reads the 0.10+ names. found is false when no pod series matched.
func readCurrent(ctx context.Context, win prom.Window, sel PodSelector, r *PodReading) (found bool, err error) {
	ms := []prom.Matcher{prom.Eq("pod_namespace", sel.Namespace)}
	if sel.Pod.Value != "" {
		ms = append(ms, prom.Matcher{Label: "pod_name", Value: sel.Pod.Value, Regex: sel.Pod.Regex})
	}
	gpu, err := win.Increase(ctx, KeplerPodGPU, ms...)
	if err != nil {
		return false, err
	}
	cpu, err := win.Increase(ctx, KeplerPodCPU, ms...)
	if err != nil {
		return false, err
	}
	if len(gpu) == 0 && len(cpu) == 0 {
		return false, nil
	}
	r.Generation = KeplerCurrent
	r.Pods = labelValues("pod_name", gpu, cpu)
	r.Nodes = labelValues("node_name", gpu, cpu)
	if sel.Container.Value == "" {
		r.GPUJ, r.CPUJ = sum(r, gpu), sum(r, cpuZones(r, cpu))
		if len(gpu) == 0 {
			r.Warnings = append(r.Warnings, warn("pod_energy_no_gpu_series",
				"Kepler has no %s for %s: its GPU part is unknown and counted as nothing (is Kepler's GPU support on?)", KeplerPodGPU, r.Selector))
		}
	} else {
		// Container series carry pod_id, not the pod's name or namespace:
		// keep those of the matched pods.
		ids := map[string]bool{}
		for _, s := range append(append([]prom.Series(nil), gpu...), cpu...) {
			ids[s.Labels["pod_id"]] = true
		}
		c := prom.Matcher{Label: "container_name", Value: sel.Container.Value, Regex: sel.Container.Regex}
		ofPods := func(family string) ([]prom.Series, error) {
			all, err := win.Increase(ctx, family, c)
			if err != nil {
				return nil, err
			}
			var kept []prom.Series
			for _, s := range all {
				if ids[s.Labels["pod_id"]] {
					kept = append(kept, s)
				}
			}
			return kept, nil
		}
		cg, err := ofPods(KeplerContainerGPU)
		if err != nil {
			return false, err
		}
		cc, err := ofPods(KeplerContainerCPU)
		if err != nil {
			return false, err
		}
		if len(cg) == 0 && len(cc) == 0 {
			r.Warnings = append(r.Warnings, warn(WarnPodNoSeries,
				"Kepler has pod series for %s but no container series named %s in those pods (%s, %s): no pod energy for this window", r.Selector, c.Value, KeplerContainerGPU, KeplerContainerCPU))
			return true, nil
		}
		r.GPUJ, r.CPUJ = sum(r, cg), sum(r, cpuZones(r, cc))
	}
	r.EnergyJ = r.CPUJ + r.GPUJ
	// Kepler's own node GPU counters, for the gap to the node's GPU energy.
	if len(r.Nodes) > 0 {
		node := prom.Matcher{Label: "node_name", Value: strings.Join(quoteMeta(r.Nodes), "|"), Regex: true}
		for _, f := range []struct {
			family string
			dst    **float64
		}{{KeplerNodeGPU, &r.NodeGPUJ}, {KeplerNodeGPUIdle, &r.NodeGPUIdleJ}, {KeplerNodeGPUActive, &r.NodeGPUActiveJ}} {
			s, err := win.Increase(ctx, f.family, node)
			if err != nil {
				return false, err
			}
			if len(s) > 0 {
				v := sum(r, s)
				*f.dst = &v
			}
		}
	}
	return true, nil
}

// readLegacy reads the 0.9- names.
func readLegacy(ctx context.Context, win prom.Window, sel PodSelector, r *PodReading) (bool, error) {
	ms := []prom.Matcher{prom.Eq("container_namespace", sel.Namespace)}
	if sel.Pod.Value != "" {
		ms = append(ms, prom.Matcher{Label: "pod_name", Value: sel.Pod.Value, Regex: sel.Pod.Regex})
	}
	if sel.Container.Value != "" {
		ms = append(ms, prom.Matcher{Label: "container_name", Value: sel.Container.Value, Regex: sel.Container.Regex})
	}
	dyn := append(ms[:len(ms):len(ms)], prom.Eq("mode", "dynamic"))
	idle := append(ms[:len(ms):len(ms)], prom.Eq("mode", "idle"))
	read := func(family string, m []prom.Matcher) ([]prom.Series, error) {
		return win.Increase(ctx, family, m...)
	}
	total, err := read(KeplerLegacyContainer, dyn)
	if err != nil {
		return false, err
	}
	gpu, err := read(KeplerLegacyContainerGPU, dyn)
	if err != nil {
		return false, err
	}
	pkg, err := read(KeplerLegacyContainerPackage, dyn)
	if err != nil {
		return false, err
	}
	dram, err := read(KeplerLegacyContainerDRAM, dyn)
	if err != nil {
		return false, err
	}
	idleTotal, err := read(KeplerLegacyContainer, idle)
	if err != nil {
		return false, err
	}
	if len(total) == 0 && len(gpu) == 0 && len(pkg) == 0 {
		return false, nil
	}
	r.Generation = KeplerLegacy
	r.Pods = labelValues("pod_name", total, gpu, pkg)
	r.GPUJ = sum(r, gpu)
	r.CPUJ = sum(r, pkg) + sum(r, dram)
	r.EnergyJ = r.CPUJ + r.GPUJ
	if len(total) > 0 {
		r.EnergyJ = sum(r, total)
	} else {
		r.Warnings = append(r.Warnings, warn("pod_energy_no_total",
			"Kepler 0.9- has no %s for %s: pod energy is the CPU (package, dram) and GPU counters only", KeplerLegacyContainer, r.Selector))
	}
	if len(idleTotal) > 0 {
		v := sum(r, idleTotal)
		r.IdleAttributedJ = &v
	}
	return true, nil
}

// cpuZones keeps the package and dram zones of CPU series (the package
// zone already holds core and uncore), or every series when none is
// labelled with one of them.
func cpuZones(r *PodReading, series []prom.Series) []prom.Series {
	var kept []prom.Series
	for _, s := range series {
		if z := s.Labels["zone"]; z == "package" || z == "dram" {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return series
	}
	if len(kept) < len(series) {
		r.Warnings = append(r.Warnings, warn("pod_energy_cpu_zones",
			"Kepler CPU series of zones other than package and dram were left out (package holds core and uncore)"))
	}
	return kept
}

// sum adds the series' increases; a reset series invalidates the reading.
func sum(r *PodReading, series []prom.Series) float64 {
	t := 0.0
	for _, s := range series {
		if s.Reset {
			r.Warnings = append(r.Warnings, warn(WarnPodReset,
				"a Kepler counter (%s) went backwards in the window (exporter restart): its increase is a lower bound and the pod energy of this window is not valid", seriesLabel(s)))
		}
		t += s.Increase
	}
	return t
}

func seriesLabel(s prom.Series) string {
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + s.Labels[k]
	}
	return "{" + strings.Join(keys, ",") + "}"
}

// labelValues returns the distinct values of label over the series, sorted.
func labelValues(label string, groups ...[]prom.Series) []string {
	seen := map[string]bool{}
	for _, g := range groups {
		for _, s := range g {
			if v := s.Labels[label]; v != "" {
				seen[v] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func quoteMeta(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = regexp.QuoteMeta(v)
	}
	return out
}

// ParsePodEnergy builds the PodMeter a pod energy spec asks for:
//
//	SOURCE,namespace=NS[,pod=NAME|pod=~REGEX][,container=NAME|container=~REGEX]
//
// where SOURCE is prometheus=URL (a Prometheus server storing Kepler's
// series: http://prometheus:9090) or kepler=URL (Kepler's own exporter,
// scraped at the window's edges: http://node:28282/metrics; the path
// defaults to /metrics). Options: WithHTTPClient, WithClock. Every
// problem is reported at once (errors.Join), each naming the pod energy.
func ParsePodEnergy(spec string, opts ...Option) (*PodMeter, error) {
	const example = "prometheus=http://prometheus:9090,namespace=inference,pod=vllm-0"
	terms := strings.Split(spec, ",")
	kind, raw, _ := strings.Cut(strings.TrimSpace(terms[0]), "=")
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind != "prometheus" && kind != "kepler" {
		return nil, fmt.Errorf("pod energy %q: start with prometheus=URL or kepler=URL, e.g. %s", spec, example)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("pod energy %s=%q: want an http(s) URL, e.g. %s", kind, raw, example)
	}
	var sel PodSelector
	var errs []error
	for _, t := range terms[1:] {
		m, err := prom.ParseMatcher(strings.TrimSpace(t))
		if err != nil {
			errs = append(errs, fmt.Errorf("pod energy: %w", err))
			continue
		}
		switch m.Label {
		case "namespace":
			if m.Regex {
				errs = append(errs, fmt.Errorf("pod energy: namespace=%s: give the namespace exactly, not a regular expression", m.Value))
			}
			sel.Namespace = m.Value
		case "pod":
			sel.Pod = m
		case "container":
			sel.Container = m
		default:
			errs = append(errs, fmt.Errorf("pod energy: %q: the terms are namespace=, pod= and container=", strings.TrimSpace(t)))
		}
	}
	if sel.Namespace == "" {
		errs = append(errs, fmt.Errorf("pod energy %q: namespace=NS is required, e.g. %s", spec, example))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o := newOptions(opts)
	var win prom.Window
	if kind == "prometheus" {
		win = prom.NewQueryWindow(prom.NewAPI(u.String(), o.client))
	} else {
		win = prom.NewScrapeWindow(u.String(), o.client) // the path defaults to /metrics
	}
	return NewPodMeter(win, sel, opts...), nil
}
