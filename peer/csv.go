package peer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

const csvFormat = "AIPerf/GenAI-Perf CSV export"

// ParseError is a problem in a result file this package recognised: the
// line (1-based) and what is wrong there.
type ParseError struct {
	Format string // e.g. "AIPerf profile_export.jsonl"
	Line   int
	Msg    string
}

// Error implements error: "AIPerf profile_export.jsonl line 3: ...".
func (e *ParseError) Error() string { return fmt.Sprintf("%s line %d: %s", e.Format, e.Line, e.Msg) }

// ReadProfileCSV is the Reader for the CSV summaries of AIPerf
// (profile_export_aiperf.csv) and GenAI-Perf (profile_export_genai_perf.csv,
// and the sweep table of `genai-perf analyze`, analyze_export_genai_perf.csv).
//
// A profile export holds two tables: one row per distribution metric,
// labelled "<Header> (<unit>)", with columns named avg, min, max, pNN and
// std in an order that differs between versions (read by name), then
// Metric,Value rows of scalars. GenAI-Perf writes numbers of 1,000 and
// more with a thousands separator ("3,457.97"). Telemetry tables after
// them are skipped. The file holds no load settings, so its one Level's
// Mode is ModeUnknown; read the run's JSON export for them. The metric
// mapping is ReadAIPerf's: TTFT ← Time to First Token, ITL ← Inter Token
// Latency, ICL ← Inter Chunk Latency, E2E ← Request Latency, ISL/OSL ←
// Input/Output Sequence Length, and the scalars Output Token Throughput,
// Request Throughput, Request Count, Error Request Count and Goodput.
//
// An analyze export holds one row per run configuration (Concurrency,
// ISL, p99 latencies, average throughputs): one Level each, closed loop
// at the row's concurrency.
func ReadProfileCSV(data []byte) (Result, error) {
	trimmed := bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("\xef\xbb\xbf"))
	switch {
	case bytes.HasPrefix(trimmed, []byte("Metric,")):
		return readProfileTables(trimmed)
	case bytes.HasPrefix(trimmed, []byte("Config Name,")):
		return readAnalyzeTable(trimmed)
	}
	return Result{}, &MismatchError{Format: csvFormat, Reason: "no `Metric,` or `Config Name,` header on the first line"}
}

// csvRows reads every record of a CSV file and the 1-based line each
// starts on; blank lines are skipped by encoding/csv, so callers find
// table boundaries by their header rows.
func csvRows(data []byte) (rows [][]string, lines []int, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, lines, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, nil, &ParseError{Format: csvFormat, Line: pe.Line, Msg: pe.Err.Error()}
			}
			return nil, nil, err
		}
		line, _ := r.FieldPos(0)
		rows, lines = append(rows, rec), append(lines, line)
	}
}

// shortRow is the error for a row with fewer fields than its table's
// header: a file cut off inside the row, whose last figure may be cut
// too ("26." for 26.77), so none of the row is read.
func shortRow(line int, row []string, width int) error {
	fields := "fields"
	if len(row) == 1 {
		fields = "field"
	}
	return &ParseError{Format: csvFormat, Line: line, Msg: fmt.Sprintf("row %q has %d %s where its header has %d: the file is cut short or damaged; export it again",
		strings.TrimSpace(row[0]), len(row), fields, width)}
}

// csvNumber parses a CSV figure, with or without thousands separators;
// missing for an empty or non-numeric field ("N/A").
func csvNumber(s string) Value {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if s == "" {
		return Value{}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Value{}
	}
	return Some(f)
}

// csvLabel splits "Time To First Token (ms)" into "time to first token"
// and "ms".
func csvLabel(s string) (name, unit string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		return strings.ToLower(strings.TrimSpace(s[:i])), strings.ToLower(s[i+1 : len(s)-1])
	}
	return strings.ToLower(s), ""
}

