package cmdline

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/peer"
)

// Alias is a peer tool's spelling of a flag: what it does here. Aliases
// are hidden flags (they are not in --help, nor in run.json's settings,
// nor accepted in a configuration file); docs/peer-flags.md lists them.
type Alias struct {
	// Spelling is the flag as the peer tool writes it, e.g. "--url" or "-u".
	Spelling string
	// Tools names the peer tools that spell it so.
	Tools string
	// Ours is what it does here in gollm-bench's flags, e.g. "--target";
	// "" when the spelling is refused because its meaning differs.
	Ours string
	// Note says what differs, or, for a refused spelling, the translation
	// the refusal gives.
	Note string

	kind   aliasKind
	flag   string                       // our flag (rename), or --data's key (length)
	conv   func(string) (string, error) // checks and converts a rename's value
	short  string                       // the shorthand letter, for "-u"-style spellings
	noOpt  string                       // the value of a flag given without one (--streaming)
	refuse string                       // the refusal of a refused spelling
}

type aliasKind int

const (
	kindRename      aliasKind = iota // sets flag to conv(value)
	kindLength                       // sets flag (a --data key) inside --data
	kindConcurrency                  // AIPerf's --concurrency
	kindRequestRate                  // AIPerf's and vLLM's --request-rate
	kindGoodput                      // --goodput, through peer.GoodputSLO
	kindStreaming                    // AIPerf's --streaming
	kindRefused                      // a spelling whose meaning differs
)

// Aliases returns the peer spellings gollm-bench accepts or answers with a
// translation, in the order of docs/peer-flags.md.
func Aliases() []Alias {
	rename := func(sp, tools, ours, note string, conv func(string) (string, error)) Alias {
		return Alias{Spelling: sp, Tools: tools, Ours: ours, Note: note, kind: kindRename, flag: strings.TrimPrefix(ours, "--"), conv: conv}
	}
	length := func(sp, tools, key string) Alias {
		return Alias{Spelling: sp, Tools: tools, Ours: "--data " + key + "=N", kind: kindLength, flag: key,
			Note: "sets " + key + " inside --data (the other lengths keep theirs, or the default's)"}
	}
	refused := func(sp, tools, why string) Alias {
		return Alias{Spelling: sp, Tools: tools, kind: kindRefused, refuse: why, Note: why}
	}
	outDir := "the run's files go to DIR/RUN-ID/ (run.json, scorecard.json, levels.csv, requests.jsonl, report.html)"
	return []Alias{
		withShort(rename("--url", "AIPerf, GenAI-Perf", "--target", "a URL without a scheme (AIPerf's default localhost:8000) gets http://; one URL (no load balancing over several)", withScheme), "u"),
		rename("-u", "AIPerf, GenAI-Perf", "--target", "as --url", withScheme),
		rename("--base-url", "vLLM", "--target", "", nil),
		withShort(rename("--model-names", "AIPerf", "--model", "one model", nil), "m"),
		rename("-m", "AIPerf, GenAI-Perf", "--model", "one model", nil),
		rename("--rate-type", "GuideLLM 0.2-0.3", "--profile", "the same values: synchronous, concurrent, throughput, constant, poisson, sweep", nil),
		{Spelling: "--concurrency", Tools: "AIPerf, GenAI-Perf", Ours: "--profile concurrent --rate N", kind: kindConcurrency,
			Note: "closed loop with N in flight; with --request-rate it caps requests in flight: --max-concurrency N"},
		{Spelling: "--request-rate", Tools: "AIPerf, GenAI-Perf, vLLM", Ours: "--profile poisson --rate R", kind: kindRequestRate,
			Note: "their default arrivals are Poisson; --profile constant keeps --request-rate's R with evenly spaced arrivals"},
		rename("--request-count", "AIPerf, GenAI-Perf", "--max-requests", "requests per level (they run one level)", positiveInt),
		rename("--num-requests", "AIPerf", "--max-requests", "as --request-count", positiveInt),
		refused("--num-prompts", "vLLM, AIPerf, GenAI-Perf",
			"in vLLM the requests sent (here --max-requests N); in AIPerf and GenAI-Perf the unique prompts generated (here every prompt is unique; a shared prefix is --shared-prefix or --prefix-cache warm:N)"),
		length("--isl", "AIPerf", "prompt_tokens"),
		length("--synthetic-input-tokens-mean", "AIPerf, GenAI-Perf", "prompt_tokens"),
		length("--prompt-input-tokens-mean", "AIPerf", "prompt_tokens"),
		length("--input-tokens", "(common)", "prompt_tokens"),
		length("--random-input-len", "vLLM", "prompt_tokens"),
		length("--isl-stddev", "AIPerf", "prompt_tokens_stdev"),
		length("--synthetic-input-tokens-stddev", "AIPerf, GenAI-Perf", "prompt_tokens_stdev"),
		length("--osl", "AIPerf", "output_tokens"),
		length("--output-tokens-mean", "AIPerf, GenAI-Perf", "output_tokens"),
		length("--prompt-output-tokens-mean", "AIPerf", "output_tokens"),
		length("--output-tokens", "(common)", "output_tokens"),
		length("--random-output-len", "vLLM", "output_tokens"),
		length("--osl-stddev", "AIPerf", "output_tokens_stdev"),
		length("--output-tokens-stddev", "AIPerf, GenAI-Perf", "output_tokens_stdev"),
		{Spelling: "--streaming", Tools: "AIPerf, GenAI-Perf", Ours: "(the default)", kind: kindStreaming, noOpt: "true",
			Note: "gollm-bench streams unless --no-stream; --streaming=false is --no-stream"},
		{Spelling: "--goodput", Tools: "AIPerf, GenAI-Perf, vLLM", Ours: "--slo", kind: kindGoodput,
			Note: `"ttft:500 tpot:50" becomes --slo "ttft_p99<=500ms,itl_p99<=50ms": goodput counts the same requests, and each threshold is also judged at p99`},
		rename("--output-path", "GuideLLM", "--output-dir", "a folder; GuideLLM's output file name (benchmarks.json) is refused: "+outDir, outputFolder),
		rename("--artifact-dir", "AIPerf, GenAI-Perf", "--output-dir", outDir, nil),
		rename("--output-artifact-dir", "AIPerf", "--output-dir", outDir, nil),
		rename("--result-dir", "vLLM", "--output-dir", outDir, nil),
		rename("--endpoint-type", "AIPerf, GenAI-Perf", "--endpoint", "chat or completions (other endpoint types are refused)", nil),
		rename("--random-seed", "GuideLLM, AIPerf, GenAI-Perf", "--seed", "", nil),
		rename("-H", "AIPerf, GenAI-Perf", "--header", `"Name:Value" becomes Name=Value`, colonHeader),
		rename("--processor", "GuideLLM", "--tokenizer", "a tokenizer.json, its folder, or a model id in the local Hugging Face cache (nothing is downloaded)", nil),
		rename("--benchmark-duration", "AIPerf", "--max-seconds", "seconds per level; their grace period is --drain-timeout (30s here too)", nil),
		rename("--warmup-percent", "GuideLLM 0.2-0.3", "--warmup", "a fraction 0-1 becomes a share, e.g. 0.1 -> 10%", fractionShare),
		rename("--cooldown-percent", "GuideLLM 0.2-0.3", "--cooldown", "as --warmup-percent", fractionShare),
		refused("--scenario", "GuideLLM",
			"a GuideLLM scenario uses GuideLLM's keys: write a gollm-bench --config FILE (YAML or JSON; keys are gollm-bench's flag names, docs/peer-flags.md maps GuideLLM's), or rerun a GuideLLM result's load with `gollm-bench run --like benchmarks.json`"),
		refused("--warmup-request-count", "AIPerf",
			"AIPerf's warm-up requests are sent before the benchmark and counted in nothing: here --warmup-phase concurrent:N:DURATION (a run-level warm-up) or --warmup N (the first N requests of each level are excluded from its figures)"),
	}
}

