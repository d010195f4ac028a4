package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/report"
	"github.com/gollm-bench/gollm-bench/results"
)

func runCompare(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench compare A B\n\nA and B are each a gollm-bench run.json (or results folder), a GuideLLM\nbenchmarks.json (or .yaml), an AIPerf or GenAI-Perf profile export JSON, or a\nvLLM benchmark result JSON. Levels are matched by offered rate or concurrency.\n")
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return usageErr(fmt.Errorf("want two files, got %d", fs.NArg()))
	}
	readers := append([]peer.Reader{readRunJSON}, peer.Builtin()...)
	var sides [2]peer.Result
	for i, path := range fs.Args() {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			// A folder is a results folder: its run.json, or the error
			// that names it.
			run, err := results.Read(path)
			if err != nil {
				return usageErr(err)
			}
			sides[i] = runToPeer(run, path)
			continue
		}
		if dirRun, err := results.Read(path); err == nil {
			sides[i] = runToPeer(dirRun, path)
			continue
		}
		r, err := peer.ReadFile(path, peer.WithReaders(readers...))
		if err != nil {
			return usageErr(err)
		}
		sides[i] = r
	}
	c := peer.Compare(sides[0], sides[1])
	if err := report.WriteComparison(e.stdout, c); err != nil {
		return err
	}
	for _, r := range sides {
		for _, w := range r.Warnings {
			fmt.Fprintf(e.stdout, "warning (%s): %s\n", r.File, w.Message)
		}
	}
	return nil
}

// readRunJSON is the peer.Reader for our own run.json.
func readRunJSON(data []byte) (peer.Result, error) {
	var probe struct {
		SchemaVersion int             `json:"schema_version"`
		Tool          results.Tool    `json:"tool"`
		Result        json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.SchemaVersion == 0 || probe.Tool.Name != "gollm-bench" {
		return peer.Result{}, &peer.MismatchError{Format: "gollm-bench run.json", Reason: "no gollm-bench schema_version"}
	}
	var run results.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return peer.Result{}, fmt.Errorf("gollm-bench run.json: %w", err)
	}
	return runToPeer(run, ""), nil
}

// runToPeer maps our levels onto the tool-neutral comparison model.
func runToPeer(run results.Run, file string) peer.Result {
	out := peer.Result{Tool: "gollm-bench", ToolVersion: run.Tool.Version, Layout: "run.json", File: file}
	for _, lv := range run.Result.Levels {
		s := lv.Summary
		p := lv.Profile
		l := peer.Level{
			Label:          fmt.Sprintf("level %d", lv.Index),
			Mode:           p.Mode,
			Concurrency:    p.Concurrency,
			MaxConcurrency: p.MaxConcurrency,
			Requests: peer.Requests{
				Completed:  peer.Known(s.Requests.OK),
				Failed:     peer.Known(s.Requests.Failed),
				Incomplete: peer.Known(s.Requests.Incomplete),
			},
			TTFT:            stats(s.TTFT),
			ITL:             stats(s.ITL),
			ICL:             stats(s.ICL),
			TPOT:            stats(s.ITL),
			E2E:             stats(s.E2E),
			OutputTokPerSec: peer.Some(s.OutputTokensPerSecond),
			ReqPerSec:       peer.Some(s.RequestsPerSecond),
			Definitions:     peer.Native(),
		}
		if p.Mode == loadgen.ModeSynchronous {
			l.Concurrency = 1
		}
		if p.Mode.OpenLoop() {
			l.Rate = peer.Some(p.Rate)
		}
		out.Levels = append(out.Levels, l)
	}
	return out
}

func stats(d metrics.Distribution) peer.Stats {
	if d.Count == 0 {
		return peer.Stats{}
	}
	return peer.Stats{Mean: peer.Some(d.Mean), P50: peer.Some(d.P50), P90: peer.Some(d.P90), P95: peer.Some(d.P95), P99: peer.Some(d.P99)}
}
