package scorecard

import (
	"slices"
	"testing"
)

func TestMissing(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Metadata)
		want []string
	}{
		{"complete", func(*Metadata) {}, nil},
		{"no engine", func(m *Metadata) { m.Engine = "" }, []string{"engine"}},
		{"tokenizer without its hash", func(m *Metadata) { m.TokenizerSHA256 = "" }, []string{"tokenizer_sha256"}},
		{"tool version without commit", func(m *Metadata) { m.ToolCommit = "" }, []string{"tool_commit"}},
		{"zero counts", func(m *Metadata) { m.ISLTokens, m.OSLTokens, m.MaxConcurrencyTested = 0, 0, 0 },
			[]string{"isl_tokens", "osl_tokens", "max_concurrency_tested"}},
		{"extras do not matter", func(m *Metadata) { m.Model, m.Seed, m.Labels = "", nil, nil }, nil},
		{"everything", func(m *Metadata) { *m = Metadata{} }, func() []string {
			var keys []string
			for _, f := range MandatoryFields() {
				keys = append(keys, f.Key)
			}
			return keys
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := completeMetadata("run-1")
			tt.edit(&m)
			if got := m.Missing(); !slices.Equal(got, tt.want) {
				t.Errorf("Missing() = %v, want %v", got, tt.want)
			}
			wantStatus := StatusAuditable
			if len(tt.want) > 0 {
				wantStatus = StatusAnecdote
			}
			if got := m.Status(); got != wantStatus {
				t.Errorf("Status() = %q, want %q", got, wantStatus)
			}
		})
	}
}

func TestMandatoryFieldsCoverTwelve(t *testing.T) {
	// The twelve of docs/outputs.md#the-twelve-mandatory-metadata, by the key
	// that carries each (the tokenizer and the tool version carry a second
	// key each).
	twelve := []string{"engine", "model_revision", "precision", "tokenizer", "isl_tokens", "osl_tokens",
		"hardware", "max_concurrency_tested", "tool_version", "slo", "warmup", "run_id"}
	var keys []string
	for _, f := range MandatoryFields() {
		keys = append(keys, f.Key)
	}
	for _, k := range twelve {
		if !slices.Contains(keys, k) {
			t.Errorf("mandatory %q not in MandatoryFields", k)
		}
	}
	if len(keys) != len(twelve)+2 {
		t.Errorf("MandatoryFields has %d keys, want 12 facts in 14 keys", len(keys))
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"https://user:s3cret@api.example.com/v1", "https://api.example.com/v1"},
		{"https://api.example.com/v1?api_key=s3cret#frag", "https://api.example.com/v1"},
		{"http://vllm.inference.svc:8000/", "http://vllm.inference.svc:8000/"},
		{"http://[::1]:namedport", ""},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