// withShort gives an alias's hidden flag a shorthand letter.
func withShort(a Alias, short string) Alias {
	a.short = short
	return a
}

// withScheme adds http:// to a URL without a scheme.
func withScheme(v string) (string, error) {
	if v != "" && !strings.Contains(v, "://") {
		return "http://" + v, nil
	}
	return v, nil
}

// positiveInt checks a whole number > 0.
func positiveInt(v string) (string, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return "", errors.New("want a whole number > 0")
	}
	return strconv.FormatInt(n, 10), nil
}

// colonHeader turns curl's and AIPerf's "Name: value" into Name=value;
// a header already written Name=value is kept.
func colonHeader(v string) (string, error) {
	i := strings.IndexAny(v, ":=")
	if i > 0 && v[i] == ':' {
		return strings.TrimSpace(v[:i]) + "=" + strings.TrimSpace(v[i+1:]), nil
	}
	return v, nil
}

// outputFolder refuses a file name where a folder is meant.
func outputFolder(v string) (string, error) {
	switch strings.ToLower(filepath.Ext(v)) {
	case ".json", ".yaml", ".yml", ".csv", ".html":
		return "", fmt.Errorf("%s is a file name: gollm-bench writes a folder of files, --output-dir DIR (DIR/RUN-ID/run.json is the result; `gollm-bench report` renders it)", v)
	}
	return v, nil
}

// fractionShare turns GuideLLM's fraction 0-1 into a share "10%".
func fractionShare(v string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 0 && f < 1) {
		return "", errors.New("want a fraction of the level in [0, 1), e.g. 0.1")
	}
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%", nil
}

