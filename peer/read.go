package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest result file Read accepts (64 MiB). Real peer
// files are far smaller; vLLM's with per-request arrays reach a few MB.
const MaxFileBytes = 64 << 20

// Reader recognises and decodes one result-file format. data is the whole
// file; Read has already checked it is not empty. A Reader that does not
// recognise data must return a *MismatchError (so detection can move on to
// the next Reader); any other error means "this is my format, but it is
// broken" and stops detection. Readers must not panic on any input and must
// be safe for concurrent use. Result.File is filled in by Read.
type Reader func(data []byte) (Result, error)

// MismatchError is returned by a Reader for data that is not its format.
type MismatchError struct {
	Format string // e.g. "GuideLLM benchmarks.json"
	Reason string // what was expected and not found, e.g. "no `benchmarks` array"
}

// Error implements error: "not a <Format> (<Reason>)".
func (e *MismatchError) Error() string {
	return fmt.Sprintf("not %s %s (%s)", article(e.Format), e.Format, e.Reason)
}

// article is "an" before a name spoken with a vowel first ("an AIPerf
// result", "an inference-perf one"), "a" otherwise.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}

// UnknownFormatError is returned by Read when no Reader recognised the file.
// Its message names the file and what each Reader expected.
type UnknownFormatError struct {
	File       string
	Mismatches []*MismatchError
}

// Error implements error.
func (e *UnknownFormatError) Error() string {
	parts := make([]string, len(e.Mismatches))
	for i, m := range e.Mismatches {
		parts[i] = m.Error()
	}
	return fmt.Sprintf("%s: unrecognised result file: %s", e.File, strings.Join(parts, "; "))
}

// Builtin returns the built-in Readers in detection order: GuideLLM
// benchmarks.json/.yaml, AIPerf and GenAI-Perf JSON profile exports, vLLM
// serving benchmark results, inference-perf lifecycle reports, AIPerf's
// per-request profile_export.jsonl, and the AIPerf and GenAI-Perf CSV
// exports. Each call returns a fresh
// slice the caller may extend.
func Builtin() []Reader {
	return []Reader{ReadGuideLLM, ReadAIPerf, ReadVLLM, ReadInferencePerf, ReadAIPerfRecords, ReadProfileCSV}
}

// Option configures Read and ReadFile.
type Option func(*options)

type options struct {
	readers []Reader
}

// WithReaders replaces the ordered list of Readers tried (default Builtin()).
// To add gollm-bench's own run.json in front:
//
//	peer.ReadFile(path, peer.WithReaders(append([]peer.Reader{runJSON}, peer.Builtin()...)...))
func WithReaders(rs ...Reader) Option {
	return func(o *options) { o.readers = rs }
}

// ReadFile reads the result file at path, detecting its format by content.
// An inference-perf stage report takes its arrival process from the
// config.yaml beside it, when there is one (the report itself does not
// state it).
func ReadFile(path string, opts ...Option) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, fmt.Errorf("peer: %w", err)
	}
	defer f.Close()
	res, err := Read(f, path, opts...)
	if err == nil {
		inferencePerfRunConfig(&res, filepath.Dir(path))
	}
	return res, err
}

