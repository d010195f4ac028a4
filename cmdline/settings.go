package cmdline

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cost"
	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/internal/fieldname"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// SettingsText is the text, in the flags' grammar, of the benchmark
// settings that benchmark.Settings holds as typed values: --rate (a list
// of numbers), --slo (slo.Parse's grammar), --warmup and --cooldown
// (loadgen.ParseTrim's: 30s, 100, 10%), --ramp (loadgen.ParseRamp's:
// linear:1->50:60s), and the others below, each read by the parser of
// the package that owns its type. The command binds those flags to its
// fields, so that configuration files, peer aliases and --like set them
// as they set any flag, and Apply parses them into the settings: the
// library takes typed values, and the grammar is the command line's.
// (The enumerations whose type is a named string, such as --profile, are
// bound to their Settings field directly: their text is their value.)
type SettingsText struct {
	Rates            []string // --rate
	SLO              string   // --slo
	Warmup, Cooldown string   // --warmup, --cooldown
	Ramp             string   // --ramp ("": none)
	// MaxSeconds and PrecisionMaxSeconds are --max-seconds and
	// --precision-max-seconds, s: Settings.MaxDuration and
	// PrecisionMaxDuration.
	MaxSeconds, PrecisionMaxSeconds float64
	Precision                       string   // --precision ("": the default, nil)
	PrefixCache                     string   // --prefix-cache ("": cold)
	Formats                         []string // --format
	// Data and SequenceDistribution are --data (workload.ParseData's
	// prompt_tokens=256,output_tokens=64; with --dataset, output_tokens
	// alone) and --sequence-distribution (workload.
	// ParseSequenceDistribution's "64|10,32|8:70;256|40,128|20:30"); "":
	// not set.
	Data, SequenceDistribution string
	// Headers, Labels and ExtraBody are --header NAME=VALUE and --label
	// KEY=VALUE, each repeatable, and --extra-body's JSON object.
	Headers, Labels []string
	ExtraBody       string
	// The text of --think-time, --trace-window, --shared-prefix,
	// --energy-filter, --price, --reference (or @FILE, read here) and
	// --shard, in their packages' grammars; "": not set.
	ThinkTime, TraceWindow, SharedPrefix, EnergyFilter, Price, Reference, Shard string
	// WarmupPhase and Stabilize are --warmup-phase (harness's
	// PROFILE:LEVEL:DURATION) and --stabilize (energy's
	// WINDOW,BAND[,TIMEOUT]); "": none.
	WarmupPhase, Stabilize string
	// Turns is --turns: N, uniform:MIN:MAX (workload.ParseTurnCount) or
	// dataset (the zero workload.TurnCount); "": no sessions.
	Turns string
	// Repeat is --repeat: the library reads 0 as once, but a user who
	// types --repeat 0 is told that a level runs at least once.
	Repeat int
}

