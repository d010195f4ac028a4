package peer

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Workload is what a result file says about the load that produced it,
// in gollm-bench's terms, beyond each level's load discipline (Level.Mode,
// Concurrency, Rate). A fact the file does not state is "" for strings
// and missing for Value, Count and Bool. It is plain data.
type Workload struct {
	// Profile is the run's load profile: synchronous, concurrent,
	// throughput, constant, poisson or sweep (GuideLLM's --profile,
	// AIPerf's phase type); "" when not stated.
	Profile string `json:"profile,omitempty"`
	// Endpoint is "completions" or "chat"; another API as the tool names
	// it (e.g. "kserve").
	Endpoint string `json:"endpoint,omitempty"`
	// Stream says whether responses were streamed.
	Stream Bool `json:"stream"`
	// Model is the model name the requests carried.
	Model string `json:"model,omitempty"`
	// Tokenizer names the tokenizer that counted prompt lengths: a Hugging
	// Face id or a path.
	Tokenizer string `json:"tokenizer,omitempty"`
	// PrefixCache is "cold", "warm:N" or "dataset" (gollm-bench's
	// --prefix-cache); "" when the file does not say.
	PrefixCache string `json:"prefix_cache,omitempty"`
	// IgnoreEOS says whether ignore_eos was sent.
	IgnoreEOS Bool `json:"ignore_eos"`
	// SLO is the tool's service-level objective (its goodput thresholds)
	// in gollm-bench's syntax, e.g. "ttft_p99<=1500ms,itl_p99<=300ms".
	SLO string `json:"slo,omitempty"`
	// Warmup and Cooldown are what each level excluded from its window, in
	// gollm-bench's spelling: a share "10%", a duration "30s", a request
	// count "100", or "0" for none.
	Warmup   string `json:"warmup,omitempty"`
	Cooldown string `json:"cooldown,omitempty"`
	// MaxSeconds and MaxRequests bound each level: s, requests.
	MaxSeconds  Value `json:"max_seconds"`
	MaxRequests Count `json:"max_requests"`
	// Data is the synthetic prompt and output lengths in GuideLLM's --data
	// spelling ("prompt_tokens=256,output_tokens=128"), which gollm-bench
	// reads too.
	Data string `json:"data,omitempty"`
	// Dataset is the prompts file or dataset the tool read instead.
	Dataset string `json:"dataset,omitempty"`
	// Seed seeded the tool's randomness.
	Seed Count `json:"seed"`
	// Turns is the number of user turns of each synthetic conversation
	// (GuideLLM's synthetic_text turns); missing when not stated.
	Turns Count `json:"turns"`
	// Prefixes are the shared prefixes of the synthetic prompts
	// (GuideLLM's prefix_buckets, or its older prefix_tokens).
	Prefixes []PrefixBucket `json:"prefixes,omitempty"`
	// Unsupported lists load settings gollm-bench has no equivalent for
	// (AIPerf's request cancellation, a trace replay).
	Unsupported []Setting `json:"unsupported,omitempty"`
	// From names, for each fact above, the file's key it was read from
	// ("args.data", "input_config.endpoint.type"), keyed by the fact's
	// JSON name; messages quote it.
	From map[string]string `json:"-"`
}

// PrefixBucket is one group of synthetic prompts sharing prefixes: Count
// distinct prefixes of Tokens tokens each, drawn for Weight (relative)
// of the prompts (GuideLLM's prefix_buckets).
type PrefixBucket struct {
	Weight int `json:"weight"`
	Count  int `json:"count"`
	Tokens int `json:"tokens"`
}

// Setting is one setting of a result file: its key, its value and why it
// matters here.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// set records a fact's source key.
func (w *Workload) set(fact, key string) {
	if w.From == nil {
		w.From = map[string]string{}
	}
	w.From[fact] = key
}

// source is the key a fact was read from, or the fact's own name.
func (w Workload) source(fact string) string {
	if k := w.From[fact]; k != "" {
		return k
	}
	return fact
}

