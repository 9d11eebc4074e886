package ui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// nvlinkRow is the detail pane's row of the selected GPU's NVLink links at
// the cursor: one cell per link, in link id order, its height the link's
// data rate against the busiest link's, a cross for a link down, painted
// as a warning where the link counted errors; then the links' typical
// rate and which are down or erring, by id. Empty for a GPU without
// NVLink (or a recording from before links were kept).
func (f *frame) nvlinkRow(dev string, at time.Time) string {
	val := func(name string) float64 { return f.value(name, dev, at) }
	ids := timeline.LinkIDs(val(timeline.GPUNVLinkLinks))
	if len(ids) == 0 {
		return ""
	}
	down := val(timeline.GPUNVLinkDown)
	isDown := func(l int) bool { return !math.IsNaN(down) && uint64(down)&(1<<l) != 0 }
	rates := make([]float64, len(ids))
	hi := 0.0
	var upRates []float64
	for i, l := range ids {
		rates[i] = val(timeline.NVLinks[l].Data)
		if !isDown(l) && !math.IsNaN(rates[i]) {
			hi = max(hi, rates[i])
			upRates = append(upRates, rates[i])
		}
	}
	ln := f.newLine(f.width)
	ln.Add(" NVLink ", f.theme.Dim)
	var downIDs, errs []string
	for i, l := range ids {
		k := &timeline.NVLinks[l]
		crc, replay, recovery := val(k.CRC), val(k.Replay), val(k.Recovery)
		ink := f.theme.Dim // a link that counted errors: the warning's
		if crc > 0 || replay > 0 || recovery > 0 {
			ink = f.theme.Warn
			var parts []string
			for _, c := range []struct {
				n    float64
				what string
			}{{crc, "CRC"}, {replay, "replay"}, {recovery, "recovery"}} {
				if c.n > 0 {
					parts = append(parts, fmt.Sprintf("%.0f %s", c.n, c.what))
				}
			}
			errs = append(errs, strconv.Itoa(l)+" ("+strings.Join(parts, ", ")+")")
		}
		cell := f.glyph.Level(rates[i], 0, hi)
		switch {
		case isDown(l):
			cell, ink = "x", f.theme.Warn
			downIDs = append(downIDs, strconv.Itoa(l))
		case hi < 1<<30 && !math.IsNaN(rates[i]):
			cell = f.glyph.Levels[0] // idle: no busiest link to measure against
		}
		ln.Add(cell, ink)
	}
	summary := fmt.Sprintf("  %d links", len(ids))
	if len(upRates) > 0 {
		slices.Sort(upRates)
		summary += ", " + draw.Rate(upRates[len(upRates)/2]) + " each"
	}
	ln.Add(summary, f.theme.Dim)
	if len(downIDs) > 0 {
		ln.Add(f.glyph.Sep+"down: "+strings.Join(downIDs, ", "), f.theme.Warn)
	}
	if len(errs) > 0 {
		ln.Add(f.glyph.Sep+"errors: "+strings.Join(errs, ", "), f.theme.Warn)
	}
	return ln.String()
}