func readProfileTables(data []byte) (Result, error) {
	rows, lines, err := csvRows(data)
	if err != nil {
		return Result{}, err
	}
	res := Result{Tool: "GenAI-Perf", Layout: "profile_export_genai_perf.csv"}
	var lv Level
	lv.Mode = ModeUnknown
	var cols map[string]int // column name → index, in a distribution table
	width := 0              // the distribution table header's field count
	scalars := false
	seen := 0
	for i, row := range rows {
		if len(row) == 0 {
			continue
		}
		first := strings.TrimSpace(row[0])
		switch {
		case first == "Metric" && len(row) == 2 && strings.EqualFold(strings.TrimSpace(row[1]), "Value"):
			cols, scalars = nil, true
			continue
		case first == "Metric":
			cols, scalars, width = map[string]int{}, false, len(row)
			for j, c := range row {
				cols[strings.ToLower(strings.TrimSpace(c))] = j
			}
			if _, ok := cols["p1"]; ok {
				res.Tool, res.Layout = "AIPerf", "profile_export_aiperf.csv"
			} else if _, ok := cols["std"]; ok {
				res.Tool, res.Layout = "AIPerf", "profile_export_aiperf.csv"
			}
			continue
		case strings.HasPrefix(first, "Endpoint") || strings.HasPrefix(first, "GPU") || strings.HasPrefix(first, "Config Name"):
			cols, scalars = nil, false // telemetry tables: not ours
			continue
		}
		name, unit := csvLabel(first)
		switch {
		case scalars && len(row) < 2:
			return Result{}, shortRow(lines[i], row, 2)
		case cols != nil && len(row) < width:
			return Result{}, shortRow(lines[i], row, width)
		case scalars:
			v := csvNumber(row[1])
			switch {
			case name == "output token throughput":
				lv.OutputTokPerSec = v
				lv.Definitions.OutputTokPerSec = Definition{Source: first, Kind: KindTokPerSecWindow}
			case name == "request throughput":
				lv.ReqPerSec = v
				lv.Definitions.ReqPerSec = Definition{Source: first, Kind: KindReqPerSecWindow}
			case name == "request count":
				lv.Requests.Completed = countOf(v)
			case name == "error request count":
				lv.Requests.Failed = countOf(v)
			case name == "goodput" || name == "request goodput":
				lv.GoodputReqPerSec = v
			}
			seen++
		case cols != nil:
			get := func(col string) Value {
				if j, ok := cols[col]; ok && j < len(row) {
					return csvNumber(row[j])
				}
				return Value{}
			}
			st := Stats{Mean: get("avg"), P50: get("p50"), P90: get("p90"), P95: get("p95"), P99: get("p99"), Std: get("std")}
			def := Definition{Source: first}
			switch {
			case name == "time to first token" && unit == "ms":
				lv.TTFT, def.Kind = st, KindTTFT
				lv.Definitions.TTFT = def
			case name == "inter token latency" && unit == "ms":
				lv.ITL, def.Kind = st, KindITLPerRequest
				lv.Definitions.ITL = def
			case name == "inter chunk latency" && unit == "ms":
				lv.ICL, def.Kind = st, KindICL
				lv.Definitions.ICL = def
			case name == "request latency" && unit == "ms":
				lv.E2E, def.Kind = st, KindE2E
				lv.Definitions.E2E = def
			case name == "input sequence length":
				lv.ISL = st
			case name == "output sequence length":
				lv.OSL = st
			}
			seen++
		default:
			return Result{}, &ParseError{Format: csvFormat, Line: lines[i], Msg: fmt.Sprintf("row %q outside a Metric table", first)}
		}
	}
	if seen == 0 || lv.TTFT.Empty() && lv.ITL.Empty() && lv.ICL.Empty() && lv.E2E.Empty() && !lv.OutputTokPerSec.OK && !lv.ReqPerSec.OK {
		return Result{}, errNoCSVMetrics
	}
	for _, st := range []*Stats{&lv.TTFT, &lv.ITL, &lv.E2E, &lv.ISL, &lv.OSL} {
		if !st.Empty() {
			st.N = lv.Requests.Completed
		}
	}
	lv.Label = label(lv)
	res.Levels = []Level{lv}
	res.Warnings = append(res.Warnings, metrics.Warning{Code: WarnNoLoadSettings, Level: 0,
		Message: "a CSV export holds no load settings (concurrency, rate, endpoint): read the run's JSON export for them"})
	return res, nil
}