// Load is a result's load in gollm-bench's terms: what
// `gollm-bench run --like FILE` runs to put the same load on a server.
// Zero fields are left to gollm-bench's defaults. Plain data.
type Load struct {
	// Profile is synchronous, concurrent, throughput, constant or poisson.
	Profile string
	// Rates are the levels: concurrencies (concurrent), req/s (constant,
	// poisson), the in-flight cap of each level (throughput).
	Rates []float64
	// MaxConcurrency caps requests in flight for rate modes; 0 for none.
	MaxConcurrency int
	// Data is the synthetic lengths, GuideLLM spelling; Dataset a prompts
	// file (one gollm-bench has: Load checks).
	Data, Dataset string
	// MaxSeconds and MaxRequests bound each level; 0 when not stated.
	MaxSeconds  float64
	MaxRequests int64
	// Warmup and Cooldown: gollm-bench's spelling; "" for the default.
	Warmup, Cooldown string
	Stream           Bool
	Endpoint         string
	Model            string
	// SLO is the tool's SLO in gollm-bench's syntax, so that goodput
	// counts the same requests.
	SLO  string
	Seed Count
	// Turns is the sessions' turns (--turns); 0 for single requests.
	Turns int
	// SharedPrefix is the --shared-prefix spelling of the file's shared
	// prefixes; it replaces Data.
	SharedPrefix string
	// Notes says what was derived rather than read, and what is not
	// reproduced (settings without an equivalent).
	Notes []string
}

// Unreproducible is a setting of a result that gollm-bench cannot run as
// the tool did: Field is the file's key, Value its value, Reason why; the
// setting is replaced when the user gives any of Flags, named as Load.Flags
// names them (the run settings' keys, without dashes). Alternatives,
// when set, are the settings that would run it, each a list of key and
// value pairs ({"profile", "constant", "rate", "1"}), in place of the
// generic "give flag instead"; Flags and Alternatives name keys, as
// benchmark maps them to the command line.
type Unreproducible struct {
	Field        string
	Value        string
	Reason       string
	Flags        []string
	Alternatives [][]string
	// FlagPrefix is put before each key when the refusal is written: ""
	// in the library, "--" once benchmark has mapped it to the command line.
	FlagPrefix string
}

// Error implements error: "args.data /root/x.jsonl: a dataset file that is
// not here; give dataset or data instead".
func (u Unreproducible) Error() string {
	s := u.Field
	if u.Value != "" {
		s += " " + strconv.Quote(u.Value)
	}
	s += ": " + u.Reason
	if len(u.Alternatives) > 0 {
		alts := make([]string, len(u.Alternatives))
		for i, kv := range u.Alternatives {
			var b strings.Builder
			for j := 0; j+1 < len(kv); j += 2 {
				if j > 0 {
					b.WriteString(" ")
				}
				b.WriteString(u.FlagPrefix + kv[j] + " " + kv[j+1])
			}
			alts[i] = b.String()
		}
		return s + "; give " + strings.Join(alts, " or ")
	}
	if len(u.Flags) > 0 {
		flags := make([]string, len(u.Flags))
		for i, f := range u.Flags {
			flags[i] = u.FlagPrefix + f
		}
		s += "; give " + strings.Join(flags, " or ") + " instead"
	}
	return s
}