// NewSettingsText returns the text of s's typed settings, as the flags
// show them for their defaults (benchmark.DefaultSettings): "10%", not a
// Go value.
func NewSettingsText(s benchmark.Settings) SettingsText {
	t := SettingsText{Warmup: s.Warmup.String(), Cooldown: s.Cooldown.String(), Repeat: max(s.Repeat, 1),
		MaxSeconds: s.MaxDuration.Seconds(), PrecisionMaxSeconds: s.PrecisionMaxDuration.Seconds()}
	for _, r := range s.Rates {
		t.Rates = append(t.Rates, strconv.FormatFloat(r, 'g', -1, 64))
	}
	if !s.SLO.IsZero() {
		t.SLO = s.SLO.String()
	}
	if s.Ramp != nil {
		t.Ramp = s.Ramp.String()
	}
	if p := s.Precision; p != nil {
		t.Precision = cmp.Or(p.String(), slo.PrecisionQuick)
	}
	if s.PrefixCache != (benchmark.PrefixCache{}) {
		t.PrefixCache = s.PrefixCache.String()
	}
	for _, f := range s.Formats {
		t.Formats = append(t.Formats, string(f))
	}
	if s.Data != nil {
		t.Data = strings.TrimPrefix(s.Data.String(), "prompt_tokens=0,")
	}
	if s.SequenceDistribution != nil {
		t.SequenceDistribution = s.SequenceDistribution.String()
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		for _, v := range s.Headers[k] {
			t.Headers = append(t.Headers, k+"="+v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		t.Labels = append(t.Labels, k+"="+s.Labels[k])
	}
	t.ExtraBody = string(s.ExtraBody)
	if s.ThinkTime != (workload.ThinkTime{}) {
		t.ThinkTime = s.ThinkTime.String()
	}
	if !s.TraceWindow.IsZero() {
		t.TraceWindow = s.TraceWindow.String()
	}
	if s.SharedPrefix != nil {
		t.SharedPrefix = s.SharedPrefix.String()
	}
	if len(s.EnergyFilter) > 0 {
		t.EnergyFilter = s.EnergyFilter.String()
	}
	if s.Price != nil {
		t.Price = s.Price.String()
	}
	if s.Reference != nil {
		t.Reference = "wh_per_token=" + strconv.FormatFloat(s.Reference.WhPerToken, 'g', -1, 64) + ",source=" + s.Reference.Source
	}
	if !s.Shard.IsZero() {
		t.Shard = s.Shard.String()
	}
	t.WarmupPhase = s.WarmupPhase.String()
	if s.Turns != nil {
		t.Turns = s.Turns.String()
	}
	if s.Stabilize != nil {
		t.Stabilize = energy.StabilizationText(*s.Stabilize)
	}
	return t
}

// Apply parses t into s's Rates, SLO, Warmup, Cooldown, Ramp, MaxDuration,
// PrecisionMaxDuration, Precision, PrefixCache, Formats, Data,
// SequenceDistribution, Headers, Labels, ExtraBody, ThinkTime, TraceWindow,
// SharedPrefix, EnergyFilter, Price, Reference, Shard, WarmupPhase,
// Stabilize, Turns and Repeat
// (a Repeat below 1 is refused). It reports
// every bad value at once (errors.Join), each starting with its flag, as
// benchmark.New does for the others; the values that parse are set even
// when others do not, so that checking s afterwards does not also
// complain that they are missing.
func (t SettingsText) Apply(s *benchmark.Settings) error {
	var errs []error
	obj, err := slo.Parse(t.SLO)
	if err != nil {
		errs = append(errs, fmt.Errorf("--slo: %w", err))
	}
	s.SLO = obj
	s.Rates = s.Rates[:0:0]
	for _, r := range t.Rates {
		v, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("--rate %q: want positive numbers, e.g. --rate 1,2,4", r))
			continue
		}
		s.Rates = append(s.Rates, v)
	}
	for _, trim := range []struct {
		flag, text string
		to         *loadgen.Trim
	}{{"warmup", t.Warmup, &s.Warmup}, {"cooldown", t.Cooldown, &s.Cooldown}} {
		v, err := loadgen.ParseTrim(trim.text)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s %w", trim.flag, err))
		}
		*trim.to = v
	}
	s.MaxDuration, s.PrecisionMaxDuration = 0, 0
	if v := t.MaxSeconds; !(v >= 0) || math.IsInf(v, 0) {
		errs = append(errs, fmt.Errorf("--max-seconds %v: want a level length in seconds, e.g. 30 (0: 30 unless --max-requests is given)", v))
	} else if v > maxLevelSeconds {
		errs = append(errs, fmt.Errorf("--max-seconds %v: longer than the longest level gollm-bench can time, %.0f s (about 292 years); want a level length in seconds, e.g. 30", v, maxLevelSeconds))
	} else {
		s.MaxDuration = time.Duration(v * float64(time.Second))
	}
	if v := t.PrecisionMaxSeconds; !(v >= 0) || math.IsInf(v, 0) {
		errs = append(errs, fmt.Errorf("--precision-max-seconds %v: want a positive number of seconds, e.g. 120", v))
	} else if v > maxLevelSeconds {
		errs = append(errs, fmt.Errorf("--precision-max-seconds %v: longer than the longest level gollm-bench can time, %.0f s (about 292 years); want a number of seconds, e.g. 120", v, maxLevelSeconds))
	} else {
		s.PrecisionMaxDuration = time.Duration(v * float64(time.Second))
	}
	s.Precision = nil
	if text := t.Precision; strings.TrimSpace(text) != "" {
		p, err := slo.ParsePrecision(text)
		switch {
		case err == nil:
			s.Precision = &p
		case !strings.ContainsAny(text, ":_%="):
			// A model precision (fp8, bf16) given the old way.
			errs = append(errs, fmt.Errorf("--precision %q: --precision sets how long each level runs: decide, quick, or interval targets such as ttft_p99:5%%; for the model's numeric precision (metadata) use --model-precision %s", text, text))
		default:
			errs = append(errs, fmt.Errorf("--precision: %w", err))
		}
	}
	pc, err := benchmark.ParsePrefixCache(t.PrefixCache)
	if err != nil {
		errs = append(errs, fmt.Errorf("--prefix-cache %w", err))
	}
	s.PrefixCache = pc
	errs = append(errs, t.applyLengths(s)...)
	errs = append(errs, t.applyRequests(s)...)
	errs = append(errs, t.applyTelemetry(s)...)
	s.Formats = s.Formats[:0:0]
	for _, f := range t.Formats {
		s.Formats = append(s.Formats, benchmark.Format(f))
	}
	s.Repeat = max(t.Repeat, 1)
	if t.Repeat < 1 {
		errs = append(errs, fmt.Errorf("--repeat %d: a level runs at least once; give 1 (the default) or more, e.g. --repeat 3", t.Repeat))
	}
	s.Ramp = nil
	if strings.TrimSpace(t.Ramp) != "" {
		r, err := loadgen.ParseRamp(t.Ramp)
		if err != nil {
			// The ramp's words (the start rate, the end rate) are the
			// user's; the Go fields after them are not.
			errs = append(errs, fmt.Errorf("--%w", fieldname.Replace(err,
				fieldname.Name{Field: " (Ramp.From)"}, fieldname.Name{Field: " (Ramp.To)"},
				fieldname.Name{Field: " (Ramp.Over)"}, fieldname.Name{Field: " (Ramp.Shape)"})))
		} else {
			s.Ramp = &r
		}
	}
	return errors.Join(errs...)
}

