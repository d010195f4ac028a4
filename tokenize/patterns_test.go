package tokenize

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"
)

var scannerPatterns = []string{cl100kPattern, qwenPattern, o200kPattern, gpt2Pattern}

func spans(m matcher, s string) [][2]int {
	var out [][2]int
	m.each(s, func(a, b int) { out = append(out, [2]int{a, b}) })
	return out
}

// checkScanners compares every hand-written scanner with regexp2 on s.
func checkScanners(t testing.TB, s string) {
	for _, p := range scannerPatterns {
		fast, err := newPatternMatcher(p)
		if err != nil {
			t.Fatal(err)
		}
		re, err := compileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := spans(fast, s), spans(regexMatcher{re}, s)
		if !slices.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			g, w := "end", "end"
			if i < len(got) {
				g = fmt.Sprintf("%q", s[got[i][0]:got[i][1]])
			}
			if i < len(want) {
				w = fmt.Sprintf("%q", s[want[i][0]:want[i][1]])
			}
			t.Fatalf("pattern %.30q... on %q: match %d: scanner %s, regexp2 %s", p, clip(s, 80), i, g, w)
		}
	}
}

var isolatedPatterns = []string{deepSeekDigits, deepSeekCJK, deepSeekPattern}

// checkIsolated compares the Isolated split of s by each tiling scanner
// with the split by regexp2.
func checkIsolated(t testing.TB, s string) {
	for _, p := range isolatedPatterns {
		re, err := compileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		in := piece{s, true}
		got := splitPieces(nil, in, newIsolatedMatcher(p), isolated, false)
		want := splitPieces(nil, in, regexMatcher{re}, isolated, false)
		if !slices.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			g, w := "end", "end"
			if i < len(got) {
				g = fmt.Sprintf("%q", got[i].s)
			}
			if i < len(want) {
				w = fmt.Sprintf("%q", want[i].s)
			}
			t.Fatalf("Isolated %.30q... on %q: piece %d: scanner %s, regexp2 %s", p, clip(s, 80), i, g, w)
		}
	}
}

// TestDeepSeekPatterns checks that the constants are DeepSeek-V3's
// patterns as its tokenizer.json spells them (JSON-escaped here).
func TestDeepSeekPatterns(t *testing.T) {
	var got []string
	for _, raw := range []string{
		`"\\p{N}{1,3}"`,
		`"[一-龥\u3040-ゟ゠-ヿ]+"`,
		`"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_` + "`" + `{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"`,
	} {
		var s string
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if !slices.Equal(got, isolatedPatterns) {
		t.Fatalf("patterns\n%q\nwant\n%q", isolatedPatterns, got)
	}
}

// TestScannersMatchRegexp2 checks the hand-written scanners against
// regexp2 on every corpus text and on a table of edge cases.
func TestScannersMatchRegexp2(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	cases := []string{
		"", " ", "  ", "\n", " \n ", "a", "'s", "'S", "'Re", "'x", "don't", "HELLO'S world",
		"  hello", "\t\tword", "x  \n\n  y", "a\u3000b", "\u3000\u3000x", "12345678", "١٢٣٤",
		"CamelCaseWord", "ABCdef", "é\u0301a", "\u0301\u0301", "ǅungla", "ʰabc", "中文字符",
		" !!!\n\n", "!!/\r\n", "?x", " ?x", "\r\n\r\n", "end   ", "x \u00a0 y", "\u2028",
	}
	cases = append(cases, "(hello", " (hello", "x(y", "5abc", "a\u0301b", "\u0301x", " \u0301", "!!\r\n\r\nx",
		"中文テスト123456", "ｶﾀｶﾅ", "日本語とEnglish", "\x00\x01a", "٣x", "$100", "a+b=c", "…and", "«quote»", " \t\n")
	for _, c := range cases {
		checkScanners(t, c)
		checkIsolated(t, c)
	}
	for _, f := range corpusFiles {
		for _, l := range readJSONL(t, filepath.Join(fixtures, "corpora", f)) {
			checkScanners(t, l.Text)
			checkIsolated(t, l.Text)
		}
	}
}

// FuzzScanners checks that the hand-written scanners and regexp2 agree.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{"Hello world", "  x\n\n", "don'T 123456", "ÀÉÎ abc\u0301", "中文 テスト"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		checkScanners(t, s)
		checkIsolated(t, s)
	})
}
