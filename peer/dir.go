package peer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// ErrNoResults is wrapped by ReadDir's error for a folder that holds no
// result file any Reader recognises.
var ErrNoResults = errors.New("no GuideLLM, AIPerf, GenAI-Perf or vLLM result file")

// maxDirFiles bounds how many files ReadDir reads: a results tree of one
// study holds tens, not thousands.
const maxDirFiles = 1000

// ReadDir reads every peer result file under dir (recursively) as one
// run: AIPerf and GenAI-Perf write one folder per concurrency or rate
// (artifacts/<run>/profile_export_aiperf.json), a GuideLLM or vLLM sweep
// may be split over files. In each folder the JSON export is read, and
// its CSV export only when there is no JSON; an AIPerf
// profile_export.jsonl next to a JSON export gives that level its
// per-request Samples; inference-perf's summary_lifecycle_metrics.json is
// skipped beside its stage_N_lifecycle_metrics.json files, and its
// Prometheus and per-request reports are skipped, as is AIPerf's
// server_metrics_export (the server's Prometheus metrics). Other .json, .yaml, .yml, .csv and .jsonl files
// are tried too and skipped when no Reader recognises them. The files
// must come from one tool; their levels are merged in load order
// (Merge). Errors name the file.
func ReadDir(dir string, opts ...Option) (Result, error) {
	byFolder := map[string][]string{}
	var folders []string
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > MaxFileBytes {
			return nil // no summary is that large: a log or records of another tool
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".json", ".yaml", ".yml", ".csv", ".jsonl":
		default:
			return nil
		}
		if n++; n > maxDirFiles {
			return fmt.Errorf("more than %d result files under %s: give the folder of one run", maxDirFiles, dir)
		}
		f := filepath.Dir(p)
		if _, ok := byFolder[f]; !ok {
			folders = append(folders, f)
		}
		byFolder[f] = append(byFolder[f], p)
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("peer: %w", err)
	}
	var parts []Result
	for _, f := range folders {
		files := byFolder[f]
		has := func(name string) bool {
			return slices.ContainsFunc(files, func(p string) bool { return filepath.Base(p) == name })
		}
		// Lexical order puts profile_export.jsonl before
		// profile_export_aiperf.json, whose level takes its samples.
		slices.Sort(files)
		var recs *Samples
		var recErr error
		for _, p := range files {
			base := filepath.Base(p)
			switch {
			case base == "profile_export_aiperf.csv" && has("profile_export_aiperf.json"),
				base == "profile_export_genai_perf.csv" && has("profile_export_genai_perf.json"):
				continue // the JSON says the same, and more
			case base == "server_metrics_export.csv" || base == "server_metrics_export.json":
				continue // AIPerf 0.12+: the server's own Prometheus metrics scraped during the run, not the client's
			case base == "summary_lifecycle_metrics.json" && slices.ContainsFunc(files, isStageReport):
				continue // inference-perf's stages, pooled: the stage files say it level by level
			case base == "profile_export.jsonl" && has("profile_export_aiperf.json"):
				r, err := ReadFile(p, opts...)
				if err != nil {
					recErr = err
					continue
				}
				if len(r.Levels) == 1 {
					recs = r.Levels[0].Samples
				}
				continue
			}
			r, err := ReadFile(p, opts...)
			var unknown *UnknownFormatError
			var unsupported *UnsupportedError
			switch {
			case errors.As(err, &unknown):
				continue // not a result file
			case errors.As(err, &unsupported):
				continue // a known tool's other report (inference-perf's Prometheus or per-request file)
			case err != nil:
				return Result{}, err
			}
			if base == "profile_export_aiperf.json" && recs != nil && len(r.Levels) == 1 {
				r.Levels[0].Samples = recs
			}
			parts = append(parts, r)
		}
		if recErr != nil {
			return Result{}, recErr
		}
	}
	if len(parts) == 0 {
		return Result{}, fmt.Errorf("peer: %w under %s", ErrNoResults, dir)
	}
	res, err := Merge(parts...)
	if err != nil {
		return Result{}, fmt.Errorf("peer: %s: %w", dir, err)
	}
	res.File = dir
	return res, nil
}

