package compare

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Thresholds of the workload check on achieved lengths: two means differ
// when they are more than lengthTolerance apart (relative to the larger)
// and at least minTokens tokens; two spreads (standard deviations) when
// they differ by more than spreadTolerance of the larger mean and at
// least minTokens.
const (
	lengthTolerance = 0.05
	spreadTolerance = 0.10
	minTokens       = 2
)

// CheckWorkload reports whether a and b ran the same workload, as Runs
// does before it compares them: it matches their levels by load and lists
// the facts they state differently (load profile, the offered load when no
// level matches, the level length, achieved ISL and OSL over the matched
// levels, endpoint, streaming, tokenizer, prefix cache, ignore_eos, SLO,
// warmup, cooldown) and those only one states. A report
// that overlays runs uses it to say when they are not comparable.
func CheckWorkload(a, b peer.Result) (mismatches []Mismatch, unstated []string) {
	return checkWorkload(a, b, peer.Compare(a, b).Matches)
}

// checkWorkload lists the facts a and b state differently, in a fixed
// order: load profile, the load of levels paired without a stated load
// or of two results no level of which matches, the level length
// (max seconds, max requests), achieved ISL and OSL (mean, then spread) over the matched levels,
// endpoint, streaming, tokenizer, turns per conversation (when either
// side has more than one), prefix-cache state (a peer's shared prefixes
// as "shared:GxS"), ignore_eos, SLO, warmup and cooldown. Facts one side
// does not state are listed apart.
func checkWorkload(a, b peer.Result, matches []peer.Match) ([]Mismatch, []string) {
	wa, wb := a.Workload, b.Workload
	var mm []Mismatch
	var unstated []string
	fact := func(field, x, y string, same func(x, y string) bool) {
		switch {
		case x == "" && y == "":
		case x == "":
			unstated = append(unstated, field+" (not stated by A)")
		case y == "":
			unstated = append(unstated, field+" (not stated by B)")
		case !same(x, y):
			mm = append(mm, Mismatch{Field: field, A: x, B: y})
		}
	}
	eq := func(x, y string) bool { return strings.EqualFold(x, y) }
	fact("profile", wa.Profile, wb.Profile, sameProfile)
	for _, m := range matches {
		if m.Key != peer.OnlyLevelKey {
			continue
		}
		la, lb := a.Levels[m.A], b.Levels[m.B]
		if la.Mode == peer.ModeUnknown && lb.Mode == peer.ModeUnknown {
			// Neither says its load: not a difference, an unknown.
			unstated = append(unstated, "load (stated by neither)")
			continue
		}
		mm = append(mm, Mismatch{Field: "load", A: loadOf(la), B: loadOf(lb)})
	}
	// Levels are matched by load (peer.Compare), so matched levels ran
	// the same offered load; when none matches, the two ran different
	// loads and every figure of one describes another load than the
	// other's.
	if len(matches) == 0 {
		if la, lb := loadsOf(a), loadsOf(b); la != "" && lb != "" {
			mm = append(mm, Mismatch{Field: "load", A: la, B: lb})
		}
	}
	fact("level length", lengthOf(wa), lengthOf(wb), eq)
	// Achieved lengths, averaged over the matched levels (or the first
	// levels when none matched).
	pairs := matches
	if len(pairs) == 0 && len(a.Levels) > 0 && len(b.Levels) > 0 {
		pairs = []peer.Match{{A: 0, B: 0}}
	}
	for _, L := range []struct {
		name string
		get  func(peer.Level) peer.Stats
	}{{"ISL", func(l peer.Level) peer.Stats { return l.ISL }}, {"OSL", func(l peer.Level) peer.Stats { return l.OSL }}} {
		var ma, mb, sa, sb []float64
		for _, p := range pairs {
			x, y := L.get(a.Levels[p.A]), L.get(b.Levels[p.B])
			if x.Mean.OK && y.Mean.OK {
				ma, mb = append(ma, x.Mean.V), append(mb, y.Mean.V)
				if x.Std.OK && y.Std.OK {
					sa, sb = append(sa, x.Std.V), append(sb, y.Std.V)
				}
			}
		}
		if len(ma) == 0 {
			continue
		}
		x, y := mean(ma), mean(mb)
		if d := math.Abs(x - y); d >= minTokens && d > lengthTolerance*math.Max(x, y) {
			mm = append(mm, Mismatch{Field: L.name, A: tokens(x), B: tokens(y)})
		}
		if len(sa) > 0 {
			p, q := mean(sa), mean(sb)
			if d := math.Abs(p - q); d >= minTokens && d > spreadTolerance*math.Max(x, y) {
				mm = append(mm, Mismatch{Field: L.name + " spread", A: "±" + tokens(p), B: "±" + tokens(q)})
			}
		}
	}
	fact("endpoint", wa.Endpoint, wb.Endpoint, eq)
	fact("streaming", boolStr(wa.Stream), boolStr(wb.Stream), eq)
	fact("tokenizer", wa.Tokenizer, wb.Tokenizer, sameTokenizer)
	// Turns: a run of single requests states 1; a file silent on turns
	// is not flagged against one.
	if ta, tb := turnsOf(wa), turnsOf(wb); !(single(ta) && single(tb)) {
		fact("turns", ta, tb, eq)
	}
	fact("prefix cache", prefixState(wa), prefixState(wb), eq)
	fact("ignore_eos", boolStr(wa.IgnoreEOS), boolStr(wb.IgnoreEOS), eq)
	fact("SLO", wa.SLO, wb.SLO, sameSLO)
	fact("warmup", trimText(wa.Warmup), trimText(wb.Warmup), sameTrim)
	fact("cooldown", trimText(wa.Cooldown), trimText(wb.Cooldown), sameTrim)
	return mm, unstated
}

