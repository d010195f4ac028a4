package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Entry is one prompt of a dataset.
type Entry struct {
	Prompt string
	// OutputTokens is the requested output length, tokens (0: use the
	// run's default).
	OutputTokens int
}

// DatasetError is a problem at one line of a dataset file.
type DatasetError struct {
	File string
	Line int // 1-based; 0 when the error concerns the whole file
	Msg  string
}

// Error implements error.
func (e *DatasetError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ReadDatasetFile reads a dataset: JSONL (one prompt per line, as a JSON
// object {"prompt"|"text": ..., "output_tokens"|"max_tokens": N}, a JSON
// string, or plain text) or ShareGPT JSON (an array of {"conversations":
// [{"from": "human", "value": ...}, {"from": "gpt", ...}]}; the first human
// turn is the prompt). Blank lines are skipped.
func ReadDatasetFile(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // os.ReadFile's error names the file
	}
	return ReadDataset(bytes.NewReader(data), path)
}

// ReadDataset is ReadDatasetFile on a reader; name labels errors.
func ReadDataset(r io.Reader, name string) ([]Entry, error) {
	br := bufio.NewReader(r)
	if err := sniffText(br, name); err != nil {
		return nil, err
	}
	first, err := firstNonSpace(br)
	if err != nil {
		return nil, &DatasetError{File: name, Msg: "empty dataset: write one prompt per line (JSONL) or a ShareGPT JSON array"}
	}
	if first == '[' {
		return readShareGPT(br, name)
	}
	return readJSONL(br, name)
}

// sniffLen is how much of a dataset sniffText looks at, bytes.
const sniffLen = 4096

// sniffText refuses a file that is not text: a NUL byte or invalid UTF-8
// in its first sniffLen bytes (a model file, an archive, a UTF-16 file)
// would otherwise be read as "plain text" prompts and sent.
func sniffText(br *bufio.Reader, name string) error {
	head, _ := br.Peek(sniffLen)
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return &DatasetError{File: name, Msg: fmt.Sprintf("not a text file (a NUL byte at offset %d): a dataset is UTF-8 text, JSONL (one prompt per line) or a ShareGPT JSON array", i)}
	}
	if len(head) == sniffLen {
		// A rune cut by the end of the window is not an error.
		i := len(head) - 1
		for i > 0 && len(head)-i < utf8.UTFMax && !utf8.RuneStart(head[i]) {
			i--
		}
		if !utf8.FullRune(head[i:]) {
			head = head[:i]
		}
	}
	if !utf8.Valid(head) {
		return &DatasetError{File: name, Msg: "not a text file (invalid UTF-8 near the start): a dataset is UTF-8 text, JSONL (one prompt per line) or a ShareGPT JSON array; convert it to UTF-8"}
	}
	return nil
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if err != nil {
			return 0, err
		}
		if c := b[i-1]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

type jsonlEntry struct {
	Prompt       *string `json:"prompt"`
	Text         *string `json:"text"`
	OutputTokens int     `json:"output_tokens"`
	MaxTokens    int     `json:"max_tokens"`
}

func readJSONL(br *bufio.Reader, name string) ([]Entry, error) {
	var out []Entry
	var errs []error
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			if e, perr := parseJSONLLine(bytes.TrimSpace(raw)); perr != nil {
				errs = append(errs, &DatasetError{File: name, Line: line, Msg: perr.Error()})
			} else if e != nil {
				out = append(out, *e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset %s: %w", name, err)
		}
		if len(errs) >= 10 {
			break
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, &DatasetError{File: name, Msg: "no prompts found"}
	}
	return out, nil
}

func parseJSONLLine(line []byte) (*Entry, error) {
	switch {
	case len(line) == 0:
		return nil, nil
	case line[0] == '{':
		var j jsonlEntry
		if err := json.Unmarshal(line, &j); err != nil {
			return nil, fmt.Errorf("invalid JSON object: %s", jsonMessage(err))
		}
		e := Entry{OutputTokens: max(j.OutputTokens, j.MaxTokens)}
		switch {
		case j.Prompt != nil:
			e.Prompt = *j.Prompt
		case j.Text != nil:
			e.Prompt = *j.Text
		default:
			return nil, errors.New(`object has no "prompt" (or "text") field`)
		}
		if e.Prompt == "" {
			return nil, errors.New("empty prompt")
		}
		if j.OutputTokens < 0 || j.MaxTokens < 0 {
			return nil, errors.New("output_tokens must not be negative")
		}
		return &e, nil
	case line[0] == '"':
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("invalid JSON string: %v", err)
		}
		return &Entry{Prompt: s}, nil
	default:
		if bytes.IndexByte(line, 0) >= 0 || !utf8.Valid(line) {
			return nil, errors.New("not text (a NUL byte or invalid UTF-8): a dataset line is UTF-8 text, a JSON string or a JSON object")
		}
		return &Entry{Prompt: string(line)}, nil
	}
}

type shareGPTConversation struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

func readShareGPT(r io.Reader, name string) ([]Entry, error) {
	var convs []shareGPTConversation
	if err := json.NewDecoder(r).Decode(&convs); err != nil {
		return nil, &DatasetError{File: name, Msg: fmt.Sprintf("not a ShareGPT JSON array: %v", err)}
	}
	var out []Entry
	for _, c := range convs {
		for _, turn := range c.Conversations {
			if (turn.From == "human" || turn.From == "user") && strings.TrimSpace(turn.Value) != "" {
				out = append(out, Entry{Prompt: turn.Value})
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, &DatasetError{File: name, Msg: `no conversation has a "human" turn`}
	}
	return out, nil
}

// Dataset is a Workload that replays dataset entries in order, wrapping
// around. Safe for concurrent use.
type Dataset struct {
	entries      []Entry
	outputTokens int
	tok          Tokenizer
	promptTokens []int
}

// NewDataset returns a Workload over entries. outputTokens is the requested
// output length for entries that do not declare one, tokens. With a
// tokenizer, each prompt's length is counted once, up front.
func NewDataset(entries []Entry, outputTokens int, tok Tokenizer) (*Dataset, error) {
	if len(entries) == 0 {
		return nil, errors.New("workload: empty dataset")
	}
	if outputTokens < 1 {
		return nil, fmt.Errorf("workload: NewDataset outputTokens %d: a dataset needs a default output length of at least 1 token", outputTokens)
	}
	d := &Dataset{entries: entries, outputTokens: outputTokens, tok: tok}
	if tok != nil {
		d.promptTokens = make([]int, len(entries))
		for i, e := range entries {
			d.promptTokens[i] = len(tok.Encode(e.Prompt, false))
		}
	}
	return d, nil
}

// Request implements loadgen.Workload.
func (d *Dataset) Request(seq int64) (loadgen.Request, error) {
	i := int(seq % int64(len(d.entries)))
	e := d.entries[i]
	req := loadgen.Request{Seq: seq, Prompt: e.Prompt, MaxTokens: e.OutputTokens}
	if req.MaxTokens == 0 {
		req.MaxTokens = d.outputTokens
	}
	if d.promptTokens != nil {
		req.PromptTokens = d.promptTokens[i]
		req.PromptTokensSource = loadgen.SourceTokenizer
		req.RequestedPromptTokens = req.PromptTokens // the entry's prompt, as the served tokenizer counts it
	}
	return req, nil
}
