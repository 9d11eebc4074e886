package ui

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/help"
)

// viewHelp is the whole screen while ? is held open: every key of the key
// table, what the numbers mean, what gputop itself costs, and every check
// made looking for GPUs (ui/help).
func (f *frame) viewHelp() string {
	p := f.helpPage()
	return f.fitRows(p.Screen(p.Lines(), f.help.Top(), f.height))
}

// helpPage is the help of this session at the cursor.
func (m *Model) helpPage() *help.Page {
	return &help.Page{Pen: m.pen(), Keys: m.keys.Map, Self: m.selfLine(m.play.Cursor, m.ascii), Notes: m.sourceNotes(), Checks: m.info.Checks,
		NoGPUs: len(m.info.GPUs) == 0}
}

// sourceNotes is what the source noted, then what the store left out of
// the readings.
func (s *session) sourceNotes() []string {
	notes := s.info.Notes
	// What the store left out of the readings: values outside their
	// metric's physical range, samples far after the last.
	for _, o := range s.store.OutOfRange() {
		notes = append(notes[:len(notes):len(notes)], o.String())
	}
	if j := s.store.Jump(); j.Dropped > 0 {
		notes = append(notes[:len(notes):len(notes)], j.String())
	}
	return notes
}

// selfLine says what gputop costs: its CPU and memory and how late its
// samples were, from its own probe at the cursor (at).
func (s *session) selfLine(at time.Time, ascii bool) string {
	v := func(name string) float64 { return s.value(name, timeline.SelfDevice, at) }
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
		cpuText, draw.Bytes(v(timeline.ProcRSS)), draw.Value(timeline.SampleLag, v(timeline.SampleLag), ascii), overruns, s.store.Len())
}
