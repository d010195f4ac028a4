package benchmark

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/sweep"
	"github.com/gollm-bench/gollm-bench/workload"
)

// goIdent matches what a user of the CLI cannot act on: a Go type's
// field (Ramp.To, SharedPrefixSpec.Groups) or an option (WithRamp).
var goIdent = regexp.MustCompile(`\b[A-Z][A-Za-z]*\.[A-Z][A-Za-z]*\b|\bWith[A-Z][A-Za-z]*\b`)

// Seen: bad --ramp and --shared-prefix values were refused in the
// library's words, "(Ramp.To)", "(Ramp.From)", "(SharedPrefixSpec.Groups)".
// Each bad input is refused naming its flag, and no Go identifier.
func TestBadInputNamesFlagsNotFields(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  func(*Settings)
		flag string
	}{
		{"ramp falls", func(s *Settings) {
			s.Ramp = &loadgen.Ramp{Shape: loadgen.RampLinear, From: 20, To: 2, Over: 6 * time.Second}
		}, "--ramp"},
		{"ramp flat", func(s *Settings) {
			s.Ramp = &loadgen.Ramp{Shape: loadgen.RampLinear, From: 2, To: 2, Over: 6 * time.Second}
		}, "--ramp"},
		{"exponential ramp from 0", func(s *Settings) {
			s.Ramp = &loadgen.Ramp{Shape: loadgen.RampExponential, To: 2, Over: 6 * time.Second}
		}, "--ramp"},
		{"ramp shape", func(s *Settings) { s.Ramp = &loadgen.Ramp{Shape: "sine", From: 1, To: 2, Over: 6 * time.Second} }, "--ramp"},
		{"ramp length", func(s *Settings) { s.Ramp = &loadgen.Ramp{Shape: loadgen.RampLinear, From: 1, To: 2} }, "--ramp"},
		{"no groups", func(s *Settings) {
			s.SharedPrefix = &workload.SharedPrefixSpec{Groups: 0, Prompts: 4, PrefixTokens: 64, QuestionTokens: 16, OutputTokens: 8}
		}, "--shared-prefix"},
		{"no output", func(s *Settings) {
			s.SharedPrefix = &workload.SharedPrefixSpec{Groups: 2, Prompts: 4, PrefixTokens: 64, QuestionTokens: 16, OutputTokens: 0}
		}, "--shared-prefix"},
		{"trace speedup", func(s *Settings) { s.Trace, s.TraceSpeedup, s.Profile, s.Rates = trace, -1, "", nil }, "--trace-speedup"},
	} {
		s := DefaultSettings(CommandRun)
		s.OutputDir = t.TempDir()
		s.Given = map[string]bool{}
		tc.set(&s)
		_, err := New(context.Background(), s, Options{FlagNames: true})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.flag) {
			t.Errorf("%s: the error does not name %s:\n%s", tc.name, tc.flag, msg)
		}
		if id := goIdent.FindString(msg); id != "" {
			t.Errorf("%s: the error names the Go identifier %s:\n%s", tc.name, id, msg)
		}
	}
}

// Seen: a setting that failed to parse was followed by errors about its
// absence: "--profile concurrent needs --rate" after a bad --trace or
// --shared-prefix, `--rate "0"` after a bad --ramp, "input= is required"
// after --price input=abc. Each bad input gives one error, its own.
func TestBadInputOneError(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  func(*Settings)
		flag string
	}{
		{"ramp", func(s *Settings) {
			s.Ramp = &loadgen.Ramp{Shape: loadgen.RampLinear, From: 20, To: 2, Over: 6 * time.Second}
		}, "--ramp"},
		{"trace", func(s *Settings) { s.Trace = trace }, "--trace"},
		{"shared prefix", func(s *Settings) {
			s.SharedPrefix = &workload.SharedPrefixSpec{Groups: 0, Prompts: 4, PrefixTokens: 64, QuestionTokens: 16, OutputTokens: 8}
		}, "--shared-prefix"},
		{"price", func(s *Settings) { s.Price = &cost.Prices{Input: -1, Output: 1} }, "--price"},
	} {
		s := DefaultSettings(CommandRun)
		s.OutputDir = t.TempDir()
		s.Given = map[string]bool{}
		if tc.flag != "--trace" && tc.flag != "--ramp" {
			s.Rates = []float64{2} // run's concurrent default needs levels
		}
		tc.set(&s)
		_, err := New(context.Background(), s, Options{FlagNames: true})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if lines := strings.Split(err.Error(), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], tc.flag) {
			t.Errorf("%s: want one error, about %s:\n%v", tc.name, tc.flag, err)
		}
	}
}

// Seen: a run of 3-turn sessions declared prefix_cache "cold", although
// each later turn resends the conversation so far as its prefix. A session
// run declares sessions, with the state of each session's first turn.
func TestSessionsPrefixCacheState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		turns                      *workload.TurnCount
		prefixCache, dataset, want string
	}{
		{nil, "", "", "cold"},
		{nil, "warm:64", "", "warm:64"},
		{&workload.TurnCount{Min: 3, Max: 3}, "", "", "sessions:cold"},
		{&workload.TurnCount{Min: 2, Max: 4}, "warm:64", "", "sessions:warm:64"},
		{&workload.TurnCount{}, "", "chats.json", "sessions:dataset"},
	} {
		b := &Benchmark{s: DefaultSettings(CommandRun)}
		pc, err := ParsePrefixCache(tc.prefixCache)
		if err != nil {
			t.Fatal(err)
		}
		b.s.Turns, b.s.PrefixCache, b.s.Dataset = tc.turns, pc, tc.dataset
		if got := b.prefixCacheState(); got != tc.want {
			t.Errorf("--turns %v --prefix-cache %q --dataset %q: %q, want %q", tc.turns, tc.prefixCache, tc.dataset, got, tc.want)
		}
	}
}

// Seen: the console said "receive clock: user (user clock chosen
// (ReceiveUser))", an option's Go name. run.json and the console say which
// setting chose the user clock.
func TestReceiveClockNoteNamesFlag(t *testing.T) {
	t.Parallel()
	var res sweep.Result
	res.Levels = append(res.Levels, sweep.LevelOutcome{})
	res.Levels[0].Summary.ReceiveClock = string(loadgen.ReceiveClockUser)
	res.Levels[0].Summary.ReceiveClockNote = loadgen.ReceiveClockChosen
	redactWarnings(&res)
	if got := res.Levels[0].Summary.ReceiveClockNote; got != "chosen by --receive-clock" {
		t.Errorf("note %q", got)
	}
}

// FuzzParsePrefixCache: ParsePrefixCache never panics, and what it
// accepts reads back the same through String.
func FuzzParsePrefixCache(f *testing.F) {
	for _, s := range []string{"", "cold", "warm:256", "warm:0", "warm", "cold:3", "hot", "warm:-1", "warm:9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrefixCache(s)
		if err != nil {
			return
		}
		if p.WarmTokens < 0 {
			t.Fatalf("%q: WarmTokens %d", s, p.WarmTokens)
		}
		again, err := ParsePrefixCache(p.String())
		if err != nil || again != p {
			t.Errorf("%q parsed to %v, which reads back as %v, %v", s, p, again, err)
		}
	})
}
