package scorecard

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "EOF"},
		{"no schema", `{"status":"auditable"}`, `no "schema_version"`},
		{"other major", `{"schema_version":"scorecard/2.0"}`, `schema_version "scorecard/2.0" is not supported`},
		{"syntax error with position", "{\n  \"schema_version\": \"scorecard/1.0\",\n  \"status\": ,\n}", "line 3, column 13"},
		{"type error position", "{\"schema_version\":\"scorecard/1.0\",\n\"performance\":{\"ttft_p99_ms\":\"fast\"}}", `line 2, column `},
		{"trailing data", `{"schema_version":"scorecard/1.0"} {}`, "unexpected data after the scorecard object"},
		{"type error names the field", "{\"schema_version\":\"scorecard/1.0\",\n\"performance\":{\"ttft_p99_ms\":\"fast\"}}", `field "performance.ttft_p99_ms"`},
		{"truncated", `{"schema_version":"scorecard/1.0",`, "line 1, column 35: the file ends inside a JSON value"},
		{"not an object", `[1,2]`, "cannot unmarshal array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDecodeRecomputesStatus(t *testing.T) {
	// A hand-edited file claims to be auditable without metadata; a newer
	// minor adds a key this build does not know.
	sc, err := Decode(strings.NewReader(`{"schema_version":"scorecard/1.7","status":"auditable","metadata":{"engine":"vllm-0.9.1"},"future":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Status != StatusAnecdote || slices.Contains(sc.Missing, "engine") || !slices.Contains(sc.Missing, "run_id") {
		t.Errorf("status %q missing %v", sc.Status, sc.Missing)
	}
}

func TestWriteFillsSchemaAndStatus(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Scorecard{Metadata: completeMetadata("r")}); err != nil {
		t.Fatal(err)
	}
	sc, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if sc.SchemaVersion != SchemaVersion || sc.Status != StatusAuditable {
		t.Errorf("schema %q status %q", sc.SchemaVersion, sc.Status)
	}
	// Absent figures stay absent: no zeros appear in the JSON.
	buf.Reset()
	if err := Write(&buf, Scorecard{}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"ttft_p99_ms", "cpm_eur_1m", "wh_per_token", "gco2_per_1m_tokens", "error_rate", "started_at"} {
		if strings.Contains(buf.String(), key) {
			t.Errorf("empty scorecard JSON has %q:\n%s", key, buf.String())
		}
	}
}

// writeCard writes a minimal scorecard.json for run id into dir.
func writeCard(t *testing.T, dir, runID string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Scorecard{Metadata: Metadata{RunID: runID}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadDirs(t *testing.T) {
	root := t.TempDir()
	results := filepath.Join(root, "results")
	writeCard(t, filepath.Join(results, "b"), "b")
	writeCard(t, filepath.Join(results, "a"), "a")
	writeCard(t, filepath.Join(results, "a", "shard-0"), "a-shard-0") // belongs to run a: not a row
	writeCard(t, filepath.Join(results, "nested", "deep", "c"), "c")
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(root, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, FileName), []byte(`{"schema_version":`), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		paths   []string
		want    []string
		wantErr []string
	}{
		{"results folder", []string{results}, []string{"a", "b", "c"}, nil},
		{"run dir", []string{filepath.Join(results, "b")}, []string{"b"}, nil},
		{"file", []string{filepath.Join(results, "b", FileName)}, []string{"b"}, nil},
		{"argument order, duplicates once", []string{filepath.Join(results, "b"), results}, []string{"b", "a", "c"}, nil},
		{"empty folder", []string{filepath.Join(root, "empty")}, nil, []string{"no scorecard.json or peer result under"}},
		{"missing path", []string{filepath.Join(root, "nope")}, nil, []string{"no such file"}},
		{"broken file: the rest still read", []string{broken, filepath.Join(results, "a")}, []string{"a"}, []string{filepath.Join(broken, FileName), "line 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := ReadDirs(tt.paths...)
			var got []string
			for _, r := range rows {
				got = append(got, r.Scorecard.Metadata.RunID)
				if filepath.Base(r.Dir) != r.Scorecard.Metadata.RunID {
					t.Errorf("row %s has dir %s", r.Scorecard.Metadata.RunID, r.Dir)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
			if (err != nil) != (len(tt.wantErr) > 0) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestWriteCSVEmptyAndMissing(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), strings.Join(Columns(), ",")+"\n"; got != want {
		t.Errorf("no rows: %q, want only the header", got)
	}
	buf.Reset()
	zero := 0.0
	sc := Scorecard{Performance: Performance{ErrorRate: &zero}}
	if err := WriteCSV(&buf, []Scorecard{sc}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	cells := strings.Split(lines[1], ",")
	for i, name := range Columns() {
		switch name {
		case "performance.error_rate":
			if cells[i] != "0" {
				t.Errorf("measured zero error rate written as %q", cells[i])
			}
		case "performance.ttft_p99_ms", "cost.cpm_eur_1m", "energy.wh_per_token", "metadata.isl_tokens", "metadata.seed":
			if cells[i] != "" {
				t.Errorf("absent %s written as %q", name, cells[i])
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"metadata": {"engine": "x"}, "performance": {"goodput_tok_s": 1}, "carbon": {"co2_per_1m_tokens_g": 2}}`))
	f.Add([]byte(`{"metadata": {}, "performance": {}, "carbon": []}`))
	for _, in := range sampleCards() {
		var buf bytes.Buffer
		if err := Write(&buf, in); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"schema_version":"scorecard/1.0","performance":{"knee_bracket":{"low":1,"high":null}}}`))
	f.Add([]byte(`{"schema_version":"scorecard/1.0","metadata":{"seed":-1,"started_at":"x"}}`))
	f.Add([]byte("\xff{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		// What decodes must re-encode, decode again to the same status, and
		// flow through the aggregate and Pareto code without panicking.
		var buf bytes.Buffer
		if err := Write(&buf, sc); err != nil {
			t.Fatalf("Write after Decode: %v", err)
		}
		again, err := Decode(&buf)
		if err != nil {
			t.Fatalf("Decode(Write(Decode(x))): %v", err)
		}
		if again.Status != sc.Status || !slices.Equal(again.Missing, sc.Missing) {
			t.Fatalf("status changed on round trip: %q %v -> %q %v", sc.Status, sc.Missing, again.Status, again.Missing)
		}
		if err := WriteCSV(&bytes.Buffer{}, []Scorecard{sc, again}); err != nil {
			t.Fatal(err)
		}
		front, dropped := Pareto([]Scorecard{sc, again}, nil)
		if err := WriteParetoText(&bytes.Buffer{}, front, dropped); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadDirsSkipsPooledInferencePerfSummary: the review of issue 28
// saw pareto count inference-perf's summary_lifecycle_metrics.json (every
// stage pooled) beside the stage files it pools. It is skipped there.
func TestReadDirsSkipsPooledInferencePerfSummary(t *testing.T) {
	rows, _ := ReadDirs(filepath.Join("..", "testdata", "peers", "inference-perf"))
	if len(rows) != 2 {
		t.Errorf("%d rows, want the 2 stages", len(rows))
	}
	for _, r := range rows {
		if strings.Contains(r.Dir, "summary_lifecycle_metrics.json") {
			t.Errorf("row of the pooled summary: %s", r.Dir)
		}
	}
}