// turnsOf spells a workload's turns per conversation; "" when not stated.
func turnsOf(w peer.Workload) string {
	if !w.Turns.OK {
		return ""
	}
	return strconv.FormatInt(w.Turns.N, 10)
}

func single(turns string) bool { return turns == "" || turns == "1" }

// prefixState is w's prefix-cache state; a peer's shared prefixes
// (GuideLLM's prefix_buckets) stated as gollm-bench states a
// shared-prefix run: "shared:GxS" for G prefixes of S tokens, buckets
// joined by "+".
func prefixState(w peer.Workload) string {
	if w.PrefixCache != "" {
		return w.PrefixCache
	}
	var parts []string
	for _, b := range w.Prefixes {
		if b.Count > 0 && b.Tokens > 0 {
			parts = append(parts, fmt.Sprintf("%dx%d", b.Count, b.Tokens))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "shared:" + strings.Join(parts, "+")
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func tokens(v float64) string { return fmt.Sprintf("%.0f", v) }

func boolStr(b peer.Bool) string {
	if !b.OK {
		return ""
	}
	return b.String()
}

// loadsOf lists a result's stated loads ("10 req/s", "concurrency 4, 8");
// "" when no level states one.
func loadsOf(r peer.Result) string {
	var rates, conc []string
	other := ""
	for _, l := range r.Levels {
		switch {
		case l.Mode == peer.ModeUnknown:
		case l.Mode == loadgen.ModeSynchronous:
			conc = append(conc, "1")
		case l.Mode == loadgen.ModeConcurrent && l.Concurrency > 0:
			conc = append(conc, strconv.Itoa(l.Concurrency))
		case l.Mode == loadgen.ModeThroughput:
			other = "throughput"
		case l.Rate.OK:
			rates = append(rates, strconv.FormatFloat(l.Rate.V, 'g', 4, 64))
		}
	}
	var parts []string
	if len(rates) > 0 {
		parts = append(parts, strings.Join(rates, ", ")+" req/s")
	}
	if len(conc) > 0 {
		parts = append(parts, "concurrency "+strings.Join(conc, ", "))
	}
	if other != "" {
		parts = append(parts, other)
	}
	return strings.Join(parts, "; ")
}

// lengthOf states a level's length limits: "5 s", "100 requests", "5 s
// or 100 requests"; "" when neither is stated.
func lengthOf(w peer.Workload) string {
	var parts []string
	if w.MaxSeconds.OK && w.MaxSeconds.V > 0 {
		parts = append(parts, strconv.FormatFloat(w.MaxSeconds.V, 'g', -1, 64)+" s")
	}
	if w.MaxRequests.OK && w.MaxRequests.N > 0 {
		parts = append(parts, strconv.FormatInt(w.MaxRequests.N, 10)+" requests")
	}
	return strings.Join(parts, " or ")
}

// loadOf describes a level's load for a mismatch line.
func loadOf(l peer.Level) string {
	if l.Mode == peer.ModeUnknown {
		return "not stated"
	}
	return l.Label
}

// sameProfile: a sweep's levels are constant-rate ones.
func sameProfile(x, y string) bool {
	norm := func(s string) string {
		s = strings.ToLower(s)
		if s == "sweep" {
			return "constant"
		}
		return s
	}
	return norm(x) == norm(y)
}

// sameTokenizer compares tokenizer names loosely: a tokenizer.json path
// and a Hugging Face id name the same tokenizer when the id's name is the
// path's model folder (the Hugging Face cache's models--org--name), or
// when their last elements agree.
func sameTokenizer(x, y string) bool {
	nx, ny := tokenizerName(x), tokenizerName(y)
	return nx == ny || strings.HasSuffix(nx, "/"+ny) || strings.HasSuffix(ny, "/"+nx)
}

func tokenizerName(s string) string {
	s = strings.ToLower(strings.TrimSpace(filepath.ToSlash(s)))
	s = strings.TrimSuffix(s, "/tokenizer.json")
	if i := strings.Index(s, "models--"); i >= 0 {
		rest := s[i+len("models--"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		return strings.ReplaceAll(rest, "--", "/")
	}
	return strings.TrimSuffix(s, "/")
}

// sameSLO compares SLOs as parsed, so that spelling does not matter.
func sameSLO(x, y string) bool {
	ox, ex := slo.Parse(x)
	oy, ey := slo.Parse(y)
	if ex != nil || ey != nil {
		return strings.EqualFold(strings.ReplaceAll(x, " ", ""), strings.ReplaceAll(y, " ", ""))
	}
	return ox.Equal(oy)
}

// trimText spells a warmup or cooldown for people: a bare count is
// requests.
func trimText(s string) string {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n > 0 {
		return fmt.Sprintf("%d requests", n)
	}
	return s
}

// sameTrim compares warmups: "90s" and "1m30s" agree.
func sameTrim(x, y string) bool {
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		if d, err := time.ParseDuration(s); err == nil {
			if d == 0 {
				return "0"
			}
			return d.String()
		}
		return s
	}
	return norm(x) == norm(y)
}
