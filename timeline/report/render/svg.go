package render

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The timeline drawing: every GPU's utilisation, SM activity, power and
// memory as bands (each column's least to greatest value) on one time axis,
// under the automatic phases and over the hints' episodes and the markers.
// SVG writes it alone; HTML puts the same drawing in the page.

// TimelineColumns is how many columns the HTML and SVG forms draw each
// series in: one per unit of the drawing's plot width, so a column is a
// pixel at the drawing's own size whatever the report's length. Fewer
// columns are drawn wider (the tests' small goldens).
const TimelineColumns = svgPlotW

const (
	svgW        = 1000                // the drawing's width
	svgLeft     = 104                 // room for the lanes' names
	svgPlotW    = svgW - svgLeft - 12 // the plot's width: one column each
	svgLaneH    = 22                  // one series' lane
	svgLaneGap  = 3                   // between lanes
	svgGPUHead  = 16                  // a GPU's name line
	svgGPUH     = svgGPUHead + 4*(svgLaneH+svgLaneGap) + 6
	svgHostH    = 20  // a host's heading, with several hosts
	svgTitleH   = 22  // the standalone drawing's title
	svgBandH    = 10  // the phase band
	svgAxisH    = 34  // the time axis below
	svgTitleMax = 300 // runes of outside text in a tooltip
)

// svgStyle colours the drawing, light or dark by the reader's preference
// and light on paper. It sits in the SVG so that the drawing alone, pasted
// into an issue, looks as it does in the page.
const svgStyle = `.gt{--bg:#fff;--fg:#1f2328;--mut:#656d76;--grid:#d0d7de;--util:#0969da;--sm:#8250df;--power:#bc4c00;--mem:#1a7f37;--busy:#2da44e;--stalled:#d4a72c;--idle:#afb8c1;--critical:#cf222e;--warning:#d4a72c;--info:#0969da;--marker:#6e7781}
@media (prefers-color-scheme:dark){.gt{--bg:#0d1117;--fg:#e6edf3;--mut:#8d96a0;--grid:#30363d;--util:#4493f8;--sm:#ab7df8;--power:#f0883e;--mem:#3fb950;--busy:#238636;--stalled:#bb8009;--idle:#484f58;--critical:#f85149;--warning:#d29922;--info:#4493f8;--marker:#8d96a0}}
@media print{.gt{--bg:#fff;--fg:#000;--mut:#444;--grid:#bbb;--idle:#ccc}}
.gt text{font:11px system-ui,-apple-system,"Segoe UI",sans-serif;fill:var(--fg)}
.gt .mut{fill:var(--mut)}.gt .bg{fill:var(--bg)}.gt .lane{fill:none;stroke:var(--grid);stroke-width:.5}
.gt .util{fill:var(--util)}.gt .sm{fill:var(--sm)}.gt .power{fill:var(--power)}.gt .mem{fill:var(--mem)}
.gt .busy{fill:var(--busy)}.gt .stalled{fill:var(--stalled)}.gt .idle{fill:var(--idle)}
.gt .ep{opacity:.18}.gt .ep.critical{fill:var(--critical)}.gt .ep.warning{fill:var(--warning)}.gt .ep.info{fill:var(--info)}
.gt .mk{stroke:var(--marker);stroke-width:1;stroke-dasharray:2 2}.gt .tick{stroke:var(--grid);stroke-width:.5}`

// svgEsc makes outside text safe inside SVG and HTML, as text or as a
// quoted attribute: cleaned of control characters (timeline.CleanText),
// then &, <, >, ' and " escaped.
func svgEsc(s string) string { return html.EscapeString(repClean(s)) }

// svgNum writes a coordinate with at most one decimal.
func svgNum(v float64) string { return string(appendSVGNum(nil, v)) }

