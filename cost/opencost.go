package cost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Allocation is one OpenCost allocation (an aggregate, e.g. a namespace)
// over a window. Costs are in the currency OpenCost was configured with;
// OpenCost's response carries none, so the caller declares it (Currency).
// Numbers are as OpenCost rounds them (5 decimals).
type Allocation struct {
	Name     string    `json:"name"`
	Currency string    `json:"currency"` // declared by the caller (--opencost-currency), e.g. "EUR"
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Minutes  float64   `json:"minutes"` // the allocation's own duration

	CPUCost   float64 `json:"cpu_cost"`
	GPUCost   float64 `json:"gpu_cost"`
	RAMCost   float64 `json:"ram_cost"`
	TotalCost float64 `json:"total_cost"`
	GPUHours  float64 `json:"gpu_hours"`
	GPUCount  float64 `json:"gpu_count"`

	CPUEfficiency   float64 `json:"cpu_efficiency"`
	RAMEfficiency   float64 `json:"ram_efficiency"`
	TotalEfficiency float64 `json:"total_efficiency"`

	// GPURequestAverage and GPUUsageAverage are the GPUs requested and
	// used on average over the allocation (GPU count; usage from DCGM when
	// OpenCost has it), read from the nested gpuAllocation object of newer
	// OpenCost versions or the flat fields of older ones; nil when absent.
	GPURequestAverage *float64 `json:"gpu_request_average,omitempty"`
	GPUUsageAverage   *float64 `json:"gpu_usage_average,omitempty"`
	// IsGPUShared is gpuAllocation.isGPUShared (time-slicing or MPS); nil
	// when absent.
	IsGPUShared *bool `json:"is_gpu_shared,omitempty"`
	// CPUCoreLimitAverage (cores) and RAMByteLimitAverage (bytes) are the
	// average limits of the allocation's containers; 0 when absent.
	CPUCoreLimitAverage float64 `json:"cpu_core_limit_average,omitempty"`
	RAMByteLimitAverage float64 `json:"ram_byte_limit_average,omitempty"`
}

// GPUEfficiency is GPUUsageAverage / GPURequestAverage; ok is false when
// either is missing or nothing was requested.
func (a Allocation) GPUEfficiency() (eff float64, ok bool) {
	if a.GPUUsageAverage == nil || a.GPURequestAverage == nil || *a.GPURequestAverage <= 0 {
		return 0, false
	}
	return *a.GPUUsageAverage / *a.GPURequestAverage, true
}

// PerHour is TotalCost per hour of the allocation: totalCost / (minutes/60).
func (a Allocation) PerHour() float64 { return PerHourFromTotal(a.TotalCost, a.Minutes) }

// GPUPerHour is the GPU line alone per hour.
func (a Allocation) GPUPerHour() float64 { return PerHourFromTotal(a.GPUCost, a.Minutes) }

// OpenCost is a client for OpenCost's /allocation API (port 9003). It is
// safe for concurrent use.
type OpenCost struct {
	base     string
	client   *http.Client
	currency string
}

// Option configures an OpenCost client.
type Option func(*OpenCost)

// WithHTTPClient sets the HTTP client (default: a private client, 30 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *OpenCost) { o.client = c } }

// WithCurrency declares the currency OpenCost's pricing is configured in
// (default "EUR"): OpenCost's response does not say.
func WithCurrency(code string) Option { return func(o *OpenCost) { o.currency = code } }

// NewOpenCost returns a client for the OpenCost API at base, e.g.
// http://opencost.opencost:9003. Errors quote base.
func NewOpenCost(base string, opts ...Option) (*OpenCost, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OpenCost base URL %q: want an http(s) URL, e.g. http://opencost.opencost:9003", base)
	}
	c := &OpenCost{base: strings.TrimRight(u.String(), "/"), currency: "EUR"}
	for _, o := range opts {
		o(c)
	}
	if c.client == nil {
		c.client = &http.Client{Timeout: 30 * time.Second}
	}
	return c, nil
}

