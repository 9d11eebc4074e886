package draw

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/gputop-dev/gputop/timeline"
)

// Ink paints text in one style. It holds the style's escape sequences,
// taken once from lipgloss, because the screen is painted from hundreds of
// small pieces every second and a full lipgloss Render for each costs more
// than the rest of View together.
type Ink struct{ pre, post string }

func newInk(r *lipgloss.Renderer, s lipgloss.Style) Ink {
	pre, post, ok := strings.Cut(s.Renderer(r).Render("x"), "x")
	if !ok {
		return Ink{}
	}
	return Ink{pre: pre, post: post}
}

// Paint is s in the ink's style.
func (k Ink) Paint(s string) string {
	if k.pre == "" || s == "" {
		return s
	}
	return k.pre + s + k.post
}

// WarnIf is the warning's ink where bad (iowait of 10 % or more, swap in
// use, an idle GPU), else none.
func (t *Theme) WarnIf(bad bool) Ink {
	if bad {
		return t.Warn
	}
	return Ink{}
}

// Severity is the ink of a hint of severity s (the hints panel's, the hint
// band's spans): none for no severity.
func (t *Theme) Severity(s timeline.Severity) Ink {
	switch s {
	case timeline.Critical:
		return t.Crit
	case timeline.Warning:
		return t.Warn
	case timeline.Info:
		return t.Dim
	}
	return Ink{}
}

// Theme is every ink the screen uses. Colours are from the basic ANSI
// sixteen, so they follow the user's terminal palette.
type Theme struct {
	Title, Dim, Bold, Sel Ink
	Util, SM, Mem, Power  Ink
	Temp, Host, Core      Ink
	OK, Warn, Crit        Ink
	Rec, Live, Paused     Ink
	// Plain is true when there is no colour (NO_COLOR or a dumb terminal):
	// anything colour alone would say must then be said in letters.
	Plain bool
}

// NewTheme is the theme of renderer r; plain has no colour at all.
func NewTheme(r *lipgloss.Renderer, plain bool) Theme {
	if plain {
		return Theme{Plain: true}
	}
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	mk := func(s lipgloss.Style) Ink { return newInk(r, s) }
	return Theme{
		Title:  mk(lipgloss.NewStyle().Bold(true)),
		Dim:    mk(fg("8")),
		Bold:   mk(lipgloss.NewStyle().Bold(true)),
		Sel:    mk(lipgloss.NewStyle().Reverse(true)),
		Util:   mk(fg("2")),
		SM:     mk(fg("6")),
		Mem:    mk(fg("5")),
		Power:  mk(fg("3")),
		Temp:   mk(fg("1")),
		Host:   mk(fg("4")),
		Core:   mk(fg("4")),
		OK:     mk(fg("2")),
		Warn:   mk(fg("3").Bold(true)),
		Crit:   mk(fg("1").Bold(true)),
		Rec:    mk(fg("1").Bold(true)),
		Live:   mk(fg("2").Bold(true)),
		Paused: mk(fg("3").Bold(true)),
	}
}

// Glyphs are the characters the screen draws with: Unicode by default,
// plain ASCII with --ascii for terminals (or fonts) without it.
type Glyphs struct {
	Levels   []string // sparkline heights, lowest first
	Gap      string   // no data
	Sep      string   // between header fields
	Live     string
	Paused   string
	Playing  string
	Ellipsis string
	Warn     string
	Bar      string // separates the footer's message from its keys
	Sel      string // marks the selected GPU, host or process
}

// UnicodeGlyphs are the default glyphs.
var UnicodeGlyphs = Glyphs{
	Levels:   []string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	Gap:      " ",
	Sep:      " · ",
	Live:     "●",
	Paused:   "⏸",
	Playing:  "▶",
	Ellipsis: "…",
	Warn:     "⚠",
	Bar:      "│",
	Sel:      "▸",
}

// ASCIIGlyphs are --ascii's.
var ASCIIGlyphs = Glyphs{
	Levels:   []string{"_", ".", ":", "-", "=", "+", "*", "#"},
	Gap:      " ",
	Sep:      " | ",
	Live:     "*",
	Paused:   "||",
	Playing:  ">",
	Ellipsis: "...",
	Warn:     "!",
	Bar:      "|",
	Sel:      ">",
}
