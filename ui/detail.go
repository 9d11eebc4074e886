package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/guptarohit/asciigraph"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/alloc"
	"github.com/gputop-dev/gputop/ui/config"
	"github.com/gputop-dev/gputop/ui/draw"
)

// detailMetric is one metric the detail pane can plot; tab steps through
// those the selected GPU has.
type detailMetric struct {
	name  string
	title string
	// second is plotted too, dimmer: a reference such as the power limit.
	second string
}

var detailMetrics = []detailMetric{
	{timeline.GPUUtil, "utilization: share of time any kernel ran (coarse); mean of sub-second samples", ""},
	{timeline.GPUSMActive, "SM activity: share of SMs busy (profiling-grade, GPM)", ""},
	{timeline.GPUTensor, "tensor pipes active (profiling-grade, GPM)", ""},
	{timeline.GPUPower, "power draw, and the enforced limit", timeline.GPUPowerLimit},
	{timeline.GPUMemUsed, "memory used", ""},
	{timeline.GPUTemp, "temperature", ""},
	{timeline.GPUClockSM, "SM clock", ""},
	{timeline.GPUPCIeRx, "PCIe host to device", ""},
	{timeline.GPUPCIeTx, "PCIe device to host", ""},
	{timeline.GPUDRAMBW, "DRAM bandwidth used (profiling-grade, GPM)", ""},
}

// hostDetail is what the detail pane plots where there are no GPUs (no
// driver): the host's CPU, the one thing left to watch, rather than a
// blank half screen.
var hostDetail = detailMetric{timeline.HostCPU, "busy, all cores (no GPUs to plot)", ""}

// detailTarget is what the detail pane plots: the selected GPU's selected
// metric, or the host's CPU where there is no GPU.
func (m *Model) detailTarget() (dm detailMetric, dev, who string) {
	if len(m.info.GPUs) == 0 {
		return hostDetail, m.hostDevice(), m.hostLabel()
	}
	dev = m.selectedDevice()
	who = "GPU" + strings.TrimPrefix(dev, "gpu")
	if m.info.MultiHost() && m.list.GPU < len(m.info.GPUs) {
		g := m.info.GPUs[m.list.GPU]
		who = fmt.Sprintf("%s GPU%d", g.Host, g.OnHost())
	}
	dm = detailMetrics[m.detail.metric]
	if g := m.info.GPUs[min(m.list.GPU, len(m.info.GPUs)-1)]; g.MIG && !g.IsMIGInstance() &&
		math.IsNaN(m.store.ValueAt(timeline.Key{Name: dm.name, Device: dev}, m.store.Last())) {
		// A MIG-enabled GPU has no utilisation (nor GPM of its own): where
		// the metric chosen is one of those, its power.
		dm = detailMetricOf(timeline.GPUPower)
	}
	if m.list.GPU < len(m.info.GPUs) && m.info.GPUs[m.list.GPU].IsMIGInstance() {
		who = m.gpuNames.One(m.info.GPUs[m.list.GPU].Index)
		// A MIG instance has no utilisation, power or clocks (its parent's):
		// where it lacks the metric chosen, its SM activity says what it does.
		if !m.store.Has(timeline.Key{Name: dm.name, Device: dev}) {
			dm = detailMetricOf(timeline.GPUSMActive)
		}
	}
	return dm, dev, who
}

// detailMetricOf is the detail metric of a metric's name.
func detailMetricOf(name string) detailMetric {
	return detailMetrics[slices.IndexFunc(detailMetrics, func(d detailMetric) bool { return d.name == name })]
}

func (m *Model) selectedDevice() string {
	if m.list.GPU < len(m.info.GPUs) {
		return timeline.GPUDevice(m.info.GPUs[m.list.GPU].Index)
	}
	return ""
}

// asciiBox maps the box-drawing characters asciigraph uses to ASCII.
var asciiBox = strings.NewReplacer(
	"─", "-", "│", "|", "┤", "|", "┼", "+", "└", "+", "┬", "+",
	"╭", "+", "╮", "+", "╰", "+", "╯", "+", "╴", "-", "╶", "-",
)

