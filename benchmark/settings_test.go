package benchmark

import (
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
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
