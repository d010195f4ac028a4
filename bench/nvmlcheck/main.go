// Command nvmlcheck checks the NVML energy counter against nvidia-smi's
// power readings on a GPU machine: it samples `nvidia-smi --query-gpu=
// index,power.draw -lms 100` while a Meter (package energy/nvml, loaded
// with dlopen, as gollm-bench's CGO_ENABLED=0 build loads it) measures a
// window during which an optional load command runs, then prints per GPU
// the counter's energy and mean power beside the mean of nvidia-smi's
// readings × window. Run it through bench/nvml-check.sh.
//
//	nvmlcheck [-seconds 8] [-- load command...]
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/energy/nvml"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type smiSample struct {
	t     time.Time
	index int
	watts float64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nvmlcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seconds := fs.Float64("seconds", 8, "window length, s (the load command is stopped at its end)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	load := fs.Args()
	window := time.Duration(*seconds * float64(time.Second))

	src, err := nvml.Open()
	if err != nil {
		fmt.Fprintln(stdout, "nvmlcheck:", err)
		return 1
	}
	m := energy.NewMeter(src, energy.WithSampleInterval(100*time.Millisecond))
	defer m.Close()

	// nvidia-smi sampler, if present.
	var (
		mu  sync.Mutex
		smi []smiSample
	)
	smiCtx, stopSMI := context.WithCancel(ctx)
	defer stopSMI()
	var smiDone sync.WaitGroup
	if path, err := exec.LookPath("nvidia-smi"); err == nil {
		cmd := exec.CommandContext(smiCtx, path, "--query-gpu=index,power.draw", "--format=csv,noheader,nounits", "-lms", "100")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err == nil {
			smiDone.Add(1)
			go func() {
				defer smiDone.Done()
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					parts := strings.Split(sc.Text(), ",")
					if len(parts) != 2 {
						continue
					}
					i, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
					w, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
					if err1 == nil && err2 == nil {
						mu.Lock()
						smi = append(smi, smiSample{time.Now(), i, w})
						mu.Unlock()
					}
				}
				_ = cmd.Wait()
			}()
		}
	} else {
		fmt.Fprintln(stdout, "nvmlcheck: nvidia-smi not found; NVML only")
	}
	time.Sleep(500 * time.Millisecond) // let nvidia-smi start

	if err := m.Start(ctx); err != nil {
		fmt.Fprintln(stdout, "nvmlcheck:", err)
		return 1
	}
	t0 := time.Now()
	loadCtx, stopLoad := context.WithTimeout(ctx, window)
	loadState := "idle (no load command)"
	if len(load) > 0 {
		cmd := exec.CommandContext(loadCtx, load[0], load[1:]...)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil, loadCtx.Err() != nil:
			loadState = "load: " + strings.Join(load, " ")
		case errors.As(err, &ee):
			loadState = fmt.Sprintf("load command failed (%v); measured what ran", err)
		default:
			loadState = fmt.Sprintf("load command did not start (%v); idle", err)
		}
	}
	<-loadCtx.Done()
	stopLoad()
	r, err := m.Stop(ctx)
	t1 := time.Now()
	stopSMI()
	smiDone.Wait()
	if err != nil {
		fmt.Fprintln(stdout, "nvmlcheck:", err)
		return 1
	}

	fmt.Fprintf(stdout, "nvmlcheck: %s, driver %s, window %.2f s, %s\n", r.Hardware(), r.Driver, r.WindowSeconds, loadState)
	fmt.Fprintf(stdout, "%-4s %12s %10s %10s %8s %8s %12s %10s %8s\n", "gpu", "nvml_J", "nvml_W", "sampledW", "stdW", "maxW", "smi_J", "smi_W", "diff%")
	for _, g := range r.GPUs {
		sum, n := 0.0, 0
		mu.Lock()
		for _, s := range smi {
			if s.index == g.Index && !s.t.Before(t0) && !s.t.After(t1) {
				sum += s.watts
				n++
			}
		}
		mu.Unlock()
		smiW, smiJ, diff := 0.0, 0.0, 0.0
		if n > 0 {
			smiW = sum / float64(n)
			smiJ = smiW * r.WindowSeconds
			if g.EnergyJ > 0 {
				diff = 100 * (smiJ - g.EnergyJ) / g.EnergyJ
			}
		}
		fmt.Fprintf(stdout, "%-4d %12.1f %10.1f %10.1f %8.2f %8.1f %12.1f %10.1f %8.2f  (%d smi samples)\n",
			g.Index, g.EnergyJ, g.MeanW, g.Power.MeanW, g.Power.StdW, g.Power.MaxW, smiJ, smiW, diff, n)
	}
	fmt.Fprintf(stdout, "total: %.1f J, mean %.1f W, peak %.1f W, valid %v\n", r.EnergyJ, r.MeanW, r.PeakW, r.Valid)
	for _, w := range r.Warnings {
		fmt.Fprintf(stdout, "warning %s: %s\n", w.Code, w.Message)
	}
	return 0
}
