package benchmark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Bad settings are all reported at once, as an *InputError naming each
// setting, and New starts nothing: no results folder is created. Seen
// (issue 26): a library caller read the flags (--rate, --knee-tolerance),
// not the fields it set; it reads its Settings fields, and a CLI
// (Options.FlagNames) its flags.
func TestNewRefusesBadSettings(t *testing.T) {
	dir := t.TempDir()
	s := DefaultSettings(CommandSweep)
	s.OutputDir = dir
	s.Rates = []float64{-1}
	s.KneeTolerance = 2
	s.Repeat = -1
	for _, tc := range []struct {
		opt   Options
		names []string
	}{
		{Options{}, []string{"Settings.Rates", "Settings.KneeTolerance 2:", "Settings.Repeat -1:"}},
		{Options{FlagNames: true}, []string{"--rate", "--knee-tolerance 2:", "--repeat -1:"}},
	} {
		_, err := New(context.Background(), s, tc.opt)
		if _, ok := err.(*InputError); !ok {
			t.Fatalf("err = %v, want an *InputError", err)
		}
		for _, want := range tc.names {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("FlagNames %v: error lacks %s:\n%v", tc.opt.FlagNames, want, err)
			}
		}
		if tc.opt.FlagNames == strings.Contains(err.Error(), "Settings.") || tc.opt.FlagNames != strings.Contains(err.Error(), "--") {
			t.Errorf("FlagNames %v: the error mixes the names:\n%v", tc.opt.FlagNames, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("New created %d entries in the output folder", len(entries))
	}
}

// Seen (issue 26): Settings.Repeat's comment says 0 or 1 means once,
// but New refused 0, the zero value an embedder leaves. Zero runs each
// level once; a negative count is still refused.
func TestRepeatZeroRunsOnce(t *testing.T) {
	t.Parallel()
	s := DefaultSettings(CommandRun)
	s.MockPreset, s.Energy, s.OutputDir = "instant", "none", ""
	s.Rates, s.MaxRequests, s.MaxLag = []float64{2}, 8, time.Second
	s.Repeat = 0
	b, err := New(context.Background(), s, Options{})
	if err != nil {
		t.Fatalf("Repeat 0: %v, want it to mean once", err)
	}
	out, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Run.Timelines); n != 1 || out.Run.Config.Repeat != 1 {
		t.Errorf("Repeat 0: %d timelines, run.json repeat %d; want one run, recorded as 1", n, out.Run.Config.Repeat)
	}
}

