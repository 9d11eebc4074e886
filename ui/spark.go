package ui

import (
	"math"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// spark draws one row of bars, one per column, each the column's mean
// scaled from lo to hi. A gap (no data) is blank, and the lowest bar means
// zero, so a GPU at 0 % is visibly different from a GPU nobody could read.
func (g *glyphs) spark(cols []timeline.Agg, lo, hi float64) string {
	var b strings.Builder
	b.Grow(len(cols) * 3)
	for _, c := range cols {
		b.WriteString(g.level(c.Mean, lo, hi))
	}
	return b.String()
}

// level is the bar for one value.
func (g *glyphs) level(v, lo, hi float64) string {
	if math.IsNaN(v) {
		return g.gap
	}
	if !(hi > lo) {
		return g.levels[0]
	}
	n := len(g.levels)
	i := int(math.Round((v - lo) / (hi - lo) * float64(n-1)))
	if i < 0 {
		i = 0
	}
	if i >= n {
		i = n - 1
	}
	return g.levels[i]
}

// bars draws a single bar per value (per-core CPU).
func (g *glyphs) bars(vals []float64, lo, hi float64) string {
	var b strings.Builder
	b.Grow(len(vals) * 3)
	for _, v := range vals {
		b.WriteString(g.level(v, lo, hi))
	}
	return b.String()
}
