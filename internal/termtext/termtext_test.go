package termtext

import (
	"strings"
	"testing"
)

// TestEscape: what a hostile server sends in an error message or a model
// name reaches the terminal as visible text (issue 25 item 5: a title
// change, a screen clear and a "\r" overwrite passed through).
func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain ümlaut 日本", "plain ümlaut 日本"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b[2Jclear", `\x1b[2Jclear`},
		{"ok\rFAKE", `ok\rFAKE`},
		{"two\nlines\ttab", `two\nlines\ttab`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff byte", `bad \xff byte`},
		{"del\x7f", `del\x7f`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := EscapeLines("a\x1b[2J\nb\r"); got != "a\\x1b[2J\nb\\r" {
		t.Errorf("EscapeLines kept %q", got)
	}
}

func TestCSVCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{"+1+1", "'+1+1"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"-3.5", "-3.5"},
		{"-1e-05", "-1e-05"},
		{"model-x", "model-x"},
		{"", ""},
	} {
		if got := CSVCell(tc.in); got != tc.want {
			t.Errorf("CSVCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b]0;t\x07\r\n\u009b\u202e\xff ok")
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if firstUnsafe(got, false) >= 0 {
			t.Fatalf("Escape(%q) = %q still holds an unsafe character", s, got)
		}
		if firstUnsafe(s, false) < 0 && got != s {
			t.Fatalf("Escape changed safe text %q to %q", s, got)
		}
		if strings.ContainsRune(CSVCell(s)[:min(1, len(CSVCell(s)))], '=') {
			t.Fatalf("CSVCell(%q) starts a formula", s)
		}
	})
}
