package help

import (
	"fmt"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/scroll"
)

// helpKeyColumn is where the text of a key's line begins; keys that are
// longer push their own line's text right.
const helpKeyColumn = 15

// Page is what the ? screen shows besides the keys and the terms.
type Page struct {
	draw.Pen
	Keys *keymap.Map
	// Self says what gputop costs: its CPU and memory, its sampling lag.
	Self string
	// Notes are what the source noted and the store left out of the
	// readings; Checks every check made looking for GPUs.
	Notes, Checks []string
	// NoGPUs puts the source's part first: without GPUs the checks are
	// what the person came to ? for.
	NoGPUs bool
}

// Screen is the whole screen while ? is held open, height rows of the
// help's lines (Lines) from line top (clamped as ui clamps its
// scroll.Offset), the last row saying where it is and how to leave.
func (p *Page) Screen(out []string, top, height int) []string {
	// Scroll: the last row says where we are and how to leave.
	rows := height - 1
	top = scroll.At(top, len(out), rows)
	page := draw.PadBlank(out[top:], rows)
	k := p.Keys
	step := max(1, rows-1) // what pgdown moves: a page, less a line kept
	last := max(0, len(out)-rows)
	more := fmt.Sprintf(" page %d/%d %s %s line, %s/%s page, %s/%s; any other key closes",
		(top+step-1)/step+1, (last+step-1)/step+1, p.Glyph.Bar, k.HelpUp.Help().Key,
		k.HelpPageUp.Help().Key, k.HelpPageDown.Help().Key, k.HelpFirst.Help().Key, k.HelpLast.Help().Key)
	return append(page, p.Theme.Dim.Paint(p.Fit.FitWords(more, p.Width, false)))
}

// Lines is the help, every line cut to the screen's width.
func (p *Page) Lines() []string {
	out := []string{p.Theme.Title.Paint(" gputop help")}
	for _, g := range p.Keys.Groups {
		out = append(out, "", p.Theme.Title.Paint(" "+g.Title))
		for _, b := range g.Bindings {
			lead := fmt.Sprintf("  %-*s", helpKeyColumn-2, keymap.Names(b)+" ")
			out = append(out, p.Fit.HangingWords(lead, b.Text, p.Width, -1, 0)...)
		}
	}
	out = append(out, "", p.Theme.Title.Paint(" What the numbers and abbreviations mean"))
	for _, t := range Terms {
		term := t.Term
		if p.ASCII && t.ASCII != "" {
			term = t.ASCII
		}
		lead := fmt.Sprintf("  %-*s", helpTermColumn-2, term+" ")
		out = append(out, p.Fit.HangingWords(lead, t.Means, p.Width, helpTermColumn, 0)...)
	}
	out = append(out, "", p.Theme.Title.Paint(" gputop itself"))
	out = append(out, p.Fit.WrapWords("  "+p.Self, p.Width, 0)...)
	if source := p.source(); p.NoGPUs {
		// Without GPUs the checks are what the person came to ? for.
		out = append(out[:1], append(source, out[1:]...)...)
	} else {
		out = append(out, source...)
	}
	return out
}

// source is what the source noted and every check made while looking
// for GPUs.
func (p *Page) source() []string {
	notes := p.Notes
	if len(notes) == 0 && len(p.Checks) == 0 {
		return nil
	}
	out := []string{"", p.Theme.Title.Paint(" Source: what was looked for")}
	for _, n := range notes {
		for _, l := range p.Fit.WrapWords("  "+n, p.Width, 0) {
			out = append(out, p.Theme.Warn.Paint(l))
		}
	}
	for _, c := range p.Checks {
		out = append(out, p.Fit.WrapWords("  "+c, p.Width, 0)...)
	}
	return out
}
