package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// ink paints text in one style. It holds the style's escape sequences,
// taken once from lipgloss, because the screen is painted from hundreds of
// small pieces every second and a full lipgloss Render for each costs more
// than the rest of View together.
type ink struct{ pre, post string }

func newInk(r *lipgloss.Renderer, s lipgloss.Style) ink {
	out := s.Renderer(r).Render("x")
	i := strings.Index(out, "x")
	if i < 0 {
		return ink{}
	}
	return ink{pre: out[:i], post: out[i+1:]}
}

func (k ink) paint(s string) string {
	if k.pre == "" || s == "" {
		return s
	}
	return k.pre + s + k.post
}

// theme is every ink the screen uses. Colours are from the basic ANSI
// sixteen, so they follow the user's terminal palette.
type theme struct {
	title, dim, bold, sel ink
	util, sm, mem, power  ink
	temp, host, core      ink
	ok, warn, crit        ink
	rec, live, paused     ink
	// plain is true when there is no colour (NO_COLOR or a dumb terminal):
	// anything colour alone would say must then be said in letters.
	plain bool
}

func newTheme(r *lipgloss.Renderer, plain bool) theme {
	if plain {
		return theme{plain: true}
	}
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	mk := func(s lipgloss.Style) ink { return newInk(r, s) }
	return theme{
		title:  mk(lipgloss.NewStyle().Bold(true)),
		dim:    mk(fg("8")),
		bold:   mk(lipgloss.NewStyle().Bold(true)),
		sel:    mk(lipgloss.NewStyle().Reverse(true)),
		util:   mk(fg("2")),
		sm:     mk(fg("6")),
		mem:    mk(fg("5")),
		power:  mk(fg("3")),
		temp:   mk(fg("1")),
		host:   mk(fg("4")),
		core:   mk(fg("4")),
		ok:     mk(fg("2")),
		warn:   mk(fg("3").Bold(true)),
		crit:   mk(fg("1").Bold(true)),
		rec:    mk(fg("1").Bold(true)),
		live:   mk(fg("2").Bold(true)),
		paused: mk(fg("3").Bold(true)),
	}
}

// glyphs are the characters the screen draws with: Unicode by default,
// plain ASCII with --ascii for terminals (or fonts) without it.
type glyphs struct {
	levels   []string // sparkline heights, lowest first
	gap      string   // no data
	sep      string   // between header fields
	live     string
	paused   string
	playing  string
	ellipsis string
	warn     string
	bar      string // separates the footer's message from its keys
}

var unicodeGlyphs = glyphs{
	levels:   []string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	gap:      " ",
	sep:      " · ",
	live:     "●",
	paused:   "⏸",
	playing:  "▶",
	ellipsis: "…",
	warn:     "⚠",
	bar:      "│",
}

var asciiGlyphs = glyphs{
	levels:   []string{"_", ".", ":", "-", "=", "+", "*", "#"},
	gap:      " ",
	sep:      " | ",
	live:     "*",
	paused:   "||",
	playing:  ">",
	ellipsis: "...",
	warn:     "!",
	bar:      "|",
}
