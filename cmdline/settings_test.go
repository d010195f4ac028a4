package cmdline_test

import (
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/cmdline"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/workload"
)

// The typed settings' text: every bad value at once, each naming its
// flag; the good ones set; the defaults shown as the flags spell them.
func TestSettingsTextApply(t *testing.T) {
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	text := cmdline.NewSettingsText(s)
	if text.Warmup != "10%" || text.Cooldown != "10%" || text.SLO != "" || len(text.Rates) != 0 {
		t.Errorf("defaults as text: %+v, want the flags' 10%% trims and nothing else", text)
	}
	text = cmdline.SettingsText{Rates: []string{"1", "y", "2.5", "-3"}, SLO: "ttft_p99<=fast", Warmup: "zz", Cooldown: "30s", Repeat: 0}
	err := text.Apply(&s)
	for _, want := range []string{`--rate "y"`, `--rate "-3"`, "--slo: ", `--warmup "zz"`, "--repeat 0: a level runs at least once"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply: %v, want an error containing %s", err, want)
		}
	}
	if !reflect.DeepEqual(s.Rates, []float64{1, 2.5}) || s.Cooldown != (loadgen.Trim{Duration: 30e9}) || s.Repeat != 1 {
		t.Errorf("rates %v, cooldown %v: want the values that parsed", s.Rates, s.Cooldown)
	}
}

// The enumerations' text: --precision's quick is a zero slo.Precision,
// not the default (nil); a dtype given to --precision points to
// --model-precision; --prefix-cache warm:N is WarmTokens N; --format's
// names are Formats.
func TestSettingsTextEnumerations(t *testing.T) {
	s := benchmark.DefaultSettings(benchmark.CommandSweep)
	text := cmdline.NewSettingsText(s)
	text.Precision, text.PrefixCache, text.Formats = "quick", "warm:64", []string{"json", "html"}
	if err := text.Apply(&s); err != nil {
		t.Fatal(err)
	}
	if s.Precision == nil || !s.Precision.IsZero() || s.PrefixCache.WarmTokens != 64 || !reflect.DeepEqual(s.Formats, []benchmark.Format{benchmark.FormatJSON, benchmark.FormatHTML}) {
		t.Errorf("precision %v, prefix cache %v, formats %v", s.Precision, s.PrefixCache, s.Formats)
	}
	if back := cmdline.NewSettingsText(s); back.Precision != "quick" || back.PrefixCache != "warm:64" {
		t.Errorf("read back as %q, %q", back.Precision, back.PrefixCache)
	}
	text.Precision, text.PrefixCache = "fp8", "warm:x"
	err := text.Apply(&s)
	for _, want := range []string{`--precision "fp8": --precision sets how long each level runs`, "--model-precision fp8", `--prefix-cache "warm:x": warm needs the shared prefix length`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply: %v, want %s", err, want)
		}
	}
}

// --data and --sequence-distribution are workload's types; with
// --dataset, --data output_tokens=N alone is the entries' output length.
func TestSettingsTextLengths(t *testing.T) {
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	text := cmdline.NewSettingsText(s)
	text.Data, text.SequenceDistribution = "prompt_tokens=512,output_tokens=128", "64|10,32|8:70;256|40,128|20:30"
	if err := text.Apply(&s); err != nil {
		t.Fatal(err)
	}
	if *s.Data != (workload.Data{PromptTokens: 512, OutputTokens: 128}) || len(s.SequenceDistribution.Entries) != 2 || s.SequenceDistribution.Entries[1].Weight != 30 {
		t.Errorf("data %+v, sequence distribution %+v", s.Data, s.SequenceDistribution)
	}
	s.Dataset, text.Data, text.SequenceDistribution = "prompts.jsonl", "output_tokens=256", ""
	if err := text.Apply(&s); err != nil || *s.Data != (workload.Data{OutputTokens: 256}) || s.SequenceDistribution != nil {
		t.Errorf("with --dataset: data %+v, %v", s.Data, err)
	}
	if back := cmdline.NewSettingsText(s); back.Data != "output_tokens=256" {
		t.Errorf("read back as %q", back.Data)
	}
	text.Data, text.SequenceDistribution = "prompt_tokens=x", "1,1:50"
	err := text.Apply(&s)
	for _, want := range []string{"--data: token lengths:", "--sequence-distribution: sequence distribution: the weights sum to 50"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply: %v, want %s", err, want)
		}
	}
}

