package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
)

// helpTerms say what the numbers on the screen mean.
var helpTerms = []struct{ term, means string }{
	{"util", "share of time at least one kernel ran (NVML, coarse): a kernel on a fifth of the SMs reads 100 %. The mean of every sub-second sample, with (min-max) beside it."},
	{"SM", "share of SMs busy (GPM, Hopper and newer; profiling-grade). Trust it over util."},
	{"UTIL", "in the process table: NVML's per-process utilisation, the share of time one of the process's kernels ran; as coarse as util, not SM activity."},
	{"pwr", "power draw, from the energy counter where the GPU has one. High util at low power means kernels are resident but waiting (a collective, a spin)."},
	{"PWR, HOT", "clocks held back right now by the power cap, or by heat."},
	{"N/A", "the GPU or driver does not report it. gputop never shows an unknown as 0."},
}

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
	page := padBlank(out[m.helpTop:], rows)
	scroll := m.keys.helpUp.Help()
	more := fmt.Sprintf(" lines %d-%d of %d %s %s %s, any other key closes",
		m.helpTop+1, min(len(out), m.helpTop+rows), len(out), m.glyph.bar, scroll.Key, scroll.Desc)
	return m.fitRows(append(page, m.theme.dim.paint(m.fit.fitWords(more, m.width, false))))
}

// helpLines is the help, every line cut to the screen's width.
func (m *Model) helpLines() []string {
	out := []string{m.theme.title.paint(" gputop help")}
	for _, g := range m.keys.groups {
		out = append(out, "", m.theme.title.paint(" "+g.title))
		for _, b := range g.bindings {
			lead := "  " + keyNames(b) + " "
			lead += strings.Repeat(" ", max(0, helpKeyColumn-utf8.RuneCountInString(lead)))
			out = append(out, m.fit.hangingWords(lead, b.text, m.width, -1, 0)...)
		}
	}
	out = append(out, "", m.theme.title.paint(" What the numbers mean"))
	for _, t := range helpTerms {
		out = append(out, m.fit.hangingWords("  "+padRight(t.term, 10), t.means, m.width, -1, 0)...)
	}
	out = append(out, "", m.theme.title.paint(" gputop itself"))
	out = append(out, m.fit.wrapWords("  "+m.selfLine(), m.width, 0)...)
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
	out := []string{"", m.theme.title.paint(" Source: what was looked for")}
	for _, n := range notes {
		for _, l := range m.fit.wrapWords("  "+n, m.width, 0) {
			out = append(out, m.theme.warn.paint(l))
		}
	}
	for _, c := range m.info.Checks {
		out = append(out, m.fit.wrapWords("  "+c, m.width, 0)...)
	}
	return out
}

// selfLine says what gputop costs: its CPU and memory and how late its
// samples were, from its own probe at the cursor.
func (m *Model) selfLine() string {
	at := m.play.cursor
	v := func(name string) float64 {
		return m.store.ValueAt(timeline.Key{Name: name, Device: timeline.SelfDevice}, at)
	}
	cpu := v(timeline.ProcCPU)
	cpuText := na
	if !math.IsNaN(cpu) {
		cpuText = strconv.FormatFloat(cpu, 'f', 1, 64) + "%"
	}
	overruns := "N/A"
	if n := v(timeline.SampleOverruns); !math.IsNaN(n) {
		overruns = strconv.FormatFloat(n, 'f', 0, 64)
	}
	return fmt.Sprintf("CPU %s of one core, memory %s, sampling lag %s, %s ticks overran their interval, %d samples held",
		cpuText, fmtBytes(v(timeline.ProcRSS)), fmtValue(timeline.SampleLag, v(timeline.SampleLag), m.ascii), overruns, m.store.Len())
}
