package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleRun() Run {
	return Run{
		RunID:     "20260616T1200",
		Tool:      Tool{Name: "gollm-bench", Version: "dev", Commit: "abc123"},
		Command:   []string{"gollm-bench", "sweep", "--api-key", "REDACTED"},
		StartedAt: time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC),
		Config:    Config{Command: "sweep", Target: "http://127.0.0.1:8000", Model: "m", Labels: map[string]string{"engine": "vllm-0.9.1"}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleRun()
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	want.SchemaVersion = SchemaVersion
	for _, path := range []string{dir, filepath.Join(dir, RunJSON)} {
		got, err := Read(path)
		if err != nil {
			t.Fatalf("Read(%s): %v", path, err)
		}
		if got.RunID != want.RunID || got.SchemaVersion != SchemaVersion || !got.StartedAt.Equal(want.StartedAt) ||
			strings.Join(got.Command, " ") != strings.Join(want.Command, " ") || got.Config.Labels["engine"] != "vllm-0.9.1" {
			t.Errorf("Read(%s) = %+v, want %+v", path, got, want)
		}
	}
	// No temporary file is left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != RunJSON {
		t.Errorf("folder holds %v, want only %s", ents, RunJSON)
	}
}

func TestEncodeRefusesOtherSchema(t *testing.T) {
	r := sampleRun()
	r.SchemaVersion = SchemaVersion + 1
	if err := Encode(&bytes.Buffer{}, r); !errors.Is(err, ErrSchemaVersion) {
		t.Errorf("Encode(version %d) = %v, want ErrSchemaVersion", r.SchemaVersion, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		schema         bool
	}{
		{"newer", `{"schema_version": 99, "run_id": "x"}`, "newer than this gollm-bench understands", true},
		{"zero", `{"schema_version": 0}`, "unknown schema_version 0", true},
		{"missing", `{"run_id": "x"}`, "no schema_version", true},
		{"not json", "{\n  \"schema_version\": 1,\n  oops\n}", "line 3, column 3", false},
		{"wrong type", "{\"schema_version\": 1,\n\"run_id\": 5}", "line 2", false},
		{"empty", ``, "not valid JSON", false},
		{"array", "[1, 2]\n", "not a JSON object", false},
		{"string", `"run"`, "not a JSON object", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
			if got := errors.Is(err, ErrSchemaVersion); got != tt.schema {
				t.Errorf("errors.Is(ErrSchemaVersion) = %v, want %v", got, tt.schema)
			}
		})
	}
}

func TestReadMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Read(empty folder) = %v, want not found", err)
	}
	_, err = Read(filepath.Join(dir, "nope"))
	if err == nil {
		t.Error("Read(missing path) = nil error")
	}
}

func TestCreate(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "out")
	dir, err := Create(parent, "r1", false)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(parent, "r1") {
		t.Errorf("Create = %s", dir)
	}
	for _, name := range []string{RunJSON, ReportHTML, "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Create(parent, "r1", false)
	if !errors.Is(err, ErrRunExists) || !strings.Contains(err.Error(), "run ID") || !strings.Contains(err.Error(), "pass overwrite") {
		t.Errorf("Create(existing) = %v, want ErrRunExists naming the run ID and overwrite", err)
	}
	if _, err := Create(parent, "r1", true); err != nil {
		t.Fatalf("Create(existing, overwrite) = %v", err)
	}
	for name, want := range map[string]bool{RunJSON: false, ReportHTML: false, "notes.txt": true} {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("after overwrite, %s exists = %v, want %v", name, got, want)
		}
	}
	// A plain file in the way is not a results folder.
	if err := os.WriteFile(filepath.Join(parent, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(parent, "file", true); err == nil {
		t.Error("Create over a plain file = nil error")
	}
}

func TestValidateRunID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"20260616T1200", true},
		{"fp8_vllm-0.9.1", true},
		{"", false},
		{"..", false},
		{".hidden", false},
		{"-x", false},
		{"a/b", false},
		{`a\b`, false},
		{"a b", false},
		{strings.Repeat("a", 129), false},
	}
	for _, tt := range tests {
		err := ValidateRunID(tt.id)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateRunID(%q) = %v, want ok %v", tt.id, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "run ID") {
			t.Errorf("ValidateRunID(%q) error %q does not name the run ID", tt.id, err)
		}
	}
}

// FuzzDecode checks that Decode never panics on arbitrary bytes and that
// what it accepts encodes and decodes again.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := Encode(&buf, sampleRun()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"schema_version":1,"result":{"levels":[{"summary":{"ttft_ms":{"p99":1}}}]}}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := Decode(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Encode(&out, run); err != nil {
			return // e.g. a value JSON cannot hold
		}
		if _, err := Decode(&out); err != nil {
			t.Fatalf("re-decode of encoded run failed: %v", err)
		}
	})
}
