package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gollm-bench/gollm-bench/scorecard"
)

// File names inside a results folder (docs/outputs.md#the-results-folder).
const (
	RunJSON         = "run.json"          // the full result (Run)
	ScorecardJSON   = "scorecard.json"    // one auditable row
	LevelsCSV       = "levels.csv"        // one row per level
	RequestsJSONL   = "requests.jsonl"    // one record per request
	RequestsJSONLGz = "requests.jsonl.gz" // the same, gzip-compressed
	ReportHTML      = "report.html"       // the self-contained report
)

// ErrRunExists is wrapped by Create's error when the run id is taken and
// overwrite is false. The CLI maps it to a usage error (exit code 2).
var ErrRunExists = errors.New("run id already exists")

// ErrSchemaVersion is wrapped by Read's and Decode's error when run.json
// has no schema_version or one this build does not understand.
var ErrSchemaVersion = errors.New("unsupported run.json schema_version")

// Encode writes run as run.json content: indented JSON, keys in struct
// order, one trailing newline. A zero SchemaVersion is written as
// SchemaVersion; any other value than SchemaVersion is refused, since the
// layout written is this build's.
func Encode(w io.Writer, run Run) error {
	if run.SchemaVersion == 0 {
		run.SchemaVersion = SchemaVersion
	}
	if run.SchemaVersion != SchemaVersion {
		return fmt.Errorf("results: run has schema_version %d, but this build writes version %d: %w", run.SchemaVersion, SchemaVersion, ErrSchemaVersion)
	}
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode run.json: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("results: write run.json: %w", err)
	}
	return nil
}

// Decode reads run.json content. It checks schema_version first, so a file
// from a newer gollm-bench gets an error that says to upgrade instead of a
// silently misread result. Unknown keys are ignored: adding a field does
// not change the schema version.
func Decode(r io.Reader) (Run, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Run{}, fmt.Errorf("results: read run.json: %w", err)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] != '{' && json.Valid(b) {
		return Run{}, fmt.Errorf("results: run.json is not a JSON object (it starts with %q): want the run.json of a gollm-bench run or sweep", t[:1])
	}
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Run{}, fmt.Errorf("results: run.json is not valid JSON: %w", describeJSONError(b, err))
	}
	switch v := head.SchemaVersion; {
	case v == nil:
		return Run{}, fmt.Errorf("results: run.json has no schema_version: not a gollm-bench run.json: %w", ErrSchemaVersion)
	case *v > SchemaVersion:
		return Run{}, fmt.Errorf("results: run.json has schema_version %d, newer than this gollm-bench understands (%d): upgrade gollm-bench to read it: %w", *v, SchemaVersion, ErrSchemaVersion)
	case *v < 1:
		return Run{}, fmt.Errorf("results: run.json has unknown schema_version %d (this gollm-bench reads version %d): %w", *v, SchemaVersion, ErrSchemaVersion)
	}
	if *head.SchemaVersion == 1 {
		if b, err = upgradeV1(b); err != nil {
			return Run{}, fmt.Errorf("results: run.json (schema 1): %w", err)
		}
	}
	var run Run
	if err := json.Unmarshal(b, &run); err != nil {
		return Run{}, fmt.Errorf("results: decode run.json: %w", describeJSONError(b, err))
	}
	run.SchemaVersion = SchemaVersion
	return run, nil
}

// upgradeV1 rewrites a schema-1 run.json into the schema-2 layout: each
// telemetry entry's "energy" held the whole reading as {"energy": ...,
// "engine": ...}; it becomes the entry's own "energy" and "engine". (Its
// two-valued verdicts are read by slo's decoders.)
func upgradeV1(b []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, describeJSONError(b, err)
	}
	raw, ok := doc["telemetry"]
	if !ok {
		return b, nil
	}
	var old []struct {
		Level  int `json:"level"`
		Energy *struct {
			Energy json.RawMessage `json:"energy"`
			Engine json.RawMessage `json:"engine"`
		} `json:"energy"`
	}
	if err := json.Unmarshal(raw, &old); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	type entry struct {
		Level  int             `json:"level"`
		Energy json.RawMessage `json:"energy,omitempty"`
		Engine json.RawMessage `json:"engine,omitempty"`
	}
	flat := make([]entry, len(old))
	for i, o := range old {
		flat[i].Level = o.Level
		if o.Energy != nil {
			flat[i].Energy, flat[i].Engine = nullToEmpty(o.Energy.Energy), nullToEmpty(o.Energy.Engine)
		}
	}
	if doc["telemetry"], ok = marshalRaw(flat); !ok {
		return nil, errors.New("telemetry: cannot re-encode")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func nullToEmpty(r json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(r)) == "null" {
		return nil
	}
	return r
}

func marshalRaw(v any) (json.RawMessage, bool) {
	b, err := json.Marshal(v)
	return b, err == nil
}

// describeJSONError adds the line and column of a syntax or type error.
func describeJSONError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // Offset counts the bad byte as read
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return err
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// Write writes run to dir/run.json (see Encode), replacing it atomically
// (a temporary file renamed into place). dir must exist (see Create).
func Write(dir string, run Run) error { return Folder{Path: dir}.WriteRun(run) }

// WriteFile writes data to dir/name atomically: to a temporary file in dir,
// then renamed over name, so a reader never sees half a file.
func WriteFile(dir, name string, data []byte) error {
	return Folder{Path: dir}.WriteFile(name, data)
}