// Load maps r onto the load gollm-bench would run to reproduce it (its
// levels' discipline and rates, lengths or dataset, limits, streaming,
// endpoint, model, SLO) and lists what cannot be reproduced: a level
// whose discipline is unknown, levels of different disciplines, a
// dataset file that is not on this machine, an API other than
// completions or chat, no prompt length at all. When the file names no
// lengths, the achieved ISL and OSL means (and spreads) of its first
// level stand in for them, and a note says so.
func (r Result) Load() (Load, []Unreproducible) {
	w := r.Workload
	var l Load
	var bad []Unreproducible
	// Load discipline and levels.
	var modes []loadgen.Mode
	for i, lv := range r.Levels {
		if lv.Mode == ModeUnknown {
			reason, alts := "its load profile has no gollm-bench equivalent", [][]string(nil)
			switch {
			case strings.HasSuffix(r.Layout, ".csv") && !lv.Rate.OK:
				// AIPerf's and GenAI-Perf's CSV exports hold the
				// metrics, not the settings: the JSON export beside
				// them does.
				reason = "the " + r.Tool + " CSV export does not record the load (its profile, rate or concurrency); give the " +
					strings.TrimSuffix(r.Layout, ".csv") + ".json beside it, or the artifact folder, which do"
			case lv.Rate.OK:
				// inference-perf's stage reports: the rate, not whether
				// arrivals were constant or Poisson.
				r := strconv.FormatFloat(lv.Rate.V, 'f', -1, 64)
				reason = "the file states its rate, " + r + " req/s, but not its arrival process (constant or poisson)"
				alts = [][]string{{"profile", "constant", "rate", r}, {"profile", "poisson", "rate", r}}
			}
			bad = append(bad, Unreproducible{Field: fmt.Sprintf("level %d (%s)", i, lv.Label), Reason: reason, Flags: []string{"profile"}, Alternatives: alts})
			continue
		}
		if !slices.Contains(modes, lv.Mode) {
			modes = append(modes, lv.Mode)
		}
	}
	switch {
	case len(r.Levels) == 0:
		bad = append(bad, Unreproducible{Field: "levels", Reason: "the file holds no level to reproduce", Flags: []string{"profile"}})
	case len(modes) > 1:
		names := make([]string, len(modes))
		for i, m := range modes {
			names[i] = string(m)
		}
		bad = append(bad, Unreproducible{Field: w.source("profile"), Value: w.Profile,
			Reason: "its levels mix " + strings.Join(names, ", ") + ", which one `run` cannot; run them one profile at a time", Flags: []string{"profile"}})
	case len(modes) == 1:
		l.Profile = string(modes[0])
		for _, lv := range r.Levels {
			switch modes[0] {
			case loadgen.ModeConcurrent:
				l.Rates = appendNew(l.Rates, float64(lv.Concurrency))
			case loadgen.ModeConstant, loadgen.ModePoisson:
				if lv.Rate.OK {
					l.Rates = appendNew(l.Rates, lv.Rate.V)
				}
				if lv.MaxConcurrency > 0 {
					l.MaxConcurrency = max(l.MaxConcurrency, lv.MaxConcurrency)
				}
			case loadgen.ModeThroughput:
				if lv.MaxConcurrency > 0 {
					l.Rates = appendNew(l.Rates, float64(lv.MaxConcurrency))
				}
			}
		}
		if (modes[0] == loadgen.ModeConstant || modes[0] == loadgen.ModePoisson) && len(l.Rates) == 0 {
			bad = append(bad, Unreproducible{Field: w.source("profile"), Value: string(modes[0]), Reason: "no rate is stated", Flags: []string{"rate"}})
		}
	}

	// Prompts: the tool's synthetic lengths, its dataset, or the achieved lengths.
	switch {
	case w.Data != "":
		l.Data = w.Data
		if !strings.Contains(l.Data, "output_tokens=") {
			// The tool let the server decide when to stop: the achieved OSL stands in.
			for _, lv := range r.Levels {
				if osl, ok := lv.OSL.Mean.Get(); ok && osl >= 1 {
					l.Data += fmt.Sprintf(",output_tokens=%d", int(math.Round(osl)))
					l.Notes = append(l.Notes, fmt.Sprintf("the file sets no output length: output_tokens=%d is its first level's achieved OSL", int(math.Round(osl))))
					break
				}
			}
		}
	case w.Dataset != "":
		if st, err := os.Stat(w.Dataset); err == nil && st.Mode().IsRegular() {
			l.Dataset = w.Dataset
		} else {
			bad = append(bad, Unreproducible{Field: w.source("dataset"), Value: w.Dataset,
				Reason: "the prompts came from a dataset that is not on this machine", Flags: []string{"dataset", "data", "sequence-distribution"}})
		}
	default:
		if d, ok := achievedData(r.Levels); ok {
			l.Data = d
			l.Notes = append(l.Notes, "the file names no synthetic lengths: data "+d+" is its first level's achieved ISL and OSL")
		} else {
			bad = append(bad, Unreproducible{Field: "prompt lengths", Reason: "the file states neither its data nor the achieved ISL and OSL",
				Flags: []string{"data", "dataset", "sequence-distribution"}})
		}
	}
	switch w.Endpoint {
	case "", "completions", "chat":
		l.Endpoint = w.Endpoint
	default:
		bad = append(bad, Unreproducible{Field: w.source("endpoint"), Value: w.Endpoint, Reason: "gollm-bench speaks the OpenAI completions and chat APIs only", Flags: []string{"endpoint"}})
	}
	if v, ok := w.MaxSeconds.Get(); ok && v > 0 {
		l.MaxSeconds = v
	}
	if w.MaxRequests.OK && w.MaxRequests.N > 0 {
		l.MaxRequests = w.MaxRequests.N
	}
	l.Warmup, l.Cooldown = w.Warmup, w.Cooldown
	l.Stream, l.Model, l.SLO, l.Seed = w.Stream, w.Model, w.SLO, w.Seed
	r.sessionsAndPrefixes(&l)
	for _, s := range w.Unsupported {
		l.Notes = append(l.Notes, fmt.Sprintf("not reproduced: %s %s (%s)", s.Key, s.Value, s.Reason))
	}
	return l, bad
}