// viewDetail plots the selected GPU's selected metric over the window,
// resampled to exactly the plot's width so its columns are honest, with a
// time axis under it.
func (f *frame) viewDetail(rows int) []string {
	if rows <= 0 {
		return nil
	}
	dm, dev, who := f.detailTarget()
	key := timeline.Key{Name: dm.name, Device: dev}
	title := f.newLine(f.width)
	def, _ := timeline.Lookup(dm.name)
	title.Add(" "+who+" "+def.Label+" ", f.theme.Title)
	title.Add(draw.Value(dm.name, f.store.ValueAt(key, f.at), f.ascii)+"  ", f.theme.Bold)
	if g := f.list.GPU; len(f.info.GPUs) > 0 && g < len(f.info.GPUs) {
		if o := alloc.Long(f.ownerOf(f.info.GPUs[g].Index, f.at)); o != "" {
			title.Add(o+"  ", f.theme.Title) // who holds it, before what the metric is
		}
	}
	title.Add(dm.title, f.theme.Dim)
	out := []string{title.String()}
	if row := f.healthRow("", dev, f.at); row != "" && rows > 6 {
		out = append(out, row)
	}
	if row := f.nvlinkRow(dev, f.at); row != "" && rows > 9 {
		out = append(out, row)
	}

	// asciigraph draws height+1 rows, then the time axis and its labels;
	// two rows of plot (its top and its floor) are enough to see a dip.
	plotRows := rows - 3 - len(out)
	if plotRows < 2 {
		return append(out, draw.BlankLines(rows-1)...)
	}
	if f.store.Len() == 0 {
		return append(out, draw.PadBlank([]string{"   waiting for the first sample" + f.glyph.Ellipsis}, rows-1)...)
	}
	// Room on the right for half of the last time label, centred on its tick.
	width := f.width - detailAxisWidth - 5
	series := [][]float64{f.means(key, width)}
	if second := (timeline.Key{Name: dm.second, Device: dev}); dm.second != "" && f.store.Has(second) {
		series = append(series, f.means(second, width))
	}
	lo, hi := f.bounds(dm.name, dev, f.at, series)
	opts := []asciigraph.Option{
		asciigraph.Height(plotRows - 1),
		asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.YAxisValueFormatter(func(v float64) string {
			return draw.PadLeft(draw.Value(dm.name, v, f.ascii), detailAxisWidth-3)
		}),
		asciigraph.XAxisRange(float64(f.from.Unix()), float64(f.to.Unix())),
		asciigraph.XAxisTickCount(max(2, width/16)),
		asciigraph.XAxisValueFormatter(func(v float64) string {
			return draw.Clock(time.Unix(int64(v), 0), false)
		}),
	}
	if !f.theme.Plain {
		opts = append(opts, asciigraph.SeriesColors(asciigraph.Green, asciigraph.DarkGray))
	}
	if f.ascii {
		opts = append(opts, asciigraph.SeriesChars(asciiSeries, asciiSeries))
	}
	plot := asciigraph.PlotMany(series, opts...)
	if f.ascii {
		plot = asciiBox.Replace(plot)
	}
	// asciigraph pads every row to the plot's width; the terminal clears the
	// rest of a shorter row anyway, and the spaces would cross the link on
	// every redraw.
	for _, l := range strings.Split(plot, "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return draw.PadBlank(out, rows)
}

// detailAxisWidth is the room the y-axis labels take left of the plot.
const detailAxisWidth = 10

var asciiSeries = asciigraph.CharSet{
	Horizontal: "-", VerticalLine: "|", ArcDownRight: "+", ArcDownLeft: "+",
	ArcUpRight: "+", ArcUpLeft: "+", EndCap: "-", StartCap: "-", UpRight: "+", DownHorizontal: "+",
}

// bounds picks the y range: 0-100 for percentages, 0 to the limit or total
// where one exists, else the data's own range with a little room.
func (f *frame) bounds(name, dev string, at time.Time, series [][]float64) (float64, float64) {
	def, _ := timeline.Lookup(name)
	switch {
	case def.Unit == timeline.Percent:
		return 0, 100
	case name == timeline.GPUPower:
		if l := f.limitOf(dev, at); l > 0 {
			return 0, l * 1.05
		}
	case name == timeline.GPUMemUsed:
		if t := f.value(timeline.GPUMemTotal, dev, at); t > 0 {
			return 0, t
		}
	}
	hi := math.NaN()
	for _, s := range series {
		for _, v := range s {
			hi = draw.MaxKnown(hi, v)
		}
	}
	if !(hi > 0) {
		return 0, 1
	}
	return 0, hi * 1.1
}

// means is key's mean in each of width columns over the window.
func (f *frame) means(key timeline.Key, width int) []float64 {
	a := make([]timeline.Agg, width)
	f.store.Series(key, f.from, f.to, a)
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i].Mean
	}
	return out
}

// metricIndex is the detailMetrics index of a settings file's metric name
// (0, utilization, for none).
func metricIndex(name string) int {
	for _, sm := range config.Metrics {
		if sm.Name == name {
			return max(0, slices.IndexFunc(detailMetrics, func(dm detailMetric) bool { return dm.name == sm.Metric }))
		}
	}
	return 0
}
