package ui

import (
	"github.com/gputop-dev/gputop/ui/band"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// viewPhaseBand is the row under the GPUs that says what the job was doing
// in each column of the sparklines above it (band.Phases).
func (f *frame) viewPhaseBand() string {
	ln := f.bandRow("phase")
	if f.store.Len() == 0 {
		return ln.String()
	}
	return band.Phases(f.pen(), ln, f.from, f.to, f.lay.Spark, f.an.phases, f.store.Markers())
}

// viewHintBand marks, under the phase band, when each hint listed held
// (band.Hints).
func (f *frame) viewHintBand() string {
	ln := f.bandRow("hints")
	if f.store.Len() == 0 {
		return ln.String()
	}
	return band.Hints(f.pen(), ln, f.from, f.to, f.lay.Spark, f.an.shown)
}

// bandRow starts a row that lines up with the sparklines: its label, then
// padding to the column where the sparklines begin.
func (f *frame) bandRow(label string) *draw.Line {
	ln := f.newLine(f.width)
	prefix := f.lay.Label
	if f.lay.GPURows > 1 {
		prefix += layout.RowLabelWidth
		ln.Pad(f.lay.Label).Add(draw.PadRight(label, layout.RowLabelWidth), f.theme.Dim)
	} else {
		ln.Add(draw.PadRight(label, f.lay.Label), f.theme.Dim)
	}
	return ln.Pad(prefix)
}

// pen is what the panels draw with.
func (s *look) pen() draw.Pen {
	return draw.Pen{Theme: &s.theme, Glyph: s.glyph, Fit: &s.fit, ASCII: s.ascii, Width: s.width}
}
