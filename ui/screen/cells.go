package screen

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// cell is one column of the screen: a grapheme and the SGR parameters it is
// drawn with ("" is the terminal's default). The right half of a wide
// grapheme is a cell with no text.
type cell struct {
	text  string
	style string
}

var blankCell = cell{text: " "}

// grid is a screen's worth of cells.
type grid struct {
	w, h  int
	cells []cell
	// odd marks rows with a grapheme outside the plain narrow set (wide,
	// combining, scripts that join). They are redrawn whole, as bubbletea
	// would: terminals disagree about such text, and only a process's
	// command line or a marker's text brings it onto gputop's screens.
	odd []bool
}

func newGrid(w, h int) *grid {
	g := &grid{w: w, h: h, cells: make([]cell, w*h), odd: make([]bool, h)}
	g.clear()
	return g
}

func (g *grid) row(y int) []cell { return g.cells[y*g.w : (y+1)*g.w] }

func (g *grid) clear() {
	for i := range g.cells {
		g.cells[i] = blankCell
	}
	clear(g.odd)
}

// parse lays out a view: lines split at '\n' and cut at the width, lines
// below the height dropped. SGR sequences set the style of the cells after
// them; other escape sequences and control characters are dropped, since
// a view only positions text by its lines.
func (g *grid) parse(view string) {
	g.clear()
	for y := 0; y < g.h && len(view) > 0; y++ {
		var line string
		line, view, _ = strings.Cut(view, "\n")
		g.parseLine(y, line)
	}
}

func (g *grid) parseLine(y int, line string) {
	row := g.row(y)
	x, style := 0, ""
	var state byte
	for len(line) > 0 && x < g.w {
		if n := plainPrefix(line); n > 0 && state == ansi.NormalState {
			// The common case, without grapheme segmentation: a plain
			// character not followed by anything that could join it.
			row[x] = cell{text: line[:n], style: style}
			x++
			line = line[n:]
			continue
		}
		seq, width, n, next := ansi.DecodeSequence(line, state, nil)
		state, line = next, line[n:]
		if seq[0] >= 0x80 && !utf8.ValidString(seq) {
			// Terminals disagree on broken UTF-8; draw what most show.
			seq, width = "\uFFFD", 1
		}
		switch {
		case width == 1:
			row[x] = cell{text: seq, style: style}
			x++
			if !plainGrapheme(seq) {
				g.odd[y] = true
			}
		case width == 2:
			if x+2 > g.w {
				return
			}
			row[x], row[x+1] = cell{text: seq, style: style}, cell{style: style}
			x += 2
			g.odd[y] = true
		case width > 2:
			return // no such grapheme on a terminal grid; stop the line here
		case seq[0] == ansi.ESC:
			if params, ok := sgrParams(seq); ok {
				style = applySGR(style, params)
			}
		case seq[0] >= 0x20 && seq[0] != 0x7f && x > 0:
			// A zero-width grapheme (a lone combining mark) joins the
			// cell before it.
			row[x-1].text += seq
			g.odd[y] = true
		}
	}
}

// sgrParams returns the parameters of a Select Graphic Rendition sequence.
func sgrParams(seq string) (string, bool) {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return "", false
	}
	p := seq[2 : len(seq)-1]
	if p != "" && (p[0] < '0' || p[0] > '9') {
		return "", false // a private sequence that happens to end in m
	}
	return p, true
}

// applySGR returns the style after an SGR sequence. A style is the list of
// parameters since the last reset, so writing "CSI 0;style m" reproduces
// exactly what the view asked for without interpreting colours.
func applySGR(style, params string) string {
	switch {
	case params == "" || params == "0":
		return ""
	case strings.HasPrefix(params, "0;"):
		return params[2:]
	case style == "":
		return params
	default:
		return style + ";" + params
	}
}

// plainGrapheme says whether a narrow grapheme is one every terminal draws
// in exactly one cell on its own: one code point from the ranges gputop's
// screens are made of (Latin, punctuation, arrows, box drawing, blocks,
// shapes, Braille).
func plainGrapheme(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && plainRune(r)
}

func plainRune(r rune) bool {
	switch {
	case r < 0x300:
		return r >= 0x20 && (r < 0x7f || r >= 0xa0) && r != 0xad
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e:
		return true // dashes, quotes, bullets, ellipsis; not the invisible ones
	case r >= 0x2190 && r <= 0x21ff, r >= 0x2500 && r <= 0x25ff, r >= 0x2800 && r <= 0x28ff:
		return true
	}
	return false
}

// plainPrefix is the length of the first character of s if it is a plain
// grapheme on its own: plain, and followed by the end, an escape sequence
// or another plain character (none of which join what precedes them).
func plainPrefix(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !plainRune(r) {
		return 0
	}
	if n < len(s) && s[n] != ansi.ESC {
		if next, _ := utf8.DecodeRuneInString(s[n:]); !plainRune(next) {
			return 0
		}
	}
	return n
}
