package report

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"

	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// WriteFormats renders run into its results folder dir as formats asks:
// "csv" writes levels.csv, "html" report.html (with dir's scorecard.json
// and the digest of its requests.jsonl when they are there), "console" the console table onto stdout (skipped
// when stdout is nil); "json", run.json itself, is written by
// results.Folder.WriteRun, and other names are ignored. Every format is
// attempted; the errors are joined.
func WriteFormats(stdout io.Writer, dir results.Folder, run results.Run, formats []string) error {
	var errs []error
	scorecardJSON, _ := os.ReadFile(filepath.Join(dir.Path, scorecard.FileName))
	for _, f := range formats {
		var buf bytes.Buffer
		switch f {
		case "console":
			if stdout != nil {
				errs = append(errs, WriteConsole(stdout, run))
			}
			continue
		case "csv":
			if err := WriteLevelsCSV(&buf, run); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, dir.WriteFile(results.LevelsCSV, buf.Bytes()))
		case "html":
			opts := HTMLOptions{Scorecard: scorecardJSON}
			opts.Requests, opts.RequestsMissing = ReadRequestDigest(dir.Path, len(run.Result.Levels))
			if err := WriteHTML(&buf, run, opts); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, dir.WriteFile(results.ReportHTML, buf.Bytes()))
		}
	}
	return errors.Join(errs...)
}

// ReadRequestDigest reads the records of results folder dir
// (requests.jsonl, or requests.jsonl.gz) into the digest report.html
// draws, thinned for a run of levels levels (ScatterPointsPerLevel). It
// returns nil and the reason when there are none or they cannot be read;
// a torn last line (an interrupted run) is skipped. Its memory is bounded
// whatever the number of records (metrics.DigestBuilder.Bound).
func ReadRequestDigest(dir string, levels int) (*metrics.RequestDigest, string) {
	for _, name := range []string{results.RequestsJSONL, results.RequestsJSONLGz} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, name + " could not be opened: " + err.Error()
		}
		defer f.Close()
		// Bounded: the records are read back at the end of a run, and a
		// long run's digest must not need memory per request.
		b := metrics.DigestBuilder{Bound: ScatterPointsPerLevel(levels)}
		dec := loadgen.NewDecoder(f)
		var pending error // a bad line, forgiven only if it is the last
		for {
			var rec loadgen.Record
			err := dec.Decode(&rec)
			if errors.Is(err, io.EOF) {
				break
			}
			if pending != nil {
				return nil, name + " could not be read: " + pending.Error()
			}
			var de *loadgen.DecodeError
			if errors.As(err, &de) {
				pending = err
				continue
			}
			if err != nil {
				return nil, name + " could not be read: " + err.Error()
			}
			b.Add(&rec)
		}
		d := b.Digest(ScatterPointsPerLevel(levels))
		return &d, ""
	}
	return nil, "no requests.jsonl in the results folder"
}
