package ui

import (
	"github.com/gputop-dev/gputop/ui/band"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// viewPhaseBand is the row under the GPUs that says what the job was doing
// in each column of the sparklines above it (band.Phases).
func (m *Model) viewPhaseBand(f *frame) string {
	ln := m.bandRow("phase")
	if m.store.Len() == 0 {
		return ln.String()
	}
	return band.Phases(m.pen(), ln, f.from, f.to, m.lay.Spark, m.an.phases, m.store.Markers())
}

// viewHintBand marks, under the phase band, when each hint listed held
// (band.Hints).
func (m *Model) viewHintBand(f *frame) string {
	ln := m.bandRow("hints")
	if m.store.Len() == 0 {
		return ln.String()
	}
	return band.Hints(m.pen(), ln, f.from, f.to, m.lay.Spark, m.an.shown)
}

// bandRow starts a row that lines up with the sparklines: its label, then
// padding to the column where the sparklines begin.
func (m *Model) bandRow(label string) *draw.Line {
	ln := m.newLine(m.width)
	prefix := m.lay.Label
	if m.lay.GPURows > 1 {
		prefix += layout.RowLabelWidth
		ln.Pad(m.lay.Label).Add(draw.PadRight(label, layout.RowLabelWidth), m.theme.Dim)
	} else {
		ln.Add(draw.PadRight(label, m.lay.Label), m.theme.Dim)
	}
	return ln.Pad(prefix)
}

// pen is what the panels draw with.
func (m *Model) pen() draw.Pen {
	return draw.Pen{Theme: &m.theme, Glyph: m.glyph, Fit: &m.fit, ASCII: m.ascii, Width: m.width}
}
