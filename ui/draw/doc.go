// Package draw holds the screen's drawing primitives, which every panel of
// ui draws with: a row built from painted pieces that never wraps (Line),
// the one way a text meets its room (Fitter: wrapped where there is a
// line for it, otherwise cut at a word with the ellipsis), the inks of a
// theme, the glyphs (Unicode, or ASCII with --ascii), sparklines, the
// numbers beside them (Field, FillRow) and the screen's formatters.
//
// Everything here is a function of strings, numbers and times: no store,
// no model, no clock. It imports timeline's vocabulary and units, lipgloss
// (for a theme's escape sequences) and the width of text, and nothing else
// of gputop, so any panel package may import it.
package draw
