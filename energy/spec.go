package energy

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// ErrNVMLUnavailable is wrapped by every error that means "NVML cannot be
// used here": no driver, no GPU, an OS where it is not read, or a build or
// a Parse call without WithNVML.
var ErrNVMLUnavailable = errors.New("NVML unavailable")

// none is the Source of --energy none: no GPU, no figure.
type none struct{}

// None returns the Source that measures nothing (--energy none). Readings
// over it have Source "none", no GPU and Valid false.
func None() Source { return none{} }

func (none) Name() string                                      { return "none" }
func (none) Read(context.Context, time.Time) (Snapshot, error) { return Snapshot{}, nil }

// Parse builds the Meter an energy source spec asks for. Grammar:
//
//	none | auto | nvml | dcgm=URL | prometheus=URL
//
// "" means none. "nvml" opens NVML now, with the opener given by
// WithNVML, and fails when it cannot (the user asked for it). "auto" tries NVML and falls back to none, recording why
// as an "energy_unavailable" warning on every Reading. dcgm=URL is a
// dcgm-exporter /metrics URL (http://host:9400/metrics; the path defaults
// to /metrics), prometheus=URL a Prometheus base URL (http://host:9090).
// Options apply to the Meter and its source (WithHTTPClient, WithFilter,
// WithClock, WithSampleInterval, WithIdleBaseline). Errors name the energy source.
func Parse(spec string, opts ...Option) (*Meter, error) {
	spec = strings.TrimSpace(spec)
	kind, arg, hasArg := strings.Cut(spec, "=")
	switch strings.ToLower(kind) {
	case "", "none":
		if hasArg {
			break
		}
		return NewMeter(None(), opts...), nil
	case "auto":
		if hasArg {
			break
		}
		src, err := openNVML(opts)
		if err != nil {
			m := NewMeter(None(), opts...)
			m.notes = []metrics.Warning{warn(WarnUnavailable, "energy source auto: %v; energy, Wh/token and carbon are not measured", err)}
			return m, nil
		}
		return NewMeter(src, opts...), nil
	case "nvml":
		if hasArg {
			break
		}
		src, err := openNVML(opts)
		if err != nil {
			return nil, fmt.Errorf("energy source nvml: %w", err)
		}
		return NewMeter(src, opts...), nil
	case "dcgm":
		u, err := checkURL(arg, "dcgm", "http://gpu-node-01:9400/metrics")
		if err != nil {
			return nil, err
		}
		return NewMeter(NewDCGM(u.String(), opts...), opts...), nil
	case "prometheus":
		u, err := checkURL(arg, "prometheus", "http://prometheus:9090")
		if err != nil {
			return nil, err
		}
		// Counters are read at the edges and power summarised by the server:
		// sampling Prometheus during the window adds nothing.
		opts = append(opts[:len(opts):len(opts)], WithSampleInterval(0))
		return NewMeter(NewPrometheus(u.String(), opts...), opts...), nil
	}
	return nil, fmt.Errorf("energy source %q: want one of none, auto, nvml, dcgm=URL, prometheus=URL", spec)
}

// openNVML opens NVML with the opener WithNVML set, if any.
func openNVML(opts []Option) (Source, error) {
	o := newOptions(opts)
	if o.nvml == nil {
		return nil, fmt.Errorf("%w: NVML not in this build (no energy.WithNVML option; see package energy/nvml)", ErrNVMLUnavailable)
	}
	return o.nvml()
}

func checkURL(raw, kind, example string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("energy source %s=%q: want an http(s) URL, e.g. %s=%s", kind, raw, kind, example)
	}
	return u, nil
}