// sessionsAndPrefixes maps the file's turns and shared prefixes onto
// --turns and --shared-prefix, and says in l.Notes what it cannot
// reproduce: turns over the completions API (gollm-bench's sessions are
// chat conversations), several prefix buckets, prefixes together with
// turns, prefixes without fixed synthetic lengths.
func (r Result) sessionsAndPrefixes(l *Load) {
	w := r.Workload
	turns := 0
	if w.Turns.OK && w.Turns.N > 1 {
		turns = int(w.Turns.N)
		if l.Endpoint == "chat" {
			l.Turns = turns
		} else {
			l.Notes = append(l.Notes, fmt.Sprintf("not reproduced: %s %d (gollm-bench's multi-turn sessions are chat conversations, and the file ran the %s API; a run on the chat endpoint with %d turns runs them)", w.source("turns"), turns, orUnstated(l.Endpoint), turns))
		}
	}
	var prefixed []PrefixBucket
	for _, b := range w.Prefixes {
		if b.Tokens > 0 {
			prefixed = append(prefixed, b)
		}
	}
	switch {
	case len(prefixed) == 0:
	case len(prefixed) > 1:
		l.Notes = append(l.Notes, fmt.Sprintf("not reproduced: %s: %d prefix buckets (a shared-prefix workload has one prefix length)", w.source("prefixes"), len(prefixed)))
	case l.Turns > 0:
		l.Notes = append(l.Notes, fmt.Sprintf("not reproduced: %s: %d prefixes of %d tokens (a shared-prefix workload does not combine with multi-turn sessions)", w.source("prefixes"), prefixed[0].Count, prefixed[0].Tokens))
	default:
		b := prefixed[0]
		kv := dataKeys(l.Data)
		q, o := kv["prompt_tokens"], kv["output_tokens"]
		n := l.MaxRequests
		if n <= 0 && len(r.Levels) > 0 && r.Levels[0].Requests.Completed.OK {
			n = r.Levels[0].Requests.Completed.N
		}
		if q <= 0 || o <= 0 || n <= 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("not reproduced: %s: %d prefixes of %d tokens (a shared-prefix workload needs fixed prompt and output lengths and a request count)", w.source("prefixes"), b.Count, b.Tokens))
			break
		}
		per := int((n + int64(b.Count) - 1) / int64(b.Count))
		l.SharedPrefix = fmt.Sprintf("groups=%d,prompts=%d,prefix=%d,question=%d,output=%d", b.Count, per, b.Tokens, int(q), int(o))
		for _, k := range []string{"prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max", "output_tokens_stdev", "output_tokens_min", "output_tokens_max"} {
			if _, ok := kv[k]; ok {
				l.Notes = append(l.Notes, "not reproduced: the spread of the synthetic lengths ("+k+"): a shared-prefix workload sends fixed lengths")
				break
			}
		}
		l.Data = ""
	}
}

func orUnstated(s string) string {
	if s == "" {
		return "default (completions)"
	}
	return s
}

// dataKeys reads a GuideLLM --data spelling's numbers by key.
func dataKeys(data string) map[string]float64 {
	out := map[string]float64{}
	for _, kv := range strings.Split(data, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			out[strings.TrimSpace(k)] = x
		}
	}
	return out
}

func appendNew(xs []float64, v float64) []float64 {
	if v <= 0 || slices.Contains(xs, v) {
		return xs
	}
	return append(xs, v)
}

// achievedData spells the first level's achieved ISL and OSL means (and
// spreads of at least one token) as --data.
func achievedData(levels []Level) (string, bool) {
	for _, lv := range levels {
		isl, ok1 := lv.ISL.Mean.Get()
		osl, ok2 := lv.OSL.Mean.Get()
		if !ok1 || !ok2 || isl < 1 || osl < 1 {
			continue
		}
		d := fmt.Sprintf("prompt_tokens=%d,output_tokens=%d", int(math.Round(isl)), int(math.Round(osl)))
		if sd, ok := lv.ISL.Std.Get(); ok && sd >= 1 {
			d += fmt.Sprintf(",prompt_tokens_stdev=%d", int(math.Round(sd)))
		}
		if sd, ok := lv.OSL.Std.Get(); ok && sd >= 1 {
			d += fmt.Sprintf(",output_tokens_stdev=%d", int(math.Round(sd)))
		}
		return d, true
	}
	return "", false
}