// --header and --label: pairs as typed (a later value of a name
// replacing an earlier one), a bad --header never quoted; --extra-body's
// text is the raw JSON.
func TestSettingsTextRequests(t *testing.T) {
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	text := cmdline.NewSettingsText(s)
	text.Headers = []string{"X-Tenant=a", "Authorization=Bearer s", "X-Tenant=b"}
	text.Labels = []string{"team=x", "zone=eu=1"}
	text.ExtraBody = `{"top_p":0.9,"seed":12345678901234567890}`
	if err := text.Apply(&s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Headers, http.Header{"X-Tenant": {"b"}, "Authorization": {"Bearer s"}}) || !reflect.DeepEqual(s.Labels, map[string]string{"team": "x", "zone": "eu=1"}) {
		t.Errorf("headers %v, labels %v", s.Headers, s.Labels)
	}
	if back := cmdline.NewSettingsText(s); back.ExtraBody != text.ExtraBody {
		t.Errorf("extra body read back as %s", back.ExtraBody)
	}
	text.Headers, text.Labels, text.ExtraBody = []string{"Authorization: Bearer SECRET", "NOSEPARATORSECRET"}, []string{"nokey"}, `{"a":1} {}`
	err := text.Check(s)
	for _, want := range []string{`--header "Authorization: ..." (value not shown)`, "--header number 2 (not shown", `--label "nokey": want KEY=VALUE`, "--extra-body: want a JSON object"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply: %v, want %s", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a bad header is quoted: %v", err)
	}
}

