package energy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/gollm-bench/gollm-bench/prom"
)

// dcgm-exporter metric names (NVIDIA/dcgm-exporter default-counters.csv).
const (
	dcgmEnergy     = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" // counter, mJ since boot
	dcgmPower      = "DCGM_FI_DEV_POWER_USAGE"              // gauge, W
	dcgmTemp       = "DCGM_FI_DEV_GPU_TEMP"                 // gauge, °C
	dcgmSMClock    = "DCGM_FI_DEV_SM_CLOCK"                 // gauge, MHz
	dcgmPowerLimit = "DCGM_FI_DEV_POWER_MGMT_LIMIT"         // gauge, W (not in the default set)
)

// ReadDCGM parses one dcgm-exporter /metrics page (the Prometheus text
// format, prom.ParseText) into a Snapshot, keeping the GPUs whose labels
// match f. GPUs are identified by the "UUID" label (else "Hostname" and
// "gpu"); the name comes from "modelName", the driver from
// "DCGM_FI_DRIVER_VERSION". Other metric families are ignored. It is safe
// for concurrent use.
func ReadDCGM(r io.Reader, f Filter) (Snapshot, error) {
	page, err := prom.ParseText(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("dcgm-exporter: %w", err)
	}
	return dcgmSnapshot(page, f), nil
}

// dcgmSnapshot keeps the GPUs of a dcgm-exporter page whose labels match f.
func dcgmSnapshot(page prom.Snapshot, f Filter) Snapshot {
	var snap Snapshot
	by := map[string]*Sample{}
	get := func(labels map[string]string) *Sample {
		s := sampleOf(labels)
		if d := labels["DCGM_FI_DRIVER_VERSION"]; d != "" && snap.Driver == "" {
			snap.Driver = d
		}
		k := s.Key()
		if p, ok := by[k]; ok {
			return p
		}
		by[k] = &s
		return &s
	}
	for _, name := range []string{dcgmEnergy, dcgmPower, dcgmTemp, dcgmSMClock, dcgmPowerLimit} {
		for _, x := range page.Samples(name) {
			if !f.Match(x.Labels) {
				continue
			}
			s, v := get(x.Labels), x.Value
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
	return snap
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

// dcgmSource reads a dcgm-exporter /metrics page (prom.Get).
type dcgmSource struct {
	url    string
	client *http.Client
	filter Filter
}

// NewDCGM returns a Source that scrapes the dcgm-exporter /metrics URL
// (e.g. http://gpu-node-01:9400/metrics; a URL without a path gets
// /metrics). Options: WithHTTPClient, WithFilter. Note dcgm-exporter
// refreshes its fields every 30 s by default (--collect-interval); a Meter
// warns when that is coarse against the window.
func NewDCGM(url string, opts ...Option) Source {
	o := newOptions(opts)
	return &dcgmSource{url: prom.MetricsURL(url), client: o.client, filter: o.filter}
}

func (d *dcgmSource) Name() string { return "dcgm" }

func (d *dcgmSource) Read(ctx context.Context, _ time.Time) (Snapshot, error) {
	page, err := prom.Get(ctx, d.client, d.url)
	if err != nil {
		return Snapshot{}, err
	}
	return dcgmSnapshot(page, d.filter), nil
}