// errNoCSVMetrics refuses a profile export none of whose rows is a
// metric compared (a file cut before them, or telemetry only).
var errNoCSVMetrics = errors.New("no metrics in the file: no Time to First Token, Inter Token Latency, Inter Chunk Latency, Request Latency or throughput row; the file is cut short or not a profile export")

// cell is row's j-th field, or "" where the row is shorter: CSV rows
// need not be as wide as their header.
func cell(row []string, j int) string {
	if j < len(row) {
		return row[j]
	}
	return ""
}

func countOf(v Value) Count {
	if !v.OK || v.V < 0 || v.V > 1<<53 {
		return Count{}
	}
	return Known(int64(v.V + 0.5))
}

// readAnalyzeTable reads `genai-perf analyze`'s sweep table.
func readAnalyzeTable(data []byte) (Result, error) {
	rows, lines, err := csvRows(data)
	if err != nil {
		return Result{}, err
	}
	res := Result{Tool: "GenAI-Perf", Layout: "analyze_export_genai_perf.csv"}
	header := map[string]int{}
	for j, c := range rows[0] {
		header[strings.ToLower(strings.TrimSpace(c))] = j
	}
	if _, ok := header["concurrency"]; !ok {
		return Result{}, &ParseError{Format: csvFormat, Line: 1, Msg: "an analyze export without a Concurrency column"}
	}
	for i, row := range rows[1:] {
		if strings.TrimSpace(row[0]) == "Config Name" {
			break // the GPU telemetry table
		}
		if len(row) < len(rows[0]) {
			return Result{}, shortRow(lines[i+1], row, len(rows[0]))
		}
		get := func(col string) Value {
			if j, ok := header[col]; ok && j < len(row) {
				return csvNumber(row[j])
			}
			return Value{}
		}
		var lv Level
		c := countOf(get("concurrency"))
		switch {
		case !c.OK || c.N < 1:
			return Result{}, &ParseError{Format: csvFormat, Line: lines[i+1], Msg: fmt.Sprintf("concurrency %q is not a positive count", cell(row, header["concurrency"]))}
		case c.N == 1:
			lv.Mode, lv.Concurrency = loadgen.ModeSynchronous, 1
		default:
			lv.Mode, lv.Concurrency = loadgen.ModeConcurrent, int(c.N)
		}
		lv.Label = label(lv) + " (" + strings.TrimSpace(row[0]) + ")"
		lv.TTFT.P99 = get("p99 time to first token (ms)")
		lv.ITL.P99 = get("p99 inter token latency (ms)")
		lv.E2E.P99 = get("p99 request latency (ms)")
		lv.OSL.P99 = get("p99 output sequence length (tokens)")
		lv.ISL.Mean = get("isl")
		lv.OutputTokPerSec = get("avg. output token throughput (tokens/sec)")
		lv.ReqPerSec = get("request throughput (requests/sec)")
		lv.Definitions = Definitions{
			TTFT: Definition{Source: "p99 Time To First Token (ms)", Kind: KindTTFT},
			ITL:  Definition{Source: "p99 Inter Token Latency (ms)", Kind: KindITLPerRequest},
			E2E:  Definition{Source: "p99 Request Latency (ms)", Kind: KindE2E},
		}
		if lv.OutputTokPerSec.OK {
			lv.Definitions.OutputTokPerSec = Definition{Source: "Avg. Output Token Throughput (tokens/sec)", Kind: KindTokPerSecWindow}
		}
		if lv.ReqPerSec.OK {
			lv.Definitions.ReqPerSec = Definition{Source: "Request Throughput (requests/sec)", Kind: KindReqPerSecWindow}
		}
		if n := countOf(get("num prompts")); n.OK {
			lv.Label += fmt.Sprintf(", %d prompts", n.N)
		}
		res.Levels = append(res.Levels, lv)
	}
	return res, nil
}