// isStageReport reports whether p is one of inference-perf's per-stage
// reports, stage_N_lifecycle_metrics.json.
func isStageReport(p string) bool {
	b := filepath.Base(p)
	return strings.HasPrefix(b, "stage_") && strings.HasSuffix(b, "_lifecycle_metrics.json")
}

// Merge joins results of one tool into one run: their levels in load
// order (closed loop by concurrency, then open loop by rate, then the
// rest in file order), warnings concatenated, the first result's workload
// facts kept (a warning lists facts the results disagree on). Results of
// different tools are refused.
func Merge(parts ...Result) (Result, error) {
	if len(parts) == 0 {
		return Result{}, errors.New("nothing to merge")
	}
	out := parts[0]
	out.Levels = slices.Clone(out.Levels)
	out.Warnings = slices.Clone(out.Warnings)
	var files []string
	for _, p := range parts {
		files = append(files, p.File)
	}
	for _, p := range parts[1:] {
		if p.Tool != out.Tool {
			return Result{}, fmt.Errorf("%s is %s %s result and %s %s %s one: compare them, or give the files of one tool", parts[0].File, article(out.Tool), out.Tool, p.File, article(p.Tool), p.Tool)
		}
		out.Levels = append(out.Levels, p.Levels...)
		out.Warnings = append(out.Warnings, p.Warnings...)
		if p.ToolVersion != out.ToolVersion && out.ToolVersion == "" {
			out.ToolVersion = p.ToolVersion
		}
		if d := workloadDiffers(out.Workload, p.Workload); d != "" {
			out.Warnings = append(out.Warnings, metrics.Warning{Code: WarnFilesDisagree, Level: -1,
				Message: fmt.Sprintf("%s and %s differ in %s; the first file's is shown", parts[0].File, p.File, d)})
		}
	}
	if len(parts) > 1 {
		slices.SortStableFunc(out.Levels, func(a, b Level) int {
			ka, kb := loadOrder(a), loadOrder(b)
			if c := cmp.Compare(ka.group, kb.group); c != 0 {
				return c
			}
			return cmp.Compare(ka.load, kb.load)
		})
		out.Layout = fmt.Sprintf("%d files: %s", len(parts), strings.Join(files, ", "))
		// Levels moved: their warnings' indices no longer hold.
		for i := range out.Warnings {
			if out.Warnings[i].Level >= 0 {
				out.Warnings[i].Level = -1
			}
		}
		out.Workload.MaxRequests, out.Workload.MaxSeconds = mergedLimit(parts)
	}
	return out, nil
}

type order struct {
	group int
	load  float64
}

func loadOrder(l Level) order {
	switch {
	case closedLoopN(l) > 0:
		return order{0, float64(closedLoopN(l))}
	case l.Rate.OK:
		return order{1, l.Rate.V}
	}
	return order{2, 0}
}

// mergedLimit keeps a limit the parts agree on.
func mergedLimit(parts []Result) (Count, Value) {
	req, sec := parts[0].Workload.MaxRequests, parts[0].Workload.MaxSeconds
	for _, p := range parts[1:] {
		if p.Workload.MaxRequests != req {
			req = Count{}
		}
		if p.Workload.MaxSeconds != sec {
			sec = Value{}
		}
	}
	return req, sec
}

// workloadDiffers names the facts two workloads state differently.
func workloadDiffers(a, b Workload) string {
	var d []string
	for _, f := range []struct {
		name string
		x, y string
	}{
		{"endpoint", a.Endpoint, b.Endpoint}, {"model", a.Model, b.Model}, {"tokenizer", a.Tokenizer, b.Tokenizer},
		{"data", a.Data, b.Data}, {"dataset", a.Dataset, b.Dataset}, {"stream", a.Stream.String(), b.Stream.String()},
	} {
		if f.x != f.y {
			d = append(d, f.name)
		}
	}
	return strings.Join(d, ", ")
}

// ReadPath reads path as a peer result: a folder with ReadDir, a file with
// ReadFile.
func ReadPath(path string, opts ...Option) (Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Result{}, fmt.Errorf("peer: %w", err)
	}
	if st.IsDir() {
		return ReadDir(path, opts...)
	}
	return ReadFile(path, opts...)
}
