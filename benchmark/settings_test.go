package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Every Settings field a caller sets has a key (its flag), the name a
// CLI's errors give it, and each key is the one its comment in
// settings.go gives; the fields a CLI fills in itself have none.
func TestSettingFieldsCoverSettings(t *testing.T) {
	src, err := os.ReadFile("settings.go")
	if err != nil {
		t.Fatal(err)
	}
	keyed := map[string]string{}
	for key, field := range settingFields {
		if other, ok := keyed[field]; ok {
			t.Errorf("%s has two keys, %s and %s", field, key, other)
		}
		keyed[field] = key
		if _, ok := reflect.TypeFor[Settings]().FieldByName(field); !ok {
			t.Errorf("key %s: Settings has no field %s", key, field)
		}
		if !regexp.MustCompile(`// ` + regexp.QuoteMeta(key) + `\b[:\n ]|\(` + regexp.QuoteMeta(key) + `[),]`).Match(src) {
			t.Errorf("key %s: the comment of Settings.%s does not give it", key, field)
		}
	}
	unkeyed := map[string]bool{"Command": true, "ProxyEnv": true, "EnvAPIKey": true, "ModelFromLike": true, "Given": true}
	for f := range reflect.TypeFor[Settings]().Fields() {
		if _, ok := keyed[f.Name]; !ok && !unkeyed[f.Name] {
			t.Errorf("Settings.%s has no key in settingFields", f.Name)
		}
	}
}

// Seen (issue 26): a library caller who set MaxDuration read
// "--max-seconds 2 ends the level ...", a flag it never gave and a length
// in the flag's seconds. It reads its field and its Duration.
func TestLibraryErrorsNameFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*Settings)
		lib  string // without Options.FlagNames
		cli  string // with it
	}{
		{"negative length", func(s *Settings) { s.MaxDuration = -time.Second },
			"Settings.MaxDuration -1s: want a level length", "--max-seconds -1s: want a level length"},
		{"ramp longer than the level", func(s *Settings) {
			s.Rates = nil
			s.MaxDuration, s.Ramp = 2*time.Second, &loadgen.Ramp{Shape: loadgen.RampLinear, From: 1, To: 5, Over: 6 * time.Second}
		}, "Settings.MaxDuration 2s ends the level before Settings.Ramp linear:1->5:6s", "--max-seconds 2 ends the level before --ramp linear:1->5:6s"},
		{"bound without precision", func(s *Settings) { s.PrecisionMaxDuration = time.Minute },
			"Settings.PrecisionMaxDuration 1m0s without Settings.Precision", "--precision-max-seconds 60 without --precision"},
		{"two length sources", func(s *Settings) {
			s.Data = &workload.Data{PromptTokens: 8, OutputTokens: 4}
			s.SequenceDistribution = &workload.SequenceDistribution{Entries: []workload.SequenceEntry{{ISL: 8, OSL: 0, Weight: 1}}}
		}, "Settings.Data and Settings.SequenceDistribution both set lengths", "--data and --sequence-distribution both set lengths"},
		{"a header no server takes", func(s *Settings) { s.Headers = http.Header{"Bad Header": {"x"}} },
			`Settings.Headers: header name "Bad Header"`, `--header: header name "Bad Header"`},
		{"an extra body that is not an object", func(s *Settings) { s.ExtraBody = json.RawMessage(`[1]`) },
			"Settings.ExtraBody: want a JSON object", "--extra-body: want a JSON object"},
		{"a warm-up phase with its own gate", func(s *Settings) {
			s.WarmupPhase = harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}, Duration: time.Second, Gate: &energy.Stabilization{}}
		}, "Settings.WarmupPhase: its Gate is Settings.Stabilize's", "--warmup-phase: its Gate is --stabilize's"},
		{"a mix that cannot be sampled", func(s *Settings) {
			s.SequenceDistribution = &workload.SequenceDistribution{Entries: []workload.SequenceEntry{{ISL: 8, OSL: 0, Weight: 1}}}
		}, "Settings.SequenceDistribution: sequence distribution: entry 1: ISL 8 and OSL 0", "--sequence-distribution: sequence distribution: entry 1"},
	} {
		for _, flags := range []bool{false, true} {
			s := DefaultSettings(CommandRun)
			s.Rates = []float64{2}
			tc.set(&s)
			if flags {
				s.Given = map[string]bool{"max-seconds": true, "ramp": s.Ramp != nil}
			}
			want := tc.lib
			if flags {
				want = tc.cli
			}
			err := Check(s, Options{FlagNames: flags})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, FlagNames %v: %v\nwant %s", tc.name, flags, err, want)
			}
		}
	}
}

// Seen (issue 26): a library caller leaves Given nil, and settings that
// act only when given were silently dropped: Burstiness shaped no gap,
// a Ramp whose level was too short for it was not refused. With Given
// nil, a setting that differs from DefaultSettings' is given.
func TestNilGivenMeansChangedFromDefaults(t *testing.T) {
	t.Parallel()
	s := DefaultSettings(CommandRun)
	s.Rates, s.Burstiness = []float64{5}, 0.5
	b := &Benchmark{s: s, opt: Options{Log: io.Discard}}
	if err := b.parse(); err != nil {
		t.Fatal(err)
	}
	if b.s.Profile != ProfilePoisson || b.arr.shape.Burstiness != 0.5 {
		t.Errorf("Burstiness 0.5: profile %s, gaps' shape %v; want poisson gamma gaps of shape 0.5", b.s.Profile, b.arr.shape.Burstiness)
	}
	got := explicitSettings(s)
	if !got["burstiness"] || !got["rate"] || len(got) != 2 {
		t.Errorf("given %v, want burstiness and rate", got)
	}
	s.Given = map[string]bool{}
	if got := explicitSettings(s); len(got) != 0 {
		t.Errorf("an empty Given (a command line with no flag) read as %v", got)
	}
}

// An embedder's typed request settings reach the wire: each header, the
// extra body's members (a 64-bit integer exact), and the labels in
// run.json; nothing is parsed from flag text.
func TestTypedRequestSettingsAreSent(t *testing.T) {
	t.Parallel()
	cfg, err := mockserver.Preset("instant")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var tenants, bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			tenants, bodies = append(tenants, r.Header.Get("X-Tenant")), append(bodies, string(body))
			mu.Unlock()
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })

	s := DefaultSettings(CommandRun)
	s.Target, s.Profile, s.MaxRequests = ts.URL, ProfileSynchronous, 2
	s.Data = &workload.Data{PromptTokens: 4, OutputTokens: 2}
	s.Headers = http.Header{"X-Tenant": {"blue"}}
	s.ExtraBody = json.RawMessage(`{"top_k": 5, "seed": 12345678901234567890}`)
	s.Labels = map[string]string{"team": "inference"}
	s.Energy, s.OutputDir, s.MaxLag = "none", "", time.Second
	b, err := New(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) == 0 {
		t.Fatal("no completion request reached the server")
	}
	for i, body := range bodies {
		if tenants[i] != "blue" || !strings.Contains(body, `"top_k":5`) || !strings.Contains(body, `"seed":12345678901234567890`) {
			t.Errorf("request %d: X-Tenant %q, body %s", i, tenants[i], body)
		}
	}
	if out.Run.Config.Labels["team"] != "inference" || out.Run.Config.Data != "prompt_tokens=4,output_tokens=2" {
		t.Errorf("run.json: labels %v, data %q", out.Run.Config.Labels, out.Run.Config.Data)
	}
}
