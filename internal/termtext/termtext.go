// Package termtext makes text that a server supplied (an error message, a
// model name) safe to print on a terminal and to open in a spreadsheet:
// no control character reaches the terminal, so a server cannot retitle
// the window, clear the screen or overwrite a line with "\r", and no CSV
// cell starts a formula.
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character a terminal could act on written
// as a visible Go-style escape: the C0 controls ("\x1b", "\r", "\n",
// "\t", ...), DEL, the C1 controls (U+0080–U+009F, "\u009b" is a CSI),
// the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069,
// which reorder what is shown), and invalid UTF-8 bytes ("\xff").
// Everything else, any printable Unicode included, is kept. A string
// without such characters is returned as is, without allocating. Safe
// for concurrent use.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape keeping "\n": for a multi-line report that is
// ours but quotes what servers sent.
func EscapeLines(s string) string { return escape(s, true) }

func escape(s string, keepNewline bool) string {
	i := firstUnsafe(s, keepNewline)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewline:
			b.WriteByte('\n')
		case unsafeRune(r):
			switch r {
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				if r < 0x80 {
					fmt.Fprintf(&b, `\x%02x`, r)
				} else {
					fmt.Fprintf(&b, `\u%04x`, r)
				}
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first character Escape rewrites,
// or -1.
func firstUnsafe(s string, keepNewline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(c == '\n' && keepNewline) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports a control character or a bidirectional override.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// CSVCell returns s safe as a spreadsheet cell: Escape, and a cell that
// starts with "=", "+", "-" or "@" (a formula to Excel, LibreOffice and
// Google Sheets) is prefixed with "'", unless it is a number ("-3.5") or
// a lone "+" or "-" (the reports' "no value"); a lone "=" or "@" is
// prefixed too. CSVRow applies it to every cell of a row.
func CSVCell(s string) string {
	s = Escape(s)
	switch {
	case s == "":
		return s
	case s[0] == '=' || s[0] == '@':
		return "'" + s // a formula or a function call, even alone
	case (s[0] == '+' || s[0] == '-') && len(s) >= 2 && !isNumber(s):
		return "'" + s // a lone "-" is the reports' "no value", not a formula
	}
	return s
}

// isNumber reports whether s is a plain decimal number, as the reports
// write them ("-3", "+0.25", "-1e-05").
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && strings.Trim(s, "+-.0123456789eE") == ""
}

// CSVRow returns row with every cell made safe by CSVCell, in place.
func CSVRow(row []string) []string {
	for i, c := range row {
		row[i] = CSVCell(c)
	}
	return row
}
