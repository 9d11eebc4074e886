package draw

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// Every text on screen meets its room here, in one way: it wraps where
// its panel has a second line for it (WrapWords), and is otherwise cut at
// a word with an ellipsis (FitWords), so a cut is never taken for the
// whole and never ends mid-word: "(99% of the 700W lim" becomes "(99% of
// the…". A word is whatever lies between spaces, so a number with its
// unit ("700W", "Gen5", "x16", "65.6/80.0GiB") is one word and is kept or
// dropped whole. A single word wider than its room (a long path or host
// name) is the one thing cut inside, and it ends in the ellipsis.
//
// The Line type (line.go) cuts through it too: a piece that does not fit
// what is left of its row is fitted, and nothing is added after a cut.
//
// With --ascii the ellipsis is "..." and any other non-ASCII character of
// the text (°C in a hint's evidence, "·") is written in ASCII first.

// Fitter holds what fitting depends on: the ellipsis and --ascii. Uncut
// draws every text whole, past its room: TestNoTextEndsMidWord draws each
// screen both ways and checks that every word cut is cut with the
// ellipsis.
type Fitter struct {
	ell   string
	ellW  int
	ascii bool
	Uncut bool
	// Offered keeps, when Uncut, every text the panels gave to be fitted:
	// the words a cut may be checked against.
	Offered *strings.Builder
}

// offer notes a text given to be fitted, when drawing uncut for the test.
func (f *Fitter) offer(s string) {
	if f.Offered != nil {
		f.Offered.WriteString(s)
		f.Offered.WriteByte('\n')
	}
}

// NewFitter is the fitter of glyphs g, writing ASCII only with ascii.
func NewFitter(g *Glyphs, ascii bool) Fitter {
	return Fitter{ell: g.Ellipsis, ellW: utf8.RuneCountInString(g.Ellipsis), ascii: ascii}
}

// unlimited is a row's room when the fitter draws everything whole.
const unlimited = 1 << 20

// Room is what a row of width w may hold: w, or everything when uncut.
func (f *Fitter) Room(w int) int {
	if f.Uncut {
		return unlimited
	}
	return w
}

// Words is s as the screen writes it: in ASCII with --ascii.
func (f *Fitter) Words(s string) string {
	if f.ascii && !IsASCII(s) {
		return toASCII(s)
	}
	return s
}

// asciiFor are the characters gputop's own texts and the analysis's use
// beyond ASCII, as --ascii writes them.
var asciiFor = strings.NewReplacer(
	"°C", "C", "°", "deg", "…", "...", "·", "-", "×", "x", "–", "-", "—", "-", "µ", "u",
	"≥", ">=", "≤", "<=", "→", "->", "←", "<-", "↑", "up", "↓", "dn", "▸", ">", "▶", ">", "⏸", "||",
	"●", "*", "⚠", "!", "│", "|", "━", "=", "─", "-", "‘", "'", "’", "'", "“", "\"", "”", "\"",
	"═", "=", "▲", "^", "▼", "v",
)

// toASCII writes s in ASCII: the known characters as above, any other
// character as "?".
func toASCII(s string) string {
	s = asciiFor.Replace(s)
	if IsASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}

// cellWidth is how many columns s takes: a column a rune for gputop's own
// text (it draws no wide characters), cells for text from outside.
func cellWidth(s string, outside bool) int {
	if outside && !IsASCII(s) {
		return ansi.StringWidth(s)
	}
	return utf8.RuneCountInString(s)
}

// FitWords cuts s to w columns at the end of a word, with the ellipsis
// after it; s whole if it fits. outside says s may hold wide characters.
func (f *Fitter) FitWords(s string, w int, outside bool) string {
	s = f.Words(s)
	f.offer(s)
	if f.Uncut || cellWidth(s, outside) <= w {
		return s
	}
	if w < f.ellW {
		return ""
	}
	if t := strings.TrimRight(s, " "); cellWidth(t, outside) <= w {
		return t
	}
	room := w - f.ellW
	// The longest run of whole words that leaves the ellipsis its room:
	// best is where the space after its last word begins.
	best := lastBreakWithin(s, room, outside)
	if best > 0 {
		kept := strings.TrimRight(s[:best], " ,;:")
		if strings.TrimSpace(kept) != "" {
			return kept + f.ell
		}
	}
	// One word wider than the room: cut inside it, the ellipsis saying so.
	return cutCells(s, room, outside) + f.ell
}

