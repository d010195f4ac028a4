// Command fakeexporter is the exporter of bench/prometheus-check.sh: it
// serves one /metrics page whose counters advance at known, constant rates
// — dcgm-exporter's GPU energy counter, Kepler's pod, container and node
// counters (0.10+ names) and a LiteLLM proxy's token and spend counters —
// so that a real Prometheus scraping it stores series whose increase over
// any window is known exactly. Its check subcommand reads the telemetry of
// a gollm-bench run made against that Prometheus and compares every figure
// with rate × window.
//
//	fakeexporter serve [-addr 127.0.0.1:9187]
//	fakeexporter check [-scrape 1s] RESULTS/RUN-ID
//
// check prints one line per figure and exits 1 when one is off by more
// than the scrape interval's worth of the counter (the most a counter read
// at, or extrapolated to, a window edge can be off).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/results"
)

// The rates every counter advances at.
const (
	gpu0W, gpu1W = 300.0, 450.0 // DCGM and Kepler node GPU power, W
	idleW        = 60.0         // Kepler's idle estimate per GPU, W
	podGPUW      = 600.0        // Kepler: the pod's share of the GPUs' active power, W
	podPackageW  = 80.0         // Kepler: the pod's CPU package zone, W
	podDRAMW     = 10.0         // Kepler: the pod's CPU dram zone, W
	inputTokS    = 1000.0       // LiteLLM input tokens/s
	outputTokS   = 250.0        // LiteLLM output tokens/s
	inputPrice   = 0.50         // LiteLLM's price per 1M input tokens
	outputPrice  = 1.50         // LiteLLM's price per 1M output tokens
)

const (
	namespace = "bench"
	pod       = "mock-0"
	podID     = "7c1f0e2a-0000-4000-8000-000000000001"
	model     = "mock-model"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: fakeexporter serve [-addr HOST:PORT] | fakeexporter check [-scrape DUR] RUN-DIR")
		return 2
	}
	switch args[0] {
	case "serve":
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		addr := fs.String("addr", "127.0.0.1:9187", "listen address")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := serve(ctx, *addr, stdout); err != nil {
			fmt.Fprintln(stderr, "fakeexporter:", err)
			return 1
		}
		return 0
	case "check":
		fs := flag.NewFlagSet("check", flag.ContinueOnError)
		scrape := fs.Duration("scrape", time.Second, "Prometheus's scrape interval")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			fmt.Fprintln(stderr, "usage: fakeexporter check [-scrape DUR] RUN-DIR")
			return 2
		}
		ok, err := check(fs.Arg(0), *scrape, stdout)
		if err != nil {
			fmt.Fprintln(stderr, "fakeexporter:", err)
			return 1
		}
		if !ok {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "fakeexporter: unknown subcommand %q\n", args[0])
	return 2
}