// Folder is a results folder being written: its path, and the file system
// it is written through (OSFS when FS is nil).
type Folder struct {
	Path string
	FS   FS
}

// FileSystem returns d.FS, or OSFS when it is nil.
func (d Folder) FileSystem() FS {
	if d.FS == nil {
		return OSFS{}
	}
	return d.FS
}

// WriteRun writes run to run.json in d (see Encode), replacing it
// atomically, as WriteFile does.
func (d Folder) WriteRun(run Run) error {
	var buf bytes.Buffer
	if err := Encode(&buf, run); err != nil {
		return err
	}
	return d.WriteFile(RunJSON, buf.Bytes())
}

// WriteScorecard writes sc to scorecard.json in d (see scorecard.Write),
// replacing it atomically, as WriteFile does.
func (d Folder) WriteScorecard(sc scorecard.Scorecard) error {
	var buf bytes.Buffer
	if err := scorecard.Write(&buf, sc); err != nil {
		return fmt.Errorf("results: %s: %w", ScorecardJSON, err)
	}
	return d.WriteFile(ScorecardJSON, buf.Bytes())
}

// WriteFile writes data to the file name in d atomically: to a temporary
// file, then renamed over name, so that a reader never sees half a file.
// A write that fails (a full disk) removes the temporary file and leaves
// name as it was; the error is a *WriteError naming name and the space
// left.
func (d Folder) WriteFile(name string, data []byte) error {
	fsys := d.FileSystem()
	path := filepath.Join(d.Path, name)
	f, err := CreateTemp(fsys, d.Path, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	tmp := f.Name()
	n, werr := f.Write(data)
	if werr == nil && n < len(data) {
		werr = io.ErrShortWrite
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = fsys.Remove(tmp)
		return NewWriteError(fsys, path, werr)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		_ = fsys.Remove(tmp)
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return nil
}

// Read reads a run from path: a results folder (its run.json is read) or
// the run.json file itself. See Decode for the schema check.
func Read(path string) (Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Run{}, fmt.Errorf("results: %w (want a results folder or its %s)", err, RunJSON)
	}
	if st.IsDir() {
		path = filepath.Join(path, RunJSON)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Run{}, fmt.Errorf("results: %s not found: is %s a gollm-bench results folder?", path, filepath.Dir(path))
		}
		return Run{}, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	run, err := Decode(f)
	if err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// Open reads a run from path, as Read does, and checks it (Run.Check). It
// returns the run and its folder (path, or the folder holding path when
// path is the run.json file). A run.json that decodes but fails the check
// is damaged: the error names the file and says to re-run or restore it.
func Open(path string) (Run, string, error) {
	run, err := Read(path)
	if err != nil {
		return Run{}, "", err
	}
	dir, file := path, path
	if filepath.Base(path) == RunJSON {
		dir = filepath.Dir(path)
	} else {
		file = filepath.Join(path, RunJSON)
	}
	if err := run.Check(); err != nil {
		return Run{}, "", fmt.Errorf("%s: %w; the file is damaged: re-run, or restore it from a copy", file, err)
	}
	return run, dir, nil
}

// Create makes the folder parent/runID for a new run and returns its path. A
// run id that already exists is refused (docs/outputs.md#run-ids: idempotent,
// like a Kubernetes Job name) with an error wrapping ErrRunExists, unless
// overwrite is set: then the files a run writes (run.json, scorecard.json,
// levels.csv, requests.jsonl[.gz], report.html) are removed from it, and
// anything else there is left alone. parent is created if needed.
func Create(parent, runID string, overwrite bool) (string, error) {
	if err := ValidateRunID(runID); err != nil {
		return "", err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("results: create the output folder %s: %w", parent, err)
	}
	dir := filepath.Join(parent, runID)
	err := os.Mkdir(dir, 0o755)
	switch {
	case err == nil:
		return dir, nil
	case !errors.Is(err, fs.ErrExist):
		return "", fmt.Errorf("results: create %s: %w", dir, err)
	case !overwrite:
		return "", fmt.Errorf("results: %s: run ID %q already exists; choose another run ID, or pass overwrite to replace it: %w", dir, runID, ErrRunExists)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("results: %s exists and is not a folder; choose another run ID", dir)
	}
	for _, name := range []string{RunJSON, ScorecardJSON, LevelsCSV, RequestsJSONL, RequestsJSONLGz, ReportHTML} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("results: overwrite: %w", err)
		}
	}
	return dir, nil
}

// ValidateRunID checks that id can name a results folder: 1 to 128
// characters from A-Z a-z 0-9 . _ -, not starting with '.' or '-'.
func ValidateRunID(id string) error {
	const allowed = "A-Z a-z 0-9 . _ -"
	switch {
	case id == "":
		return errors.New("results: run ID is empty; give a name such as 20260616T1200")
	case len(id) > 128:
		return fmt.Errorf("results: run ID is %d characters long; use at most 128", len(id))
	case strings.HasPrefix(id, ".") || strings.HasPrefix(id, "-"):
		return fmt.Errorf("results: run ID %q must not start with '.' or '-'", id)
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("results: run ID %q has %q at column %d; use only %s", id, r, i+1, allowed)
		}
	}
	return nil
}