// Namespace returns the allocation of one namespace over [start, end]
// (GET /allocation?window=start,end&aggregate=namespace&accumulate=true).
func (c *OpenCost) Namespace(ctx context.Context, namespace string, start, end time.Time) (Allocation, error) {
	if namespace == "" {
		return Allocation{}, errors.New("OpenCost.Namespace: empty namespace: want the namespace whose allocation is the cost")
	}
	v := url.Values{}
	v.Set("window", start.UTC().Format(time.RFC3339)+","+end.UTC().Format(time.RFC3339))
	v.Set("aggregate", "namespace")
	v.Set("accumulate", "true")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/allocation?"+v.Encode(), nil)
	if err != nil {
		return Allocation{}, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return Allocation{}, fmt.Errorf("opencost: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return Allocation{}, fmt.Errorf("opencost: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Allocation{}, fmt.Errorf("opencost /allocation: HTTP %d: %.200s", resp.StatusCode, body)
	}
	a, err := DecodeAllocation(body, namespace)
	if err != nil {
		return Allocation{}, fmt.Errorf("opencost /allocation: %w", err)
	}
	a.Currency = c.currency
	return a, nil
}

type allocationResponse struct {
	Code    int                          `json:"code"`
	Status  string                       `json:"status"`
	Message string                       `json:"message"`
	Data    []map[string]*allocationJSON `json:"data"`
}

type allocationJSON struct {
	Name            string    `json:"name"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	Minutes         float64   `json:"minutes"`
	CPUCost         float64   `json:"cpuCost"`
	GPUCost         float64   `json:"gpuCost"`
	RAMCost         float64   `json:"ramCost"`
	TotalCost       float64   `json:"totalCost"`
	GPUHours        float64   `json:"gpuHours"`
	GPUCount        float64   `json:"gpuCount"`
	CPUEfficiency   float64   `json:"cpuEfficiency"`
	RAMEfficiency   float64   `json:"ramEfficiency"`
	TotalEfficiency float64   `json:"totalEfficiency"`

	// The older, flat GPU averages, and the newer nested object.
	GPURequestAverage *float64 `json:"gpuRequestAverage"`
	GPUUsageAverage   *float64 `json:"gpuUsageAverage"`
	GPUAllocation     *struct {
		GPURequestAverage *float64 `json:"gpuRequestAverage"`
		GPUUsageAverage   *float64 `json:"gpuUsageAverage"`
		IsGPUShared       *bool    `json:"isGPUShared"`
	} `json:"gpuAllocation"`
	CPUCoreLimitAverage float64 `json:"cpuCoreLimitAverage"`
	RAMByteLimitAverage float64 `json:"ramByteLimitAverage"`
}

// DecodeAllocation picks key (a namespace, with aggregate=namespace) out of
// an /allocation response body. With several steps (accumulate=false) the
// costs and minutes are summed, and the averages and efficiencies are the
// last step's. It reads both shapes OpenCost has answered with: GPU
// averages as flat members (gpuRequestAverage, gpuUsageAverage) or in a
// nested gpuAllocation object (with isGPUShared), which wins. totalCost is
// the cost in either. It is safe for concurrent use.
func DecodeAllocation(body []byte, key string) (Allocation, error) {
	var r allocationResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return Allocation{}, fmt.Errorf("not an OpenCost allocation response: %w", err)
	}
	if r.Code != 0 && r.Code != http.StatusOK {
		return Allocation{}, fmt.Errorf("OpenCost code %d: %s", r.Code, r.Message)
	}
	var out Allocation
	found := false
	for _, step := range r.Data {
		a, ok := step[key]
		if !ok || a == nil {
			continue
		}
		if !found {
			out.Name, out.Start = a.Name, a.Start
			found = true
		}
		out.End = a.End
		out.Minutes += a.Minutes
		out.CPUCost += a.CPUCost
		out.GPUCost += a.GPUCost
		out.RAMCost += a.RAMCost
		out.TotalCost += a.TotalCost
		out.GPUHours += a.GPUHours
		out.GPUCount, out.CPUEfficiency, out.RAMEfficiency, out.TotalEfficiency = a.GPUCount, a.CPUEfficiency, a.RAMEfficiency, a.TotalEfficiency
		out.GPURequestAverage, out.GPUUsageAverage, out.IsGPUShared = a.GPURequestAverage, a.GPUUsageAverage, nil
		if g := a.GPUAllocation; g != nil {
			out.GPURequestAverage, out.GPUUsageAverage, out.IsGPUShared = g.GPURequestAverage, g.GPUUsageAverage, g.IsGPUShared
		}
		out.CPUCoreLimitAverage, out.RAMByteLimitAverage = a.CPUCoreLimitAverage, a.RAMByteLimitAverage
	}
	if !found {
		return Allocation{}, fmt.Errorf("no allocation named %q in the window (check the namespace)", key)
	}
	return out, nil
}
