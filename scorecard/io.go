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
	"strings"
)

// FileName is the scorecard's file name inside a run directory
// (results/<run-id>/scorecard.json, SPEC §10).
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
// Syntax errors carry a line and column.
func Decode(r io.Reader) (Scorecard, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return Scorecard{}, fmt.Errorf("read: %w", err)
	}
	if len(data) > maxFileBytes {
		return Scorecard{}, fmt.Errorf("larger than %d bytes: not a scorecard.json", maxFileBytes)
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

// Read reads the scorecard at path: a scorecard.json file, or a run
// directory holding one. Errors name the file.
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

// Row is a scorecard and the run directory it was read from.
type Row struct {
	Dir       string
	Scorecard Scorecard
}

// ReadDirs reads the scorecards under paths, for `gollm-bench aggregate`
// and `pareto`. Each path is a scorecard.json file, a run directory
// (results/<run-id>/ holding scorecard.json), or a folder searched
// recursively for run directories (results/). The search does not descend
// into a run directory (its shard-<i>/ folders belong to it), nor into a
// directory twice. Rows come in argument order, then lexical path order.
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
			add(root)
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
			return nil
		})
		if walkErr != nil {
			errs = append(errs, fmt.Errorf("scorecard: walk %s: %w", root, walkErr))
		}
		if found == 0 {
			errs = append(errs, fmt.Errorf("scorecard: no %s under %s: pass results/ or results/<run-id>/ of a finished run", FileName, root))
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
