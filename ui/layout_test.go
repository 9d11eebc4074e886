package ui

import (
	"testing"

	"github.com/gputop-dev/gputop/ui/layout"
)

// TestLayoutCountsTheSparkRows: the rows the layout gives a GPU block are
// the rows the GPU list has to draw.
func TestLayoutCountsTheSparkRows(t *testing.T) {
	for _, sm := range []bool{false, true} {
		if got, want := layout.SparkRows(sm), len(sparkRows(sm)); got != want {
			t.Errorf("with SM %v the layout counts %d sparkline rows, the GPU list has %d", sm, got, want)
		}
	}
}

// Give spares a panel's rows whole where it can, else its least, else
// none, and never takes a part below its least: the process table below
// five rows, the detail pane below its least, the hints below three.
func TestLayoutGive(t *testing.T) {
	for _, c := range []struct {
		l                 layout.Layout
		whole, least, got int
	}{
		{layout.Layout{Fits: true, BlankRows: 2, Procs: 7, Detail: 9}, 5, 1, 5},
		{layout.Layout{Fits: true, Procs: 5, Detail: 9}, 5, 1, 1},
		{layout.Layout{Fits: true, Detail: 7, Hints: 4}, 5, 1, 1},
		{layout.Layout{Fits: true, Detail: 7, Hints: 3}, 5, 1, 0},
		{layout.Layout{Fits: false, BlankRows: 9}, 5, 1, 0},
		{layout.Layout{Fits: true, BlankRows: 9}, 0, 0, 0},
	} {
		l := c.l
		before := l.BlankRows + l.Procs + l.Detail + l.Hints
		got := l.Give(c.whole, c.least, 3)
		if got != c.got || l.BlankRows+l.Procs+l.Detail+l.Hints != before-got {
			t.Errorf("%+v: gave %d, want %d; left %+v", c.l, got, c.got, l)
		}
		if l.Procs > 0 && l.Procs < 5 || l.Detail > 0 && l.Detail < layout.MinDetailRows || c.l.Hints >= 3 && l.Hints < 3 {
			t.Errorf("%+v: a part below its least: %+v", c.l, l)
		}
	}
}