// The telemetry, cost and session settings' text: each parsed by its
// package, each bad one one error naming its flag (seen in benchmark's
// TestBadInputOneError when the library parsed --price: "input= is
// required" followed "input=abc"), a --reference @FILE read here.
func TestSettingsTextTelemetry(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref.txt")
	if err := os.WriteFile(ref, []byte("wh_per_token=0.00044\nsource=MLPerf, 8xH100"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := benchmark.DefaultSettings(benchmark.CommandRun)
	text := cmdline.NewSettingsText(s)
	text.ThinkTime, text.TraceWindow, text.SharedPrefix = "uniform:1s:3s", "10m,20m", "groups=2,prompts=4,prefix=64,question=16,output=8"
	text.EnergyFilter, text.Price, text.Reference, text.Shard = "Hostname=n1", "input=0.5,output=1.5", "@"+ref, "1/4"
	text.WarmupPhase, text.Stabilize, text.Turns = "concurrent:4:60s", "30s,3W", "uniform:2:6"
	if err := text.Apply(&s); err != nil {
		t.Fatal(err)
	}
	if *s.Turns != (workload.TurnCount{Min: 2, Max: 6}) {
		t.Errorf("turns %+v", s.Turns)
	}
	var ds benchmark.Settings
	if dataset := (cmdline.SettingsText{Turns: "dataset", Repeat: 1, Warmup: "0", Cooldown: "0"}); dataset.Apply(&ds) != nil || ds.Turns == nil || !ds.Turns.IsZero() {
		t.Errorf("--turns dataset: %+v, want the zero TurnCount", ds.Turns)
	}
	if s.WarmupPhase.Duration != time.Minute || s.WarmupPhase.Profile.Concurrency != 4 || s.Stabilize == nil || s.Stabilize.BandW != 3 {
		t.Errorf("warm-up phase %+v, gate %+v", s.WarmupPhase, s.Stabilize)
	}
	if back := cmdline.NewSettingsText(s); back.WarmupPhase != "concurrent:4:60s" || back.Stabilize != "30s,3W" {
		t.Errorf("read back as %q, %q", back.WarmupPhase, back.Stabilize)
	}
	if s.ThinkTime.Max != 3*time.Second || s.TraceWindow.End != 20*time.Minute || s.SharedPrefix.Groups != 2 || s.EnergyFilter["Hostname"] != "n1" ||
		s.Price.Output != 1.5 || s.Reference.Source != "MLPerf, 8xH100" || s.Shard != (loadgen.Shard{Index: 1, Count: 4}) {
		t.Errorf("%+v %+v %+v %v %+v %+v %+v", s.ThinkTime, s.TraceWindow, s.SharedPrefix, s.EnergyFilter, s.Price, s.Reference, s.Shard)
	}
	var again benchmark.Settings
	if err := cmdline.NewSettingsText(s).Apply(&again); err != nil || !reflect.DeepEqual(again.Price, s.Price) || !reflect.DeepEqual(again.Reference, s.Reference) || again.Shard != s.Shard || again.ThinkTime != s.ThinkTime || again.TraceWindow != s.TraceWindow {
		t.Errorf("read back: %v", err)
	}
	for flag, bad := range map[string]cmdline.SettingsText{
		"--price":         {Price: "input=abc,output=1"},
		"--shared-prefix": {SharedPrefix: "groups=0,prompts=4,prefix=64,question=16,output=8"},
		"--shard":         {Shard: "4/4"},
		"--think-time":    {ThinkTime: "soon"},
		"--trace-window":  {TraceWindow: "20m,10m"},
		"--energy-filter": {EnergyFilter: "nokey"},
		"--reference":     {Reference: "wh_per_token=1"},
		"--warmup-phase":  {WarmupPhase: "concurrent:4"},
		"--stabilize":     {Stabilize: "30s,3W,10s"},
		"--turns":         {Turns: "uniform:5:2"},
	} {
		bad.Repeat, bad.Warmup, bad.Cooldown = 1, "0", "0"
		err := bad.Apply(&s)
		if err == nil || len(strings.Split(err.Error(), "\n")) != 1 || !strings.HasPrefix(err.Error(), flag) || strings.Contains(err.Error(), "SharedPrefixSpec.") {
			t.Errorf("%s: want one error naming it, no Go field: %v", flag, err)
		}
	}
}

// --max-seconds and --precision-max-seconds stay seconds on the command
// line and become time.Durations; a length no Duration holds is refused
// rather than overflowing to a negative one.
func TestSettingsTextSeconds(t *testing.T) {
	s := benchmark.DefaultSettings(benchmark.CommandSweep)
	if err := (cmdline.SettingsText{MaxSeconds: 1.5, PrecisionMaxSeconds: 90, Repeat: 1, Warmup: "0", Cooldown: "0"}).Apply(&s); err != nil {
		t.Fatal(err)
	}
	if s.MaxDuration != 1500*time.Millisecond || s.PrecisionMaxDuration != 90*time.Second {
		t.Errorf("MaxDuration %v, PrecisionMaxDuration %v; want 1.5s and 1m30s", s.MaxDuration, s.PrecisionMaxDuration)
	}
	if text := cmdline.NewSettingsText(s); text.MaxSeconds != 1.5 || text.PrecisionMaxSeconds != 90 {
		t.Errorf("text %+v, want the seconds back", text)
	}
	err := (cmdline.SettingsText{MaxSeconds: 1e300, PrecisionMaxSeconds: -1, Repeat: 1, Warmup: "0", Cooldown: "0"}).Apply(&s)
	for _, want := range []string{"--max-seconds 1e+300: longer than the longest level", "--precision-max-seconds -1: want a positive number of seconds"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply: %v, want %s", err, want)
		}
	}
	if s.MaxDuration != 0 || s.PrecisionMaxDuration != 0 {
		t.Errorf("refused lengths set %v, %v", s.MaxDuration, s.PrecisionMaxDuration)
	}
}

// FuzzSettingsTextApply: Apply never panics, and what it accepts reads
// back the same through NewSettingsText.
func FuzzSettingsTextApply(f *testing.F) {
	f.Add("1,2.5", "ttft_p99<=500ms,itl_p95<=50ms", "10%", "30s", "linear:1->50:60s", "ttft_p99:5%,itl_p95:3%", "warm:256")
	f.Add("x", "bad", "zz", "-1", "sine:1", "fp8", "warm:0")
	f.Add("1e308", "error_rate<=0.5%", "100", "0", "exponential:2->64:2m", "quick", "cold")
	f.Add("2", "", "0", "0", "", "decide", "")
	f.Fuzz(func(t *testing.T, rates, obj, warmup, cooldown, ramp, precision, prefixCache string) {
		text := cmdline.SettingsText{Rates: strings.Split(rates, ","), SLO: obj, Warmup: warmup, Cooldown: cooldown, Ramp: ramp, Repeat: 1,
			Precision: precision, PrefixCache: prefixCache}
		var s benchmark.Settings
		if err := text.Apply(&s); err != nil {
			return
		}
		var again benchmark.Settings
		if err := cmdline.NewSettingsText(s).Apply(&again); err != nil {
			t.Fatalf("%+v parsed, but its own text does not: %v", text, err)
		}
		if !reflect.DeepEqual(again.Rates, s.Rates) || again.Warmup != s.Warmup || again.Cooldown != s.Cooldown || again.SLO.String() != s.SLO.String() || !reflect.DeepEqual(again.Ramp, s.Ramp) ||
			!reflect.DeepEqual(again.Precision, s.Precision) || again.PrefixCache != s.PrefixCache {
			t.Errorf("%+v read back as %+v", s, again)
		}
	})
}

// Seen (benchmark's TestBadInputNamesFlagsNotFields and TestBadInputOneError,
// when the library still parsed --ramp): a bad ramp was refused in the
// library's words "(Ramp.To)", or followed by errors about the rate it
// would have set. Through the command line's path, each bad --ramp gives
// one error naming --ramp and no Go field.
func TestBadRampOneErrorNoField(t *testing.T) {
	goIdent := regexp.MustCompile(`\b[A-Z][A-Za-z]*\.[A-Z][A-Za-z]*\b`)
	for _, ramp := range []string{"linear:20->2:6s", "linear:2->2:6s", "exponential:0->2:6s", "sine:1->2:6s", "linear:1->2:0s", "linear:20"} {
		s := benchmark.DefaultSettings(benchmark.CommandRun)
		s.Given = map[string]bool{"ramp": true}
		err := cmdline.SettingsText{Ramp: ramp, Warmup: "10%", Cooldown: "10%", Repeat: 1}.Check(s)
		if err == nil {
			t.Errorf("--ramp %s: no error", ramp)
			continue
		}
		msg := err.Error()
		if lines := strings.Split(msg, "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "--ramp") {
			t.Errorf("--ramp %s: want one error, about --ramp:\n%s", ramp, msg)
		}
		if id := goIdent.FindString(msg); id != "" {
			t.Errorf("--ramp %s: the error names the Go identifier %s:\n%s", ramp, id, msg)
		}
	}
}