// applyLengths parses --data and --sequence-distribution into s. With
// --dataset, a --data without prompt_tokens is read for its output length:
// Data.PromptTokens is then 0.
func (t SettingsText) applyLengths(s *benchmark.Settings) []error {
	var errs []error
	s.Data, s.SequenceDistribution = nil, nil
	if text := t.Data; strings.TrimSpace(text) != "" {
		placeholder := s.Dataset != "" && !strings.Contains(text, "prompt_tokens=")
		if placeholder {
			text = "prompt_tokens=1," + text
		}
		d, err := workload.ParseData(text)
		switch {
		case err != nil:
			errs = append(errs, fieldname.Apply(err, fieldname.Name{Caller: "--data"}))
		case placeholder:
			d.PromptTokens = 0
			fallthrough
		default:
			s.Data = &d
		}
	}
	if text := t.SequenceDistribution; strings.TrimSpace(text) != "" {
		sd, err := workload.ParseSequenceDistribution(text)
		if err != nil {
			errs = append(errs, fieldname.Apply(err, fieldname.Name{Caller: "--sequence-distribution"}))
		} else {
			s.SequenceDistribution = &sd
		}
	}
	return errs
}

// applyRequests parses --header and --label into s, and sets --extra-body's
// JSON text as it is (benchmark.New checks that it is an object).
func (t SettingsText) applyRequests(s *benchmark.Settings) []error {
	var errs []error
	headers, err := parsePairs("header", t.Headers)
	errs = append(errs, err)
	s.Headers = nil
	for k, v := range headers {
		if s.Headers == nil {
			s.Headers = http.Header{}
		}
		s.Headers[k] = []string{v} // as typed: the client canonicalizes
	}
	s.Labels, err = parsePairs("label", t.Labels)
	errs = append(errs, err)
	s.ExtraBody = nil
	if t.ExtraBody != "" {
		s.ExtraBody = json.RawMessage(t.ExtraBody) // checked by benchmark.New
	}
	return errs
}