func serve(ctx context.Context, addr string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	start := time.Now()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		page(w, time.Since(start).Seconds())
	}), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(stdout, "fakeexporter: serving http://%s/metrics\n", ln.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// page writes every counter at t seconds after start. Each starts from a
// large base, as a long-running exporter's would.
func page(w io.Writer, t float64) {
	counter := func(name string, series ...string) {
		fmt.Fprintf(w, "# HELP %s synthetic, constant rate\n# TYPE %s counter\n", name, name)
		for _, s := range series {
			fmt.Fprintln(w, s)
		}
	}
	gauge := func(name string, series ...string) {
		fmt.Fprintf(w, "# HELP %s synthetic\n# TYPE %s gauge\n", name, name)
		for _, s := range series {
			fmt.Fprintln(w, s)
		}
	}
	dcgm := func(i int, uuid string) string {
		return fmt.Sprintf(`gpu="%d",UUID="%s",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3",Hostname="bench-node",DCGM_FI_DRIVER_VERSION="550.90.07"`, i, uuid, i)
	}
	g0, g1 := dcgm(0, "GPU-00000000-0000-4000-8000-000000000000"), dcgm(1, "GPU-00000000-0000-4000-8000-000000000001")
	// dcgm-exporter: energy in mJ as integers, power in W.
	counter("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
		fmt.Sprintf("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{%s} %d", g0, int64(9e11+gpu0W*1000*t)),
		fmt.Sprintf("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{%s} %d", g1, int64(8e11+gpu1W*1000*t)))
	gauge("DCGM_FI_DEV_POWER_USAGE",
		fmt.Sprintf("DCGM_FI_DEV_POWER_USAGE{%s} %f", g0, gpu0W),
		fmt.Sprintf("DCGM_FI_DEV_POWER_USAGE{%s} %f", g1, gpu1W))
	// Kepler 0.10+.
	node := func(i int, uuid string) string {
		return fmt.Sprintf(`gpu="%d",gpu_name="NVIDIA H100 80GB HBM3",gpu_uuid="%s",node_name="bench-node",vendor="nvidia"`, i, uuid)
	}
	n0, n1 := node(0, "GPU-00000000-0000-4000-8000-000000000000"), node(1, "GPU-00000000-0000-4000-8000-000000000001")
	f := func(v float64) string { return fmt.Sprintf("%.6f", v) }
	counter("kepler_node_gpu_joules_total",
		"kepler_node_gpu_joules_total{"+n0+"} "+f(9e8+gpu0W*t), "kepler_node_gpu_joules_total{"+n1+"} "+f(8e8+gpu1W*t))
	counter("kepler_node_gpu_idle_joules_total",
		"kepler_node_gpu_idle_joules_total{"+n0+"} "+f(6e6+idleW*t), "kepler_node_gpu_idle_joules_total{"+n1+"} "+f(6e6+idleW*t))
	counter("kepler_node_gpu_active_joules_total",
		"kepler_node_gpu_active_joules_total{"+n0+"} "+f(4e7+(gpu0W-idleW)*t), "kepler_node_gpu_active_joules_total{"+n1+"} "+f(4e7+(gpu1W-idleW)*t))
	p := fmt.Sprintf(`node_name="bench-node",pod_id="%s",pod_name="%s",pod_namespace="%s",state="running"`, podID, pod, namespace)
	// Another pod on the node, which the filter must leave out.
	other := `node_name="bench-node",pod_id="other",pod_name="batch-1",pod_namespace="batch",state="running"`
	counter("kepler_pod_gpu_joules_total", "kepler_pod_gpu_joules_total{"+p+"} "+f(5e6+podGPUW*t),
		"kepler_pod_gpu_joules_total{"+other+"} "+f(1e6+30*t))
	counter("kepler_pod_cpu_joules_total",
		"kepler_pod_cpu_joules_total{"+p+`,zone="package"} `+f(4e5+podPackageW*t),
		"kepler_pod_cpu_joules_total{"+p+`,zone="dram"} `+f(6e4+podDRAMW*t))
	// LiteLLM, as prometheus_client writes it.
	l := fmt.Sprintf(`end_user="None",hashed_api_key="bench",api_key_alias="bench",requested_model="%s",team="None",team_alias="None",user="bench",model="hosted_vllm/%s"`, model, model)
	ls := fmt.Sprintf(`end_user="None",hashed_api_key="bench",api_key_alias="bench",model="hosted_vllm/%s",team="None",team_alias="None",user="bench"`, model)
	counter("litellm_input_tokens_metric_total", "litellm_input_tokens_metric_total{"+l+"} "+f(2e6+inputTokS*t))
	counter("litellm_output_tokens_metric_total", "litellm_output_tokens_metric_total{"+l+"} "+f(8e5+outputTokS*t))
	counter("litellm_total_tokens_metric_total", "litellm_total_tokens_metric_total{"+l+"} "+f(2.8e6+(inputTokS+outputTokS)*t))
	counter("litellm_spend_metric_total", "litellm_spend_metric_total{"+ls+"} "+fmt.Sprintf("%.9f", 2.2+spendPerS()*t))
}

func spendPerS() float64 { return (inputTokS*inputPrice + outputTokS*outputPrice) / 1e6 }

func check(dir string, scrape time.Duration, out io.Writer) (bool, error) {
	// The library's own reader and types: a change of run.json's layout
	// breaks this build, not the check's figures.
	run, err := results.Read(dir)
	if err != nil {
		return false, err
	}
	if len(run.Telemetry) == 0 {
		return false, fmt.Errorf("%s: run.json has no telemetry", dir)
	}
	ok := true
	fmt.Fprintf(out, "%-5s %-28s %16s %16s %9s %9s\n", "level", "figure", "measured", "rate x window", "error", "allowed")
	line := func(level int, name string, got *float64, rate, window float64, valid bool) {
		want := rate * window
		allowed := rate * scrape.Seconds()
		if got == nil || !valid {
			fmt.Fprintf(out, "%-5d %-28s %16s %16.3f %9s %9.3f  MISSING\n", level, name, "-", want, "-", allowed)
			ok = false
			return
		}
		diff := *got - want
		verdict := "ok"
		if math.Abs(diff) > allowed {
			verdict, ok = "OFF", false
		}
		if want < 10 {
			fmt.Fprintf(out, "%-5d %-28s %16.6f %16.6f %+9.6f %9.6f  %s (%+.3f %%)\n", level, name, *got, want, diff, allowed, verdict, 100*diff/want)
			return
		}
		fmt.Fprintf(out, "%-5d %-28s %16.3f %16.3f %+9.3f %9.3f  %s (%+.3f %%)\n", level, name, *got, want, diff, allowed, verdict, 100*diff/want)
	}
	for _, t := range run.Telemetry {
		r := t // results.LevelTelemetry
		if e := r.Energy; e != nil {
			line(t.Level, "GPU energy J ("+e.Source+")", &e.GrossEnergyJ, gpu0W+gpu1W, e.WindowSeconds, e.Valid)
		} else {
			line(t.Level, "GPU energy J", nil, gpu0W+gpu1W, 0, false)
		}
		if p := r.Pod; p != nil {
			w := p.WindowSeconds
			line(t.Level, "pod energy J ("+p.Via+")", &p.EnergyJ, podGPUW+podPackageW+podDRAMW, w, p.Valid)
			line(t.Level, "pod GPU J", &p.GPUJ, podGPUW, w, p.Valid)
			line(t.Level, "pod CPU J", &p.CPUJ, podPackageW+podDRAMW, w, p.Valid)
			line(t.Level, "Kepler node GPU J", p.NodeGPUJ, gpu0W+gpu1W, w, p.Valid)
			line(t.Level, "Kepler node GPU idle J", p.NodeGPUIdleJ, 2*idleW, w, p.Valid)
		} else {
			line(t.Level, "pod energy J", nil, 0, 0, false)
		}
		if l := r.LiteLLM; l != nil {
			w := l.WindowSeconds
			line(t.Level, "LiteLLM input tokens ("+l.Via+")", l.InputTokens, inputTokS, w, l.Valid)
			line(t.Level, "LiteLLM output tokens", l.OutputTokens, outputTokS, w, l.Valid)
			line(t.Level, "LiteLLM total tokens", l.TotalTokens, inputTokS+outputTokS, w, l.Valid)
			line(t.Level, "LiteLLM spend", l.Spend, spendPerS(), w, l.Valid)
		} else {
			line(t.Level, "LiteLLM tokens", nil, 0, 0, false)
		}
	}
	if ok {
		fmt.Fprintln(out, strings.Repeat("-", 20)+" every figure within one scrape interval's worth of its counter")
	}
	return ok, nil
}
