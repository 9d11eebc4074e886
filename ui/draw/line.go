package draw

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/gputop-dev/gputop/timeline"
)

// Line builds one screen row from painted pieces while counting the width
// of the visible text, so no row ever wraps. A piece that does not fit is
// fitted (fit.go): cut at a word, with the ellipsis; after it the row is
// full.
type Line struct {
	b     strings.Builder
	w     int
	limit int
	fit   *Fitter
	full  bool // a piece was cut: nothing more goes on the row
}

// NewLine starts a row of at most limit columns, fitted by f.
func NewLine(f *Fitter, limit int) *Line {
	return &Line{limit: f.Room(limit), fit: f}
}

// SetLimit changes the row's room (a part of the row kept for something
// else, given back).
func (l *Line) SetLimit(n int) { l.limit, l.full = l.fit.Room(n), false }

// Add appends s painted with k, fitted to what is left of the row.
func (l *Line) Add(s string, k Ink) *Line {
	if l.full {
		return l
	}
	l.fit.offer(s)
	n := utf8.RuneCountInString(s)
	if l.w+n > l.limit || l.fit.ascii && !IsASCII(s) {
		s = l.fit.Words(s)
		n = utf8.RuneCountInString(s)
		if l.w+n > l.limit {
			s = l.fit.FitWords(s, l.limit-l.w, false)
			n = utf8.RuneCountInString(s)
			l.full = true
		}
	}
	return l.AddCells(s, n, k) // n fits: fitted to what was left
}

// AddText appends text from outside gputop (a process's command line),
// which may hold wide characters or escape codes: measured in cells,
// fitted to what is left, control characters blanked.
func (l *Line) AddText(s string, k Ink) *Line {
	s = timeline.CleanText(s)
	if IsASCII(s) {
		return l.Add(s, k)
	}
	if l.full {
		return l
	}
	s = l.fit.Words(s)
	l.fit.offer(s)
	if room := l.limit - l.w; ansi.StringWidth(s) > room {
		s = l.fit.FitWords(s, room, true)
		l.full = true
	}
	n := ansi.StringWidth(s)
	if n == 0 {
		return l
	}
	l.b.WriteString(k.Paint(s))
	l.w += n
	return l
}

// IsASCII says whether s is ASCII only.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// AddCells appends s, which the caller has laid out to take exactly cols
// columns (wide characters included), painted with k: the phase band,
// which places every grapheme in its column itself, and Add once it has
// fitted s.
func (l *Line) AddCells(s string, cols int, k Ink) *Line {
	if cols <= 0 || l.w+cols > l.limit {
		return l
	}
	l.b.WriteString(k.Paint(s))
	l.w += cols
	return l
}

// Pad adds spaces up to column col.
func (l *Line) Pad(col int) *Line {
	col = min(col, l.limit)
	if col > l.w {
		l.b.WriteString(strings.Repeat(" ", col-l.w))
		l.w = col
	}
	return l
}

// Width is the columns the row has taken so far.
func (l *Line) Width() int { return l.w }

// String is the row as drawn.
func (l *Line) String() string { return l.b.String() }

// CutRunes is s cut to its first n runes.
func CutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// PadLeft right-aligns s in w columns.
func PadLeft(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", w-n) + s
}

// PadRight left-aligns s in w columns, cutting it if longer.
func PadRight(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n > w {
		return CutRunes(s, w)
	}
	return s + strings.Repeat(" ", w-n)
}

// VisibleWidth counts the columns of a line the screen draws: every rune
// is one column (gputop draws no wide characters) and escape sequences
// take none. It is what ansi.StringWidth says of gputop's own lines, for a
// tenth of the cost: no grapheme segmentation on every row every second.
func VisibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i++
			if i < len(s) && s[i] == '[' {
				// CSI: parameters, then a final byte in 0x40-0x7e.
				for i++; i < len(s) && (s[i] < 0x40 || s[i] > 0x7e); i++ {
				}
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// BlankLines is n empty rows.
func BlankLines(n int) []string { return make([]string, max(0, n)) }

// PadBlank makes lines exactly n long, adding blank lines or cutting.
func PadBlank(lines []string, n int) []string {
	if len(lines) >= n {
		return lines[:n]
	}
	return append(lines, BlankLines(n-len(lines))...)
}