// appendSVGNum appends svgNum(v) to b. A band of 512 GPUs' timelines has
// millions of numbers: one from zero to a hundred million, in tenths, is
// written as its digits, which is how strconv prints it, without the
// search for the shortest form.
func appendSVGNum(b []byte, v float64) []byte {
	x := math.Round(v * 10)
	if !(x >= 0 && x < 1e9) || math.Signbit(x) {
		return strconv.AppendFloat(b, x/10, 'f', -1, 64)
	}
	t := int64(x)
	b = strconv.AppendInt(b, t/10, 10)
	if t%10 != 0 {
		b = append(b, '.', byte('0'+t%10))
	}
	return b
}

// SVG writes the timeline alone, as one self-contained SVG image (no
// script, no fonts or anything else from elsewhere), to paste into an issue.
// The report must have been made with ReportOptions.TimelineColumns.
func SVG(w io.Writer, rep *report.Report) error {
	r := &doc{Report: rep}
	var b bytes.Buffer
	r.svg(&b, true)
	_, err := w.Write(b.Bytes())
	return err
}

// svgHeight is the drawing's height: title, band, GPUs, host headings, axis.
func (r *doc) svgHeight(standalone bool) int {
	h := svgBandH + 8 + svgAxisH
	if standalone {
		h += svgTitleH
	}
	if r.Timeline != nil {
		h += len(r.Timeline.GPUs) * svgGPUH
	}
	for k := range r.GPUs {
		if r.hostHeading(k) != "" {
			h += svgHostH
		}
	}
	return h
}

// svg draws the timeline; standalone adds a title and the XML namespace
// line a file needs.
func (r *doc) svg(b *bytes.Buffer, standalone bool) {
	height := r.svgHeight(standalone)
	fmt.Fprintf(b, `<svg class="gt" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="timeline of every GPU">`+"\n",
		svgW, height, svgW, height)
	fmt.Fprintf(b, "<style>%s</style>\n", svgStyle)
	fmt.Fprintf(b, `<rect class="bg" width="%d" height="%d"/>`+"\n", svgW, height)
	y := 0
	if standalone {
		fmt.Fprintf(b, `<text x="8" y="15">gputop: %s · %s</text>`+"\n", svgEsc(repSourceLine(r.Source)), svgEsc(r.repStartLine()))
		y += svgTitleH
	}
	span := float64(r.Duration)
	if r.Timeline == nil || r.Duration.Unknown() || len(r.Timeline.GPUs) == 0 {
		fmt.Fprintf(b, `<text x="8" y="%d" class="mut">no samples to draw</text>`+"\n</svg>\n", y+14)
		return
	}
	if span <= 0 {
		span = max(float64(r.Source.Interval), 1)
	}
	x := func(sec float64) float64 { return svgLeft + max(0, min(1, sec/span))*svgPlotW }
	top := y
	r.svgPhaseBand(b, y, x)
	y += svgBandH + 8
	tl := r.Timeline
	for k, g := range r.GPUs {
		if head := r.hostHeading(k); head != "" {
			fmt.Fprintf(b, `<text x="4" y="%d" font-weight="bold">%s</text>`+"\n", y+14, svgEsc(head))
			y += svgHostH
		}
		if k < len(tl.GPUs) {
			r.svgGPU(b, g, tl.GPUs[k], y, x)
		}
		y += svgGPUH
	}
	r.svgMarkers(b, top, y, x)
	r.svgAxis(b, y, span, x)
	b.WriteString("</svg>\n")
}

// svgPhaseBand draws the automatic phases as one band, a run of columns of
// one kind to a rectangle, so a day of short phases costs no more than the
// plot is wide.
func (r *doc) svgPhaseBand(b *bytes.Buffer, y int, x func(float64) float64) {
	fmt.Fprintf(b, `<text x="4" y="%d" class="mut">phases</text>`+"\n", y+9)
	auto, _ := r.repSplitPhases()
	if len(auto) == 0 {
		return
	}
	kinds := make([]string, svgPlotW)
	k := 0
	span := float64(r.Duration)
	for col := range kinds {
		mid := (float64(col) + 0.5) / svgPlotW * span
		for k < len(auto)-1 && float64(r.Phases[auto[k]].End) <= mid {
			k++
		}
		if p := r.Phases[auto[k]]; float64(p.Start) <= mid && mid <= float64(p.End) {
			kinds[col] = p.Kind
		}
	}
	for lo := 0; lo < len(kinds); {
		hi := lo
		for hi < len(kinds) && kinds[hi] == kinds[lo] {
			hi++
		}
		if kinds[lo] != "" {
			from, to := float64(lo)/svgPlotW*span, float64(hi)/svgPlotW*span
			fmt.Fprintf(b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"><title>%s %s-%s</title></rect>`+"\n",
				kinds[lo], svgLeft+lo, y, hi-lo, svgBandH, kinds[lo], repAt(report.Number(from)), repAt(report.Number(to)))
		}
		lo = hi
	}
}

