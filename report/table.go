package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// column is one column of a text table.
type column struct {
	group string // a label over a run of columns ("TTFT ms"), or ""
	name  string
	right bool // right-align (numbers)
}

// table is a plain-text table with an optional group header row.
type table struct {
	cols []column
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write renders t with two spaces between columns, no trailing spaces.
func (t *table) write(w io.Writer) error {
	width := make([]int, len(t.cols))
	for i, c := range t.cols {
		width[i] = utf8.RuneCountInString(c.name)
	}
	for _, r := range t.rows {
		for i, cell := range r {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	// A group label wider than its columns widens the last one.
	for i := 0; i < len(t.cols); {
		j := i
		for j+1 < len(t.cols) && t.cols[j+1].group == t.cols[i].group {
			j++
		}
		if g := t.cols[i].group; g != "" {
			span := 2 * (j - i)
			for k := i; k <= j; k++ {
				span += width[k]
			}
			if n := utf8.RuneCountInString(g); n > span {
				width[j] += n - span
			}
		}
		i = j + 1
	}
	var b strings.Builder
	line := func(cells []string, right func(i int) bool) {
		var l strings.Builder
		for i, cell := range cells {
			if i > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if right(i) {
				l.WriteString(pad + cell)
			} else {
				l.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	// Group row: each label left-aligned over its span, spans joined.
	hasGroup := false
	for _, c := range t.cols {
		hasGroup = hasGroup || c.group != ""
	}
	if hasGroup {
		var l strings.Builder
		for i := 0; i < len(t.cols); {
			j := i
			for j+1 < len(t.cols) && t.cols[j+1].group == t.cols[i].group {
				j++
			}
			span := 2 * (j - i)
			for k := i; k <= j; k++ {
				span += width[k]
			}
			if i > 0 {
				l.WriteString("  ")
			}
			g := t.cols[i].group
			l.WriteString(g + strings.Repeat(" ", span-utf8.RuneCountInString(g)))
			i = j + 1
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	line(names, func(i int) bool { return t.cols[i].right })
	for _, r := range t.rows {
		line(r, func(i int) bool { return t.cols[i].right })
	}
	_, err := io.WriteString(w, b.String())
	return err
}