// Seen: for a synchronous level `run` reported the concurrency (1) as its
// offered load while `sweep` reported the measured req/s. Both now take it
// from sweep.OfferedLoad: a closed-loop probe's load is what the server
// sustained, an open-loop level's is its target rate.
func TestRunAndSweepAgreeOnOfferedLoad(t *testing.T) {
	t.Parallel()
	levels := func(cmd Command, profile string, rates ...float64) []float64 {
		s := DefaultSettings(cmd)
		s.MockPreset, s.Energy, s.Formats = "instant", "none", []Format{FormatJSON}
		s.OutputDir, s.Profile, s.Rates = t.TempDir(), Profile(profile), rates
		s.MaxRequests, s.Warmup, s.Cooldown = 8, loadgen.Trim{}, loadgen.Trim{}
		s.MaxLag = time.Second
		b, err := New(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var loads []float64
		for _, l := range out.Run.Result.Levels {
			if l.Profile.Mode == loadgen.ModeSynchronous && l.OfferedLoad != l.Summary.RequestsPerSecond {
				t.Errorf("%s: synchronous level's offered load %v, want its measured %v req/s", cmd, l.OfferedLoad, l.Summary.RequestsPerSecond)
			}
			loads = append(loads, l.OfferedLoad)
		}
		return loads
	}
	levels(CommandRun, "synchronous")
	run := levels(CommandRun, "constant", 20, 40)
	sweep := levels(CommandSweep, "constant", 20, 40)
	if !slices.Equal(run, sweep) || !slices.Equal(run, []float64{20, 40}) {
		t.Errorf("offered loads: run %v, sweep %v; want both [20 40]", run, sweep)
	}
}

// Command.Profiles, which --profile's help and completion list, is what
// New accepts: each listed profile passes its check, the others are
// refused naming --profile.
func TestProfilesAreWhatNewAccepts(t *testing.T) {
	t.Parallel()
	all := []string{"synchronous", "concurrent", "throughput", "constant", "poisson", "sweep"}
	for _, cmd := range []Command{CommandRun, CommandSweep} {
		for _, p := range all {
			s := DefaultSettings(cmd)
			s.OutputDir = t.TempDir()
			s.Profile = Profile(p)
			s.Rates = nil
			if p == "concurrent" || p == "constant" || p == "poisson" {
				s.Rates = []float64{1, 2}
			}
			s.Repeat = -1 // a bad setting, so that New stops at its checks
			_, err := New(context.Background(), s, Options{})
			refused := err != nil && strings.Contains(err.Error(), "Settings.Profile")
			if listed := slices.Contains(cmd.Profiles(), p); listed == refused {
				t.Errorf("%s --profile %s: listed %v, but New says: %v", cmd, p, listed, err)
			}
		}
	}
}

// Seen: `sweep --slo ...` without --precision ended "knee: undecided",
// exit 5, by design: the README's first command had to add --precision
// decide. A sweep given an SLO now decides by default; --precision quick
// keeps the undecided grid, and a run or a sweep without an SLO is quick.
func TestSweepWithSLODecidesByDefault(t *testing.T) {
	for _, tt := range []struct {
		command   Command
		slo, prec string
		decide    bool
	}{
		{CommandSweep, "ttft_p99<=500ms", "", true},
		{CommandSweep, "ttft_p99<=500ms", "quick", false},
		{CommandSweep, "ttft_p99<=500ms", "decide", true},
		{CommandSweep, "", "", false},
		{CommandRun, "ttft_p99<=500ms", "", false},
	} {
		s := DefaultSettings(tt.command)
		obj, err := slo.Parse(tt.slo)
		if err != nil {
			t.Fatal(err)
		}
		s.SLO = obj
		if tt.prec != "" {
			p, err := slo.ParsePrecision(tt.prec)
			if err != nil {
				t.Fatal(err)
			}
			s.Precision = &p
		}
		if tt.command == CommandRun {
			s.Rates = []float64{4}
		}
		b := &Benchmark{s: s}
		if err := b.parse(); err != nil {
			t.Fatalf("%s --slo %q --precision %q: %v", tt.command, tt.slo, tt.prec, err)
		}
		if got := b.precision.Decide; got != tt.decide {
			t.Errorf("%s --slo %q --precision %q: decide %v, want %v", tt.command, tt.slo, tt.prec, got, tt.decide)
		}
	}
}

// Seen: Settings always wrote OUTPUT-DIR/RUN-ID/ (five files); an
// embedder who wanted only the figures had to implement results.FS. Now
// an empty OutputDir writes nothing, and the Outcome holds the run.
func TestNoOutputDirWritesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	s := DefaultSettings(CommandRun)
	s.MockPreset, s.Rates, s.MaxRequests, s.Energy = "instant", []float64{2}, 10, "none"
	s.MaxLag = 100 * time.Millisecond
	s.OutputDir = ""
	b, err := New(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Dir != "" || len(out.Run.Result.Levels) != 1 || out.Run.Result.Levels[0].Summary.Requests.OK == 0 {
		t.Errorf("outcome dir %q, levels %d: want no folder and the level in the Outcome", out.Dir, len(out.Run.Result.Levels))
	}
	left, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("%s was written; want nothing without an OutputDir", e.Name())
	}
}

// A run where no request succeeds names its errors where they are. Seen
// (issue 26, review): without an OutputDir the error still sent a library
// caller to requests.jsonl, which was never written; it now quotes the
// most frequent error itself.
func TestNoSuccessWithoutFolderQuotesTheError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
			return
		}
		http.Error(w, `{"error":{"message":"model m is overloaded"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		dir  string
		want string
	}{
		{"", "model m is overloaded"},
		{t.TempDir(), "requests.jsonl"},
	} {
		s := DefaultSettings(CommandRun)
		s.Target, s.Model, s.Rates, s.MaxRequests, s.Energy = srv.URL+"/v1", "m", []float64{1}, 3, "none"
		s.Tokenizer, s.OutputDir, s.Formats = TokenizerWords, tc.dir, []Format{FormatJSON}
		b, err := New(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "no request succeeded") {
			t.Fatalf("OutputDir %q: error %v, want no request succeeded", tc.dir, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OutputDir %q: error %q does not say %q", tc.dir, err, tc.want)
		}
		if tc.dir == "" && strings.Contains(err.Error(), "requests.jsonl") {
			t.Errorf("no folder, but the error points at requests.jsonl: %v", err)
		}
	}
}