// svgLane is one series' lane: its name, its scale's top and the series.
type svgLane struct {
	class, name string
	top         float64 // the value at the lane's top
	series      []timeline.Agg
}

// svgGPU draws one GPU: its name, the hints' episodes on it, and its four
// lanes.
func (r *doc) svgGPU(b *bytes.Buffer, g report.ReportGPU, tg report.TimelineGPU, y int, x func(float64) float64) {
	name := r.gpuNames().One(g.Index) + "  " + repGPULabel(g)
	if g.Lost {
		name += "  lost at " + repAt(g.LostAt)
	}
	fmt.Fprintf(b, `<text x="4" y="%d" font-weight="bold">%s</text>`+"\n", y+12, svgEsc(name))
	lanesTop := y + svgGPUHead
	lanesH := 4*(svgLaneH+svgLaneGap) - svgLaneGap
	r.svgEpisodes(b, g.Index, lanesTop, lanesH, x)
	powerTop, memTop := svgTop(g.PowerLimit, tg.Power), svgTop(g.MemTotal, tg.MemUsed)
	lanes := []svgLane{
		{"util", "util 0-100%", 100, tg.Util},
		{"sm", "SM 0-100%", 100, tg.SMActive},
		{"power", "power 0-" + units.Watts(powerTop), powerTop, tg.Power},
		{"mem", "mem 0-" + units.Bytes(memTop), memTop, tg.MemUsed},
	}
	for i, l := range lanes {
		ly := lanesTop + i*(svgLaneH+svgLaneGap)
		label := l.name
		if l.series == nil {
			label = strings.Fields(l.name)[0] + " not recorded"
		}
		fmt.Fprintf(b, `<text x="4" y="%d" class="mut">%s</text>`+"\n", ly+15, svgEsc(label))
		fmt.Fprintf(b, `<rect class="lane" x="%d" y="%d" width="%d" height="%d"/>`+"\n", svgLeft, ly, svgPlotW, svgLaneH)
		if l.series != nil && l.top > 0 && !math.IsNaN(l.top) {
			svgBand(b, l.class, l.series, float64(ly), svgLaneH, l.top)
		}
	}
}

// svgTop is the top of a lane's scale: the GPU's limit (power limit,
// memory total) where known, else the greatest value of its series, or
// NaN.
func svgTop(limit report.Number, s []timeline.Agg) float64 {
	if !limit.Unknown() && limit > 0 {
		return float64(limit)
	}
	out := math.NaN()
	for _, a := range s {
		if !math.IsNaN(a.Max) && !(a.Max <= out) {
			out = a.Max
		}
	}
	return out
}

