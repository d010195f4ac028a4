package energy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// dcgm-exporter metric names (NVIDIA/dcgm-exporter default-counters.csv).
const (
	dcgmEnergy     = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" // counter, mJ since boot
	dcgmPower      = "DCGM_FI_DEV_POWER_USAGE"              // gauge, W
	dcgmTemp       = "DCGM_FI_DEV_GPU_TEMP"                 // gauge, °C
	dcgmSMClock    = "DCGM_FI_DEV_SM_CLOCK"                 // gauge, MHz
	dcgmPowerLimit = "DCGM_FI_DEV_POWER_MGMT_LIMIT"         // gauge, W (not in the default set)
)

// maxScrapeBytes bounds one scrape body.
const maxScrapeBytes = 64 << 20

// ReadDCGM parses one dcgm-exporter /metrics scrape (Prometheus text format)
// into a Snapshot, keeping the GPUs whose labels match f. GPUs are
// identified by the "UUID" label (else "Hostname" and "gpu"); the name
// comes from "modelName", the driver from "DCGM_FI_DRIVER_VERSION". Other
// metric families are ignored. It is safe for concurrent use.
func ReadDCGM(r io.Reader, f Filter) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("dcgm-exporter text: %w", err)
	}
	var snap Snapshot
	by := map[string]*Sample{}
	get := func(labels map[string]string) *Sample {
		s := sampleOf(labels)
		if d := labels["DCGM_FI_DRIVER_VERSION"]; d != "" && snap.Driver == "" {
			snap.Driver = d
		}
		k := s.key()
		if p, ok := by[k]; ok {
			return p
		}
		by[k] = &s
		return &s
	}
	for _, name := range []string{dcgmEnergy, dcgmPower, dcgmTemp, dcgmSMClock, dcgmPowerLimit} {
		fam := fams[name]
		if fam == nil {
			continue
		}
		for _, m := range fam.GetMetric() {
			labels := labelMap(m)
			if !f.Match(labels) {
				continue
			}
			v := value(m)
			s := get(labels)
			switch name {
			case dcgmEnergy:
				s.EnergyMJ, s.HasEnergy = v, true
			case dcgmPower:
				s.PowerW, s.HasPower = v, true
			case dcgmTemp:
				s.TempC = v
			case dcgmSMClock:
				s.SMClockMHz = v
			case dcgmPowerLimit:
				s.PowerLimitW = v
			}
		}
	}
	for _, s := range by {
		snap.GPUs = append(snap.GPUs, *s)
	}
	sort.Slice(snap.GPUs, func(i, j int) bool {
		a, b := snap.GPUs[i], snap.GPUs[j]
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Index < b.Index
	})
	return snap, nil
}

// sampleOf returns the identity of the GPU a dcgm-exporter series describes.
func sampleOf(labels map[string]string) Sample {
	s := Sample{UUID: labels["UUID"], Name: labels["modelName"]}
	s.Host, _ = lookup(labels, "hostname")
	if i, err := strconv.Atoi(labels["gpu"]); err == nil {
		s.Index = i
	}
	return s
}

func labelMap(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// DCGM scrapes a dcgm-exporter /metrics endpoint.
type dcgmSource struct {
	url    string
	client *http.Client
	filter Filter
}

// NewDCGM returns a Source that scrapes the dcgm-exporter /metrics URL
// (e.g. http://gpu-node-01:9400/metrics). Options: WithHTTPClient, WithFilter.
// Note dcgm-exporter refreshes its fields every 30 s by default
// (--collect-interval); a Meter warns when that is coarse against the window.
func NewDCGM(url string, opts ...Option) Source {
	o := newOptions(opts)
	return &dcgmSource{url: url, client: o.client, filter: o.filter}
}

func (d *dcgmSource) Name() string { return "dcgm" }

func (d *dcgmSource) Read(ctx context.Context, _ time.Time) (Snapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return Snapshot{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := d.client.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", d.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Snapshot{}, fmt.Errorf("scraping %s: HTTP %d: %s", d.url, resp.StatusCode, b)
	}
	snap, err := ReadDCGM(io.LimitReader(resp.Body, maxScrapeBytes), d.filter)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scraping %s: %w", d.url, err)
	}
	return snap, nil
}
