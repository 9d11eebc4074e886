package draw

import (
	"math"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// Spark draws one row of bars, one per column, each the column's mean
// scaled from lo to hi. A gap (no data) is blank, and the lowest bar means
// zero, so a GPU at 0 % is visibly different from a GPU nobody could read.
func (g *Glyphs) Spark(cols []timeline.Agg, lo, hi float64) string {
	var b strings.Builder
	b.Grow(len(cols) * 3)
	for _, c := range cols {
		b.WriteString(g.Level(c.Mean, lo, hi))
	}
	return b.String()
}

// Level is the bar for one value.
func (g *Glyphs) Level(v, lo, hi float64) string {
	if math.IsNaN(v) {
		return g.Gap
	}
	if !(hi > lo) {
		return g.Levels[0]
	}
	n := len(g.Levels)
	i := int(math.Round((v - lo) / (hi - lo) * float64(n-1)))
	return g.Levels[min(max(i, 0), n-1)]
}

// Bars draws a single bar per value (per-core CPU).
func (g *Glyphs) Bars(vals []float64, lo, hi float64) string {
	var b strings.Builder
	b.Grow(len(vals) * 3)
	for _, v := range vals {
		b.WriteString(g.Level(v, lo, hi))
	}
	return b.String()
}
