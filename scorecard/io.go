package scorecard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/peer"
)

// FileName is the scorecard's file name inside a run directory
// (OUTPUT-DIR/<run-id>/scorecard.json, docs/outputs.md#scorecardjson).
const FileName = "scorecard.json"

// maxFileBytes bounds what Decode reads: a scorecard is a few KiB.
const maxFileBytes = 16 << 20

// Write encodes sc as indented JSON with a trailing newline. An empty
// SchemaVersion is written as SchemaVersion, and an empty Status is derived
// from the metadata. Keys keep struct order, so output is deterministic.
func Write(w io.Writer, sc Scorecard) error {
	if sc.SchemaVersion == "" {
		sc.SchemaVersion = SchemaVersion
	}
	if sc.Status == "" {
		sc.Status, sc.Missing = sc.Metadata.Status(), sc.Metadata.Missing()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // keep SLO strings such as "ttft_p99<=500ms" readable
	if err := enc.Encode(sc); err != nil {
		return fmt.Errorf("scorecard: encode: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("scorecard: write: %w", err)
	}
	return nil
}

// Decode reads one scorecard.json from r. It requires a schema_version of
// major 1 ("scorecard/1.x"), ignores keys it does not know (a newer minor
// may add some), and recomputes Status and Missing from the metadata, so a
// file cannot claim to be auditable without the twelve mandatory metadata.
// A file without schema_version whose metadata and performance sections
// are objects is read as the scorecard-exporter layout (see
// WarnSeedLayout). Syntax errors carry a line and column.
func Decode(r io.Reader) (Scorecard, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return Scorecard{}, fmt.Errorf("read: %w", err)
	}
	if len(data) > maxFileBytes {
		return Scorecard{}, fmt.Errorf("larger than %d bytes: not a scorecard.json", maxFileBytes)
	}
	if !hasSchemaVersion(data) {
		// The scorecard-exporter layout carries none.
		if sc, ok, err := decodeSeed(data); ok {
			return sc, err
		}
	}
	var sc Scorecard
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&sc); err != nil {
		return Scorecard{}, positioned(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		l, c := lineCol(data, dec.InputOffset())
		return Scorecard{}, fmt.Errorf("line %d, column %d: unexpected data after the scorecard object", l, c)
	}
	switch {
	case sc.SchemaVersion == "":
		return Scorecard{}, errors.New(`no "schema_version": not a gollm-bench scorecard.json`)
	case !strings.HasPrefix(sc.SchemaVersion, "scorecard/1."):
		return Scorecard{}, fmt.Errorf("schema_version %q is not supported (this build reads %q and other scorecard/1.x); upgrade gollm-bench", sc.SchemaVersion, SchemaVersion)
	}
	sc.Status, sc.Missing = sc.Metadata.Status(), sc.Metadata.Missing()
	return sc, nil
}

// hasSchemaVersion reports whether data is a JSON object with a
// schema_version key.
func hasSchemaVersion(data []byte) bool {
	var probe struct {
		V *json.RawMessage `json:"schema_version"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.V != nil
}

// Read reads the scorecard at path: a scorecard.json file (or one in the
// scorecard-exporter layout), or a run directory holding one. Errors name
// the file.
func Read(path string) (Scorecard, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	f, err := os.Open(path)
	if err != nil {
		return Scorecard{}, fmt.Errorf("scorecard: %w", err)
	}
	defer f.Close()
	sc, err := Decode(f)
	if err != nil {
		return Scorecard{}, fmt.Errorf("scorecard %s: %w", path, err)
	}
	return sc, nil
}

// Row is a scorecard and the run directory (or, for a peer result or
// the exporter's layout, the file) it was read from.
type Row struct {
	Dir       string
	Scorecard Scorecard
}

// gollm-bench's own outputs, which are never peer results.
var ownFiles = map[string]bool{"run.json": true, "levels.csv": true, "requests.jsonl": true, "requests.jsonl.gz": true, "scorecard-aggregate.csv": true}

// readAny reads file as scorecard rows: a scorecard (ours or the
// exporter's layout), else a peer tool's result (FromPeer). A file that is
// neither gives errNotScorecard.
func readAny(file string) ([]Scorecard, error) {
	sc, err := Read(file)
	if err == nil {
		return []Scorecard{sc}, nil
	}
	r, perr := peer.ReadFile(file)
	var unknown *peer.UnknownFormatError
	var unsupported *peer.UnsupportedError
	switch {
	case perr == nil:
		return FromPeer(r), nil
	case errors.As(perr, &unsupported):
		return nil, errNotScorecard // a known tool's other report (inference-perf's Prometheus histograms)
	case errors.As(perr, &unknown):
		if strings.HasSuffix(file, ".json") && !strings.Contains(err.Error(), "schema_version") {
			return nil, err // a scorecard that is broken
		}
		return nil, errNotScorecard
	}
	return nil, perr
}

// ReadDirs reads the scorecards under paths, for `gollm-bench aggregate`
// and `pareto`. Each path is a scorecard.json file, a run directory
// (OUTPUT-DIR/<run-id>/ holding scorecard.json), a peer result file or a
// scorecard in the exporter's layout, or a folder searched recursively
// for all of these. The search does not descend into a run directory (its
// shard-<i>/ folders belong to it), nor into a directory twice. In a
// folder that is not a run directory, every .json, .yaml, .yml, .csv and
// .jsonl file that is a scorecard or a peer tool's result (FromPeer: one
// row per level) is read; other files are skipped. Rows come in argument
// order, then lexical path order.
//
// A file that cannot be read or decoded, or a path holding no scorecard,
// is an error; ReadDirs still returns every row it could read, with all the
// errors joined.
func ReadDirs(paths ...string) ([]Row, error) {
	var (
		rows []Row
		errs []error
		seen = map[string]bool{}
	)
	add := func(file string) {
		dir := filepath.Clean(filepath.Dir(file))
		if seen[dir] {
			return
		}
		seen[dir] = true
		sc, err := Read(file)
		if err != nil {
			errs = append(errs, err)
			return
		}
		rows = append(rows, Row{Dir: dir, Scorecard: sc})
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			errs = append(errs, fmt.Errorf("scorecard: %w", err))
			continue
		}
		if !st.IsDir() {
			if filepath.Base(root) == FileName {
				add(root)
				continue
			}
			cards, err := readAny(root)
			if errors.Is(err, errNotScorecard) {
				err = fmt.Errorf("scorecard: %s is neither a scorecard nor a GuideLLM, AIPerf, GenAI-Perf, vLLM or inference-perf result", root)
			}
			if err != nil {
				errs = append(errs, err)
			}
			for _, sc := range cards {
				rows = append(rows, Row{Dir: root, Scorecard: sc})
			}
			continue
		}
		found := 0
		walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, fmt.Errorf("scorecard: %w", err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			file := filepath.Join(p, FileName)
			if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
				found++
				add(file)
				return fs.SkipDir
			}
			// Not a run directory: its scorecards in other layouts and
			// peer results.
			entries, err := os.ReadDir(p)
			if err != nil {
				errs = append(errs, fmt.Errorf("scorecard: %w", err))
				return nil
			}
			// inference-perf's summary pools the stages beside it: its
			// row would count their requests twice (peer.ReadDir skips it
			// too).
			stages := slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
				n := e.Name()
				return strings.HasPrefix(n, "stage_") && strings.HasSuffix(n, "_lifecycle_metrics.json")
			})
			for _, e := range entries {
				name := e.Name()
				if stages && name == "summary_lifecycle_metrics.json" {
					continue
				}
				switch strings.ToLower(filepath.Ext(name)) {
				case ".json", ".yaml", ".yml", ".csv", ".jsonl":
				default:
					continue
				}
				if !e.Type().IsRegular() || ownFiles[name] {
					continue
				}
				f := filepath.Join(p, name)
				cards, err := readAny(f)
				if errors.Is(err, errNotScorecard) {
					continue
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				found++
				for _, sc := range cards {
					rows = append(rows, Row{Dir: f, Scorecard: sc})
				}
			}
			return nil
		})
		if walkErr != nil {
			errs = append(errs, fmt.Errorf("scorecard: walk %s: %w", root, walkErr))
		}
		if found == 0 {
			errs = append(errs, fmt.Errorf("scorecard: no %s or peer result under %s: pass the output folder of finished runs (by default gollm-bench-results/) or one run's folder in it, or a folder of GuideLLM, AIPerf, GenAI-Perf or vLLM results", FileName, root))
		}
	}
	return rows, errors.Join(errs...)
}

// positioned adds a line and column to JSON syntax and type errors.
func positioned(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		l, c := lineCol(data, syn.Offset-1) // Offset counts the offending byte
		return fmt.Errorf("line %d, column %d: %w", l, c, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		l, c := lineCol(data, int64(len(data)))
		return fmt.Errorf("line %d, column %d: the file ends inside a JSON value (truncated?): %w", l, c, err)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		l, c := lineCol(data, typ.Offset)
		return fmt.Errorf("line %d, column %d: field %q: %w", l, c, typ.Field, err)
	}
	return err
}

// lineCol converts a byte offset into 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