// lastBreakWithin is where the space after the last word of s that ends
// within room columns begins; -1 for none. Text that takes a column a rune
// (cellWidth) is read rune by rune: the hints are fitted at every frame,
// and telling graphemes apart was most of what that cost.
func lastBreakWithin(s string, room int, outside bool) int {
	best, col, inWord := -1, 0, false
	if !outside || IsASCII(s) {
		for start, r := range s {
			space := r == ' '
			if space && inWord {
				best = start
			}
			inWord = !space
			if col++; col > room {
				break
			}
		}
		return best
	}
	for g := uniseg.NewGraphemes(s); g.Next(); {
		start, _ := g.Positions()
		space := g.Str() == " "
		if space && inWord {
			best = start
		}
		inWord = !space
		if col += g.Width(); col > room {
			break
		}
	}
	return best
}

// cutCells is the longest prefix of s that takes at most n columns, never
// splitting a character.
func cutCells(s string, n int, outside bool) string {
	if n <= 0 {
		return ""
	}
	if !outside {
		return CutRunes(s, n)
	}
	col := 0
	for g := uniseg.NewGraphemes(s); g.Next(); {
		if col+g.Width() > n {
			start, _ := g.Positions()
			return s[:start]
		}
		col += g.Width()
	}
	return s
}

// WrapWords breaks text into lines of at most w columns at spaces, keeping
// the indent of its first line on the ones after, in at most maxLines
// lines (0: as many as it takes); the last line that has room ends in the
// fitted rest. A word wider than a whole line is broken across lines.
func (f *Fitter) WrapWords(text string, w, maxLines int) []string {
	text = f.Words(text)
	f.offer(text)
	indent := len(text) - len(strings.TrimLeft(text, " "))
	if w <= indent+1 {
		indent = 0
	}
	pad := strings.Repeat(" ", indent)
	return f.flow(pad, pad, strings.Fields(text), w, maxLines)
}

// HangingWords wraps text after a lead ("  util      ", kept as it is),
// the lines after the first indented by indent columns (where the text
// began if indent < 0).
func (f *Fitter) HangingWords(lead, text string, w, indent, maxLines int) []string {
	lead, text = f.Words(lead), f.Words(text)
	f.offer(lead + text)
	if indent < 0 {
		indent = utf8.RuneCountInString(lead)
	}
	if w <= indent+1 {
		indent = 0
	}
	return f.flow(lead, strings.Repeat(" ", indent), strings.Fields(text), w, maxLines)
}

// flow lays words out after first on the first line and after pad on the
// others, as WrapWords says.
func (f *Fitter) flow(first, pad string, words []string, w, maxLines int) []string {
	if len(words) == 0 {
		return []string{first}
	}
	var out []string
	// The line maxLines-1 (from 0) takes the rest where there is more:
	// its lead and the words from its first on.
	restLead, rest := "", ""
	lead, cur := first, first
	curW := utf8.RuneCountInString(cur)
	empty := true // nothing after the lead yet
	newLine := func() {
		out = append(out, cur)
		lead, cur, curW, empty = pad, pad, utf8.RuneCountInString(pad), true
	}
	for i := 0; i < len(words); i++ {
		if empty && maxLines > 0 && len(out) == maxLines-1 && rest == "" {
			restLead, rest = lead, strings.Join(words[i:], " ")
		}
		word := words[i]
		ww := utf8.RuneCountInString(word)
		sep := 1
		if empty && (lead == "" || strings.HasSuffix(lead, " ")) {
			sep = 0
		}
		switch {
		case curW+sep+ww <= w:
			cur += strings.Repeat(" ", sep) + word
			curW += sep + ww
			empty = false
		case !empty || len(out) == 0 && lead != pad && curW >= w/2:
			// The word goes on the next line (a long lead stays alone).
			newLine()
			i--
		default:
			// A word longer than a line: as much as fits, the rest next.
			head := CutRunes(word, max(1, w-curW-sep))
			cur += strings.Repeat(" ", sep) + head
			words[i] = word[len(head):]
			newLine()
			i--
		}
	}
	if !empty || len(out) == 0 {
		out = append(out, cur)
	}
	if maxLines > 0 && len(out) > maxLines && !f.Uncut {
		out = append(out[:maxLines-1], f.FitWords(restLead+rest, w, false))
	}
	return out
}

// FitRow is the last guard of every row View draws: a painted row wider
// than the screen (a plot, a line built by hand) is cut with the ellipsis,
// never mid-character or mid-escape.
func (f *Fitter) FitRow(s string, w int) string {
	if f.ascii && !IsASCII(ansi.Strip(s)) {
		s = toASCII(s)
	}
	if f.Uncut || VisibleWidth(s) <= w {
		return s
	}
	if w < f.ellW {
		return ansi.Truncate(s, w, "")
	}
	plain := ansi.Strip(s)
	if plain == s {
		return f.FitWords(s, w, false)
	}
	return ansi.Truncate(s, w-f.ellW, "") + f.ell
}