// Flags returns l as `gollm-bench run` flags, name (without dashes) and
// value, in a fixed order, leaving out what l leaves to the defaults.
// Applied to the command line, they run the same load.
func (l Load) Flags() [][2]string {
	var out [][2]string
	add := func(name, value string) {
		if value != "" {
			out = append(out, [2]string{name, value})
		}
	}
	add("profile", l.Profile)
	if len(l.Rates) > 0 {
		rs := make([]string, len(l.Rates))
		for i, r := range l.Rates {
			rs[i] = strconv.FormatFloat(r, 'f', -1, 64)
		}
		add("rate", strings.Join(rs, ","))
	}
	if l.MaxConcurrency > 0 {
		add("max-concurrency", strconv.Itoa(l.MaxConcurrency))
	}
	add("data", l.Data)
	add("shared-prefix", l.SharedPrefix)
	if l.Turns > 0 {
		add("turns", strconv.Itoa(l.Turns))
	}
	add("dataset", l.Dataset)
	if l.MaxSeconds > 0 {
		add("max-seconds", strconv.FormatFloat(l.MaxSeconds, 'f', -1, 64))
	}
	if l.MaxRequests > 0 {
		add("max-requests", strconv.FormatInt(l.MaxRequests, 10))
	}
	add("warmup", l.Warmup)
	add("cooldown", l.Cooldown)
	if l.Stream.OK {
		add("no-stream", strconv.FormatBool(!l.Stream.V))
	}
	add("endpoint", l.Endpoint)
	add("model", l.Model)
	add("slo", l.SLO)
	if l.Seed.OK {
		add("seed", strconv.FormatInt(l.Seed.N, 10))
	}
	return out
}

// flagGroups are flags that set one thing together: a flag of a Load is
// not applied when any flag of its group was given.
var flagGroups = [][]string{
	{"profile", "rate", "max-concurrency"},
	{"data", "dataset", "sequence-distribution", "shared-prefix"},
}

// Apply sets, with set, every flag of l (Flags) that the user did not
// give, as told by given; a flag of a group (profile, rate and
// max-concurrency; data, dataset and sequence-distribution) is not set
// when the user gave any flag of its group. It returns the flags set as
// words of a shell command line, "--name=value" (a switch too:
// --no-stream=true), the value single-quoted where a shell would read it
// otherwise, and set's first error, naming the flag.
func (l Load) Apply(given func(flag string) bool, set func(flag, value string) error) ([]string, error) {
	isGiven := func(name string) bool {
		for _, g := range flagGroups {
			if slices.Contains(g, name) {
				return slices.ContainsFunc(g, given)
			}
		}
		return given(name)
	}
	var applied []string
	for _, kv := range l.Flags() {
		if isGiven(kv[0]) {
			continue
		}
		if err := set(kv[0], kv[1]); err != nil {
			return applied, fmt.Errorf("--%s %s: %w", kv[0], kv[1], err)
		}
		applied = append(applied, shellQuote("--"+kv[0]+"="+kv[1]))
	}
	return applied, nil
}

// shellQuote returns word as a POSIX shell reads it back: as it is when
// it holds only characters a shell leaves alone, else in single quotes,
// a quote in it closing them, escaped, and reopening them.
func shellQuote(word string) string {
	plain := func(r rune) bool {
		return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,:/+%@", r))
	}
	if word != "" && !strings.ContainsFunc(word, func(r rune) bool { return !plain(r) }) {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

// GoodputSLO maps a peer's goodput thresholds onto a gollm-bench SLO:
// vLLM's `--goodput ttft:500 tpot:50 e2el:2000` (ms) and AIPerf's
// `--goodput "time_to_first_token:1500 inter_token_latency:300"` (its
// input_config.slos, ms). vLLM's TPOT and AIPerf's inter_token_latency
// are per request (E2E − TTFT)/(OSL − 1), gollm-bench's ITL. Each
// threshold becomes a p99 term: gollm-bench's goodput counts the
// requests that meet every term's threshold, exactly as those tools
// count good requests; the percentile only adds a verdict. Pairs are
// separated by spaces or commas.
func GoodputSLO(spec string) (string, error) {
	var terms []string
	for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			k, v, ok = strings.Cut(f, "=")
		}
		ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || !(ms > 0) || math.IsInf(ms, 0) {
			return "", fmt.Errorf("goodput %q: want NAME:MILLISECONDS, e.g. ttft:500", f)
		}
		metric := ""
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "ttft", "time_to_first_token":
			metric = "ttft"
		case "tpot", "itl", "inter_token_latency":
			metric = "itl"
		case "e2el", "e2e", "request_latency":
			metric = "e2e"
		default:
			return "", fmt.Errorf("goodput %q: unknown metric %q (vLLM: ttft, tpot, e2el; AIPerf: time_to_first_token, inter_token_latency, request_latency)", f, k)
		}
		terms = append(terms, fmt.Sprintf("%s_p99<=%sms", metric, strconv.FormatFloat(ms, 'f', -1, 64)))
	}
	return strings.Join(terms, ","), nil
}