// wholeTokens checks a token count: a whole number >= 0 (AIPerf writes a
// standard deviation as 10.0).
func wholeTokens(v string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return "", errors.New("want a whole number of tokens >= 0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// positiveNumber checks a number > 0 (a rate in req/s).
func positiveNumber(v string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return "", errors.New("want a rate in requests per second > 0, e.g. 5 or 0.5")
	}
	return strings.TrimSpace(v), nil
}

// Refusal is a peer spelling refused because its meaning differs here:
// the flag as the user wrote it and the translation.
type Refusal struct {
	Spelling, Translation string
}

func (r *Refusal) Error() string { return r.Spelling + ": " + r.Translation }

// alias is the pflag.Value of an alias's hidden flag.
type alias struct {
	spec Alias
	p    *Parser
	typ  string
}

func (a *alias) String() string { return "" }
func (a *alias) Type() string   { return a.typ }

func (a *alias) Set(v string) error {
	s := a.spec
	st := &a.p.staged
	switch s.kind {
	case kindRefused:
		return &Refusal{Spelling: s.Spelling, Translation: s.refuse}
	case kindRename:
		if s.conv != nil {
			var err error
			if v, err = s.conv(v); err != nil {
				return err
			}
		}
		f := a.p.fs.Lookup(s.flag)
		r := renamed{spec: s, before: f.Value.String(), changed: f.Changed, by: st.setBy[s.flag]}
		if err := a.p.fs.Set(s.flag, v); err != nil {
			return err
		}
		if _, list := f.Value.(pflag.SliceValue); !list { // a list flag takes both
			r.value = f.Value.String()
			st.renames = append(st.renames, r)
			if st.setBy == nil {
				st.setBy = map[string]string{}
			}
			st.setBy[s.flag] = s.Spelling
		}
		return nil
	case kindLength:
		n, err := wholeTokens(v)
		if err != nil {
			return err
		}
		if st.lengths == nil {
			st.lengths = map[string]staged1{}
		}
		st.lengths[s.flag] = staged1{s.Spelling, n}
	case kindConcurrency:
		n, err := positiveInt(v)
		if err != nil {
			return errors.New("want a whole number of requests in flight > 0")
		}
		st.concurrency = n
	case kindRequestRate:
		r, err := positiveNumber(v)
		if err != nil {
			return err
		}
		st.requestRate = r
	case kindGoodput:
		slo, err := peer.GoodputSLO(v)
		if err != nil {
			return err
		}
		st.goodput = staged1{v, slo}
	case kindStreaming:
		on, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("want true or false")
		}
		return a.p.fs.Set("no-stream", strconv.FormatBool(!on))
	}
	return nil
}

// staged1 is a peer flag's value held until the configuration file has
// been applied: the spelling given and the value.
type staged1 struct{ spelling, value string }

// staged holds the peer flags that set part of a setting (a length inside
// --data) or several settings (--concurrency with --request-rate).
type staged struct {
	lengths                  map[string]staged1 // --data key -> value
	concurrency, requestRate string
	goodput                  staged1
	renames                  []renamed         // the renaming aliases given, in order
	setBy                    map[string]string // flag -> the spelling that set it last
}

// renamed is a renaming alias as given: the value it set, and the flag's
// value before it (changed: given already, by the alias spelling by or,
// when by is "", by our own flag).
type renamed struct {
	spec              Alias
	value, before, by string
	changed           bool
}

// conflicts refuses a renaming alias given with its flag (or with
// another spelling of it) at a different value: pflag keeps the last one
// silently.
func (st *staged) conflicts(fs *pflag.FlagSet) error {
	var errs []error
	done := map[string]bool{}
	for _, r := range st.renames {
		flag := r.spec.flag
		if done[flag] {
			continue
		}
		other, otherValue := "", ""
		switch final := fs.Lookup(flag).Value.String(); {
		case r.changed && r.before != r.value:
			other, otherValue = cmp.Or(r.by, "--"+flag), r.before
		case final != r.value:
			other, otherValue = "--"+flag, final // given after it
			if by := st.setBy[flag]; by != r.spec.Spelling {
				other = by
			}
		default:
			continue
		}
		done[flag] = true
		errs = append(errs, fmt.Errorf("%s %s and %s %s: %s is --%s's %s spelling; give one", r.spec.Spelling, r.value, other, otherValue, r.spec.Spelling, flag, r.spec.Tools))
	}
	return errors.Join(errs...)
}

// target is the flag an alias needs in fs to be installed.
func (s Alias) target() string {
	switch s.kind {
	case kindRename:
		return s.flag
	case kindLength:
		return "data"
	case kindConcurrency, kindRequestRate:
		return "rate"
	case kindGoodput:
		return "slo"
	case kindStreaming:
		return "no-stream"
	}
	return ""
}

// install adds the hidden flags of the aliases whose target fs has.
func (p *Parser) install() {
	paired := map[string]bool{}
	for _, s := range Aliases() {
		if s.short != "" {
			paired[s.short] = true
		}
	}
	for _, s := range Aliases() {
		t := s.target()
		if t != "" && p.fs.Lookup(t) == nil {
			continue
		}
		typ := "string"
		if f := p.fs.Lookup(t); f != nil && s.kind == kindRename {
			typ = f.Value.Type()
		}
		name, short := strings.TrimLeft(s.Spelling, "-"), s.short
		if !strings.HasPrefix(s.Spelling, "--") {
			if paired[name] {
				continue // the long spelling's flag carries this shorthand
			}
			short = name
		}
		f := p.fs.VarPF(&alias{spec: s, p: p, typ: typ}, name, short, s.Note)
		f.Hidden = true
		f.NoOptDefVal = s.noOpt
	}
}