// svgBand draws a series as the band from each column's least to its
// greatest value (at least a pixel thick, so a steady value is a line),
// one path per run of columns with values: a gap stays a gap.
func svgBand(b *bytes.Buffer, class string, s []timeline.Agg, top, h, vmax float64) {
	y := func(v float64) float64 { return top + h - max(0, min(1, v/vmax))*h }
	colW := float64(svgPlotW) / float64(len(s)) // a pixel at TimelineColumns
	var d []byte
	point := func(op byte, x, y float64) {
		d = appendSVGNum(append(d, op), x)
		d = appendSVGNum(append(d, ' '), y)
	}
	for lo := 0; lo < len(s); {
		if math.IsNaN(s[lo].Mean) {
			lo++
			continue
		}
		hi := lo
		for hi < len(s) && !math.IsNaN(s[hi].Mean) {
			hi++
		}
		cx := func(i int) float64 { return svgLeft + (float64(i)+0.5)*colW }
		ymin := make([]float64, 0, hi-lo)
		for i := lo; i < hi; i++ {
			hiY, loY := y(s[i].Max), y(s[i].Min)
			if loY-hiY < 1 {
				loY = hiY + 1
			}
			ymin = append(ymin, loY)
			if i == lo {
				point('M', cx(i)-colW/2, hiY)
			}
			point('L', cx(i), hiY)
		}
		point('L', cx(hi-1)+colW/2, ymin[len(ymin)-1])
		for i := hi - 1; i >= lo; i-- {
			point('L', cx(i), ymin[i-lo])
		}
		point('L', cx(lo)-colW/2, ymin[0])
		d = append(d, 'Z')
		lo = hi
	}
	if len(d) > 0 {
		fmt.Fprintf(b, `<path class="%s" d="%s"/>`+"\n", class, d)
	}
}

// svgEpisodes shades where each hint held on GPU idx, in its severity's
// colour, its evidence in the tooltip.
func (r *doc) svgEpisodes(b *bytes.Buffer, idx, top, h int, x func(float64) float64) {
	for _, hint := range r.Hints {
		for _, ep := range hint.Episodes {
			if !slices.Contains(ep.GPUs, idx) || ep.Start.Unknown() || ep.End.Unknown() {
				continue
			}
			x0, x1 := x(float64(ep.Start)), x(float64(ep.End))
			title := ep.Severity + " " + hint.ID + " " + repAt(ep.Start) + "-" + repAt(ep.End) + ": " + ep.Evidence
			fmt.Fprintf(b, `<rect class="ep %s" x="%s" y="%d" width="%s" height="%d"><title>%s</title></rect>`+"\n",
				svgEsc(ep.Severity), svgNum(x0), top, svgNum(max(1, x1-x0)), h, svgEsc(Cut(repClean(title), svgTitleMax, "...")))
		}
	}
}

// svgMarkers draws each marker as a dashed line through every GPU, the
// markers of one column as one line whose tooltip lists the first few.
func (r *doc) svgMarkers(b *bytes.Buffer, top, bottom int, x func(float64) float64) {
	const most = 3
	for i := 0; i < len(r.Markers); {
		col := math.Floor(x(float64(r.Markers[i].At)))
		j := i
		for j < len(r.Markers) && math.Floor(x(float64(r.Markers[j].At))) == col {
			j++
		}
		texts := firstFew(j-i, most, func(k int) string {
			return repAt(r.Markers[i+k].At) + " " + Cut(repClean(r.Markers[i+k].Text), 120, "...")
		})
		fmt.Fprintf(b, `<line class="mk" x1="%s" y1="%d" x2="%s" y2="%d"><title>%s</title></line>`+"\n",
			svgNum(col+0.5), top, svgNum(col+0.5), bottom, svgEsc(strings.Join(texts, "\n")))
		i = j
	}
}

// svgAxis draws the time axis: ticks at a round step, the time since the
// start under each.
func (r *doc) svgAxis(b *bytes.Buffer, y int, span float64, x func(float64) float64) {
	step := svgTickStep(span)
	for t := 0.0; t <= span+1e-9; t += step {
		px := svgNum(x(t))
		fmt.Fprintf(b, `<line class="tick" x1="%s" y1="%d" x2="%s" y2="%d"/>`+"\n", px, y, px, y+5)
		fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle" class="mut">%s</text>`+"\n", px, y+17,
			units.Clock(time.Duration(t*float64(time.Second))))
	}
	fmt.Fprintf(b, `<text x="4" y="%d" class="mut">since start</text>`+"\n", y+17)
}

// svgTickStep is the roundest step that puts at most 10 ticks on the axis.
func svgTickStep(span float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
		if span/s <= 10 {
			return s
		}
	}
	return math.Ceil(span/10/86400) * 86400
}