// Read reads one result file from r, detecting its format by content (never
// by name); name is used in errors and Result.File. Readers are tried in
// order; the first that recognises the data decides. It is safe for
// concurrent use.
func Read(r io.Reader, name string, opts ...Option) (Result, error) {
	o := options{readers: Builtin()}
	for _, opt := range opts {
		opt(&o)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return Result{}, fmt.Errorf("%s: larger than %d MiB; not a benchmark summary file", name, MaxFileBytes>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Result{}, fmt.Errorf("%s: empty file; expected a GuideLLM, AIPerf, GenAI-Perf, vLLM or inference-perf result JSON", name)
	}
	var unknown UnknownFormatError
	unknown.File = name
	for _, rd := range o.readers {
		res, err := rd(data)
		var mm *MismatchError
		if errors.As(err, &mm) {
			unknown.Mismatches = append(unknown.Mismatches, mm)
			continue
		}
		if err == nil {
			err = checkLevels(&res)
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", name, err)
		}
		res.File = name
		return res, nil
	}
	if _, err := decodeTree(data); err != nil && !bytes.Contains(data[:min(len(data), 4096)], []byte("\n{")) {
		return Result{}, fmt.Errorf("%s: %w; expected a GuideLLM, AIPerf, GenAI-Perf, vLLM or inference-perf result file", name, err)
	}
	return Result{}, &unknown
}

// decodeTree decodes JSON, or YAML when the data is not JSON, into a generic
// tree of map[string]any, []any, float64/int, string, bool and nil.
func decodeTree(data []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	jerr := dec.Decode(&v)
	if jerr == nil {
		if _, err := dec.Token(); err != io.EOF {
			return nil, errors.New("not JSON: trailing data after the top-level value")
		}
		return v, nil
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return nil, fmt.Errorf("not JSON: %s", jsonErrPos(data, jerr))
	}
	var y any
	if err := yaml.Unmarshal(data, &y); err != nil {
		return nil, fmt.Errorf("neither JSON (%v) nor YAML (%v)", jerr, err)
	}
	if _, ok := y.(map[string]any); !ok {
		if _, ok := y.([]any); !ok {
			return nil, fmt.Errorf("neither JSON (%v) nor a YAML mapping", jerr)
		}
	}
	return y, nil
}

// jsonErrPos renders a JSON decoding error with a line and column.
func jsonErrPos(data []byte, err error) string {
	var se *json.SyntaxError
	var off int64 = -1
	if errors.As(err, &se) {
		off = se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// node is a read-only cursor into a decoded tree; every accessor tolerates
// missing keys and wrong types, so readers never panic on odd input. A
// node made by strictNode also records, in its fieldCheck, each field
// whose value cannot be what its name says (a string where a number is
// expected, a negative count), so that the reader can refuse the file
// naming the field; path is the field's dotted path for that message.
type node struct {
	v     any
	path  string
	check *fieldCheck
}

// strictNode is the root of a tree whose numbers and counts are checked
// into c as they are read.
func strictNode(tree any, c *fieldCheck) node { return node{v: tree, check: c} }

// loose is n without checking: for a field that may hold a string in
// place of a number (vLLM's request_rate "inf").
func (n node) loose() node { return node{v: n.v, path: n.path} }

func (n node) get(keys ...string) node {
	cur := n.v
	path := n.path
	for _, k := range keys {
		if path != "" {
			path += "."
		}
		path += k
		switch m := cur.(type) {
		case map[string]any:
			cur = m[k]
		case map[any]any:
			cur = m[k]
		default:
			return node{path: path, check: n.check}
		}
	}
	return node{v: cur, path: path, check: n.check}
}

func (n node) has(key string) bool {
	switch m := n.v.(type) {
	case map[string]any:
		_, ok := m[key]
		return ok
	case map[any]any:
		_, ok := m[key]
		return ok
	}
	return false
}

func (n node) isObj() bool {
	switch n.v.(type) {
	case map[string]any, map[any]any:
		return true
	}
	return false
}

func (n node) list() []node {
	a, ok := n.v.([]any)
	if !ok {
		return nil
	}
	out := make([]node, len(a))
	for i, v := range a {
		out[i] = node{v: v, path: n.path + "[" + strconv.Itoa(i) + "]", check: n.check}
	}
	return out
}

func (n node) isList() bool { _, ok := n.v.([]any); return ok }

func (n node) num() Value {
	switch x := n.v.(type) {
	case float64:
		return Some(x)
	case int:
		return Some(float64(x))
	case int64:
		return Some(float64(x))
	case uint64:
		return Some(float64(x))
	case string, bool:
		if n.check != nil {
			n.check.add(n.path, fmt.Sprintf("is %s where a number is expected", quoteValue(x)))
		}
	}
	return Value{}
}

func (n node) count() Count {
	v := n.num()
	if !v.OK || v.V < 0 || v.V > 1<<53 {
		if v.OK && n.check != nil {
			n.check.add(n.path, fmt.Sprintf("is %g; a count lies between 0 and 2^53", v.V))
		}
		return Count{}
	}
	return Known(int64(v.V))
}

func (n node) str() string {
	s, _ := n.v.(string)
	return s
}
