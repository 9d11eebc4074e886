package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// helpKeyColumn is where the text of a key's line begins; keys that are
// longer push their own line's text right.
const helpKeyColumn = 15

// viewHelp is the whole screen while ? is held open: every key of the key
// table, what the numbers mean, what gputop itself costs, and every check
// made looking for GPUs.
func (m *Model) viewHelp() string {
	out := m.helpLines()
	// Scroll: the last row says where we are and how to leave.
	rows := m.height - 1
	m.helpTop = max(0, min(m.helpTop, len(out)-rows))
	page := draw.PadBlank(out[m.helpTop:], rows)
	k := m.keys
	step := max(1, rows-1) // what pgdown moves: a page, less a line kept
	last := max(0, len(out)-rows)
	more := fmt.Sprintf(" page %d/%d %s %s line, %s/%s page, %s/%s; any other key closes",
		(m.helpTop+step-1)/step+1, (last+step-1)/step+1, m.glyph.Bar, k.HelpUp.Help().Key,
		k.HelpPageUp.Help().Key, k.HelpPageDown.Help().Key, k.HelpFirst.Help().Key, k.HelpLast.Help().Key)
	return m.fitRows(append(page, m.theme.Dim.Paint(m.fit.FitWords(more, m.width, false))))
}

// helpLines is the help, every line cut to the screen's width.
func (m *Model) helpLines() []string {
	out := []string{m.theme.Title.Paint(" gputop help")}
	for _, g := range m.keys.Groups {
		out = append(out, "", m.theme.Title.Paint(" "+g.Title))
		for _, b := range g.Bindings {
			lead := "  " + keymap.Names(b) + " "
			lead += strings.Repeat(" ", max(0, helpKeyColumn-utf8.RuneCountInString(lead)))
			out = append(out, m.fit.HangingWords(lead, b.Text, m.width, -1, 0)...)
		}
	}
	out = append(out, "", m.theme.Title.Paint(" What the numbers and abbreviations mean"))
	for _, t := range helpTerms {
		term := t.term
		if m.ascii && t.ascii != "" {
			term = t.ascii
		}
		lead := "  " + term + " "
		lead += strings.Repeat(" ", max(0, helpTermColumn-utf8.RuneCountInString(lead)))
		out = append(out, m.fit.HangingWords(lead, t.means, m.width, helpTermColumn, 0)...)
	}
	out = append(out, "", m.theme.Title.Paint(" gputop itself"))
	out = append(out, m.fit.WrapWords("  "+m.selfLine(), m.width, 0)...)
	if source := m.helpSource(); len(m.info.GPUs) == 0 {
		// Without GPUs the checks are what the person came to ? for.
		out = append(out[:1], append(source, out[1:]...)...)
	} else {
		out = append(out, source...)
	}
	return out
}

// helpSource is what the source noted and every check made while looking
// for GPUs.
func (m *Model) helpSource() []string {
	notes := m.info.Notes
	// What the store left out of the readings: values outside their
	// metric's physical range, samples far after the last.
	for _, o := range m.store.OutOfRange() {
		notes = append(notes[:len(notes):len(notes)], o.String())
	}
	if j := m.store.Jump(); j.Dropped > 0 {
		notes = append(notes[:len(notes):len(notes)], j.String())
	}
	if len(notes) == 0 && len(m.info.Checks) == 0 {
		return nil
	}
	out := []string{"", m.theme.Title.Paint(" Source: what was looked for")}
	for _, n := range notes {
		for _, l := range m.fit.WrapWords("  "+n, m.width, 0) {
			out = append(out, m.theme.Warn.Paint(l))
		}
	}
	for _, c := range m.info.Checks {
		out = append(out, m.fit.WrapWords("  "+c, m.width, 0)...)
	}
	return out
}

// selfLine says what gputop costs: its CPU and memory and how late its
// samples were, from its own probe at the cursor.
func (m *Model) selfLine() string {
	at := m.play.Cursor
	v := func(name string) float64 {
		return m.store.ValueAt(timeline.Key{Name: name, Device: timeline.SelfDevice}, at)
	}
	cpu := v(timeline.ProcCPU)
	cpuText := draw.NA
	if !math.IsNaN(cpu) {
		cpuText = strconv.FormatFloat(cpu, 'f', 1, 64) + "%"
	}
	overruns := "N/A"
	if n := v(timeline.SampleOverruns); !math.IsNaN(n) {
		overruns = strconv.FormatFloat(n, 'f', 0, 64)
	}
	return fmt.Sprintf("CPU %s of one core, memory %s, sampling lag %s, %s ticks overran their interval, %d samples held",
		cpuText, draw.Bytes(v(timeline.ProcRSS)), draw.Value(timeline.SampleLag, v(timeline.SampleLag), m.ascii), overruns, m.store.Len())
}
