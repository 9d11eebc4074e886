package ui

import (
	"fmt"
	"math"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/help"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// viewHelp is the whole screen while ? is held open: every key of the key
// table, what the numbers mean, what gputop itself costs, and every check
// made looking for GPUs (ui/help).
func (m *Model) viewHelp() string {
	p := m.helpPage()
	page, top := p.Screen(p.Lines(), m.helpTop, m.height)
	m.helpTop = top
	return m.fitRows(page)
}

// helpPage is the help of this session at the cursor.
func (m *Model) helpPage() *help.Page {
	return &help.Page{Pen: m.pen(), Keys: m.keys, Self: m.selfLine(), Notes: m.sourceNotes(), Checks: m.info.Checks,
		NoGPUs: len(m.info.GPUs) == 0}
}

// sourceNotes is what the source noted, then what the store left out of
// the readings.
func (m *Model) sourceNotes() []string {
	notes := m.info.Notes
	// What the store left out of the readings: values outside their
	// metric's physical range, samples far after the last.
	for _, o := range m.store.OutOfRange() {
		notes = append(notes[:len(notes):len(notes)], o.String())
	}
	if j := m.store.Jump(); j.Dropped > 0 {
		notes = append(notes[:len(notes):len(notes)], j.String())
	}
	return notes
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

// helpActions are the help's keys while it is open, as less's: the arrows
// a line, space and pgdown a page; any other key closes it, and quit quits
// as well.
func helpActions(k *keymap.Map) []action {
	on := func(s *keyFacts) bool { return s.help }
	page := func(m *Model) int { return max(1, m.height-2) } // a page, less a line kept from the last
	return []action{
		{b: &k.HelpUp, on: on, do: keyDo(func(m *Model) { m.helpTop-- })},
		{b: &k.HelpDown, on: on, do: keyDo(func(m *Model) { m.helpTop++ })},
		{b: &k.HelpPageUp, on: on, do: keyDo(func(m *Model) { m.helpTop -= page(m) })},
		{b: &k.HelpPageDown, on: on, do: keyDo(func(m *Model) { m.helpTop += page(m) })},
		{b: &k.HelpFirst, on: on, do: keyDo(func(m *Model) { m.helpTop = 0 })},
		{b: &k.HelpLast, on: on, do: keyDo(func(m *Model) { m.helpTop = math.MaxInt / 2 })}, // viewHelp stops it at the last page
		{do: func(m *Model, key tea.KeyMsg) tea.Cmd {
			m.showHelp = false
			if keyIs(key, &m.keys.Quit) {
				m.cancel()
				return tea.Quit
			}
			return nil
		}},
	}
}
