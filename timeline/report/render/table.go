package render

import (
	"strings"
	"unicode/utf8"
)

// repCol is one column of a text table: its least width, whether its
// cells are right-aligned (figures), and the spaces before it (at least
// one for every column but the first, whatever the caller asks).
type repCol struct {
	min   int
	right bool
	gap   int
}

// repTable lays out the text report's tables: each column as wide as its
// widest cell (or its least width), so a figure wider than the column was
// planned for ("0.00989 kWh" beside "245162 it/s") moves the columns after
// it rather than running into them.
type repTable struct {
	cols []repCol
	rows [][]string
}

func newRepTable(cols ...repCol) *repTable {
	for i := 1; i < len(cols); i++ {
		cols[i].gap = max(cols[i].gap, 1)
	}
	return &repTable{cols: cols}
}

// row adds a row; cells beyond the columns are dropped, missing ones are
// blank.
func (t *repTable) row(cells ...string) { t.rows = append(t.rows, cells) }

// lines are the rows laid out, each after indent, trailing spaces cut.
func (t *repTable) lines(indent string) []string {
	width := make([]int, len(t.cols))
	for i, c := range t.cols {
		width[i] = c.min
	}
	for _, r := range t.rows {
		for i := range min(len(r), len(t.cols)) {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	out := make([]string, 0, len(t.rows))
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		b.WriteString(indent)
		for i, c := range t.cols {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			b.WriteString(strings.Repeat(" ", c.gap))
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if c.right {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
