package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// WriteFormats renders run into its results folder dir as formats asks:
// "csv" writes levels.csv, "html" report.html (with dir's scorecard.json
// when there is one), "console" the console table onto stdout (skipped
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
			if err := WriteHTML(&buf, run, HTMLOptions{Scorecard: scorecardJSON}); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, dir.WriteFile(results.ReportHTML, buf.Bytes()))
		}
	}
	return errors.Join(errs...)
}