// applyTelemetry parses --think-time, --trace-window, --shared-prefix,
// --energy-filter, --price, --reference, --warmup-phase, --stabilize,
// --turns and --shard into s. An empty text
// leaves the setting unset.
func (t SettingsText) applyTelemetry(s *benchmark.Settings) []error {
	var errs []error
	set := func(text string, parse func(string) error) {
		if strings.TrimSpace(text) != "" {
			if err := parse(text); err != nil {
				errs = append(errs, err)
			}
		}
	}
	s.ThinkTime, s.TraceWindow, s.SharedPrefix, s.EnergyFilter, s.Price, s.Reference, s.Shard = workload.ThinkTime{}, workload.TraceWindow{}, nil, nil, nil, nil, loadgen.Shard{}
	set(t.ThinkTime, func(text string) (err error) {
		if s.ThinkTime, err = workload.ParseThinkTime(text); err != nil {
			return fmt.Errorf("--think-time %w", err)
		}
		return nil
	})
	set(t.TraceWindow, func(text string) (err error) {
		if s.TraceWindow, err = workload.ParseTraceWindow(text); err != nil {
			return fmt.Errorf("--trace-window: %w", err)
		}
		return nil
	})
	set(t.SharedPrefix, func(text string) error {
		sp, err := workload.ParseSharedPrefix(text)
		if err != nil {
			return fmt.Errorf("--shared-prefix: %w", fieldname.Replace(err, sharedPrefixFields...))
		}
		s.SharedPrefix = &sp
		return nil
	})
	set(t.EnergyFilter, func(text string) (err error) {
		if s.EnergyFilter, err = energy.ParseFilter(text); err != nil {
			return fieldname.Apply(err, fieldname.Name{Caller: "--energy-filter"})
		}
		return nil
	})
	set(t.Price, func(text string) error {
		p, err := cost.ParsePrices(text)
		if err != nil {
			return fieldname.Apply(err, fieldname.Name{Caller: "--price"})
		}
		s.Price = &p
		return nil
	})
	set(t.Reference, func(text string) error {
		if path, ok := strings.CutPrefix(text, "@"); ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("--reference @%s: %w", path, err)
			}
			text = string(data)
		}
		r, err := scorecard.ParseReference(text)
		if err != nil {
			return fieldname.Apply(err, fieldname.Name{Caller: "--reference"})
		}
		s.Reference = &r
		return nil
	})
	s.WarmupPhase, s.Stabilize, s.Turns = harness.WarmupPhase{}, nil, nil
	set(t.Turns, func(text string) error {
		var c workload.TurnCount // dataset: every user turn
		if !strings.EqualFold(strings.TrimSpace(text), "dataset") {
			var err error
			if c, err = workload.ParseTurnCount(text); err != nil {
				return fmt.Errorf("--turns %w", err)
			}
		}
		s.Turns = &c
		return nil
	})
	set(t.WarmupPhase, func(text string) (err error) {
		if s.WarmupPhase, err = harness.ParseWarmupPhase(text); err != nil {
			return fmt.Errorf("--warmup-phase %w", err)
		}
		return nil
	})
	set(t.Stabilize, func(text string) error {
		st, err := energy.ParseStabilization(text)
		if err != nil {
			return fmt.Errorf("--stabilize %w", err)
		}
		s.Stabilize = &st
		return nil
	})
	set(t.Shard, func(text string) (err error) {
		if s.Shard, err = loadgen.ParseShard(text); err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		return nil
	})
	return errs
}

// sharedPrefixFields drop the field names that workload.SharedPrefixSpec
// puts after the words of its spec ("groups (SharedPrefixSpec.Groups)"):
// the error quotes the flag's value, whose words (groups=) are the user's.
var sharedPrefixFields = []fieldname.Name{
	{Field: " (SharedPrefixSpec.Groups)", Caller: "="},
	{Field: " (SharedPrefixSpec.Prompts)", Caller: "="},
	{Field: " (SharedPrefixSpec.PrefixTokens)", Caller: "="},
	{Field: " (SharedPrefixSpec.QuestionTokens)", Caller: "="},
	{Field: " (SharedPrefixSpec.OutputTokens)", Caller: "="},
}

// parsePairs parses the repeatable K=V values of --header or --label
// (nil for none); a later value of a key replaces an earlier one. A bad
// --header is not quoted, since it may hold a secret ("Authorization:
// Bearer ...").
func parsePairs(flag string, kvs []string) (map[string]string, error) {
	var out map[string]string
	var errs []error
	for i, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			switch {
			case flag != "header":
				errs = append(errs, fmt.Errorf("--%s %q: want KEY=VALUE", flag, kv))
			case strings.Contains(kv, ":"):
				name, _, _ := strings.Cut(kv, ":")
				errs = append(errs, fmt.Errorf("--header %q (value not shown): want NAME=VALUE, with '=' where curl has ':', e.g. --header '%s=...'", strings.TrimSpace(name)+": ...", strings.TrimSpace(name)))
			default:
				errs = append(errs, fmt.Errorf("--header number %d (not shown, it may be a secret): want NAME=VALUE, e.g. --header 'X-Tenant=a'", i+1))
			}
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, errors.Join(errs...)
}

// maxLevelSeconds is the longest --max-seconds, s: the longest
// time.Duration, about 292 years. A longer one would overflow to a
// negative duration.
const maxLevelSeconds = float64(math.MaxInt64 / int64(time.Second))

// Settings returns s with t parsed in (Apply), and Apply's error.
func (t SettingsText) Settings(s benchmark.Settings) (benchmark.Settings, error) {
	err := t.Apply(&s)
	return s, err
}

// Check checks s with t parsed in: Apply's errors, then benchmark.Check's
// of the result, joined; for Options.Check, and for the report of a
// command line whose text does not parse.
func (t SettingsText) Check(s benchmark.Settings) error {
	s, err := t.Settings(s)
	return errors.Join(err, benchmark.Check(s, benchmark.Options{FlagNames: true}))
}
