package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// viewHost draws the host: CPU (with iowait and load), RAM and swap, disk,
// and a bar per core, so one pegged core among idle ones (a single-threaded
// loader) stands out.
func (m *Model) viewHost(f *frame) []string {
	hostDev := m.hostDevice()
	hv := func(name string) float64 { return m.value(name, hostDev, f.at) }
	multi := m.lay.GPURows > 1
	prefix := m.lay.Label
	if multi {
		prefix += layout.RowLabelWidth
	}

	if (m.store.Len() > 0 || m.info.MultiHost()) && !m.store.Has(timeline.Key{Name: timeline.HostCPU, Device: hostDev}) {
		return m.viewNoHost(multi)
	}
	cpu := m.newLine(m.width)
	cpu.Add(draw.PadRight(" "+m.hostLabel(), m.lay.Label), m.theme.Title)
	if multi {
		cpu.Add(draw.PadRight("cpu", layout.RowLabelWidth), m.theme.Dim)
	}
	cpu.Pad(prefix)
	m.store.Series(timeline.Key{Name: timeline.HostCPU, Device: hostDev}, f.from, f.to, f.cols)
	cpu.Add(m.glyph.Spark(f.cols, 0, 100), m.theme.Host)
	// A one-row host has the room of a one-row GPU: short labels.
	iowait, load := " iowait ", " load "
	if !multi {
		iowait, load = " iow ", " ld "
	}
	cpu.Add(" ", draw.Ink{}).Add(draw.Pct(hv(timeline.HostCPU)), m.theme.Host)
	cpu.Add(iowait, m.theme.Dim).Add(strings.TrimSpace(draw.Pct(hv(timeline.HostIOWait))), ioInk(&m.theme, hv(timeline.HostIOWait)))
	cpu.Add(load, m.theme.Dim).Add(fmtLoad(hv(timeline.HostLoad1)), draw.Ink{})
	ram := draw.Mem(hv(timeline.HostMemUsed), hv(timeline.HostMemTotal))
	swap := draw.Bytes(hv(timeline.HostSwapUsed))
	disk := "disk r " + draw.Rate(hv(timeline.HostDiskRead)) + " w " + draw.Rate(hv(timeline.HostDiskWrite))
	if !multi {
		// Whole fields or none: "sw 12.0" cut from "sw 12.0M" lies.
		draw.FillRow(cpu, &m.theme, []draw.Field{
			{Text: "RAM " + ram, Ink: draw.MemInk},
			{Text: "sw " + swap, Ink: func(t *draw.Theme) draw.Ink { return swapInk(t, hv(timeline.HostSwapUsed)) }},
		}, nil, m.width)
		return append([]string{cpu.String()}, m.viewCores(f, prefix)...)
	}

	mem := m.newLine(m.width)
	mem.Pad(m.lay.Label).Add(draw.PadRight("ram", layout.RowLabelWidth), m.theme.Dim)
	m.store.Series(timeline.Key{Name: timeline.HostMemUsed, Device: hostDev}, f.from, f.to, f.cols)
	mem.Add(m.glyph.Spark(f.cols, 0, hv(timeline.HostMemTotal)), m.theme.Mem)
	mem.Add(" ", draw.Ink{}).Add(ram, m.theme.Mem)
	// Whole fields only: a disk rate cut in half is worse than none; and
	// none at all where the host never gave one.
	var fields []draw.Field
	if m.store.Has(timeline.Key{Name: timeline.HostDiskRead, Device: hostDev}) {
		fields = append(fields, draw.Field{Text: disk, Ink: draw.DimInk})
	}
	fields = append(fields, draw.Field{Text: "swap " + swap, Ink: func(t *draw.Theme) draw.Ink { return swapInk(t, hv(timeline.HostSwapUsed)) }})
	draw.FillRow(mem, &m.theme, fields, nil, m.width)
	return append([]string{cpu.String(), mem.String()}, m.viewCores(f, prefix)...)
}

// viewNoHost says in one line that there is no host data, in the rows the
// host would have had: an imported nvidia-smi log has none, and a row of
// N/A reads as if something failed.
func (m *Model) viewNoHost(multi bool) []string {
	ln := m.newLine(m.width)
	ln.Add(draw.PadRight(" "+m.hostLabel(), m.lay.Label), m.theme.Title)
	msg := "no host readings in this recording"
	switch {
	case m.info.Kind == timeline.Imported || m.info.Recorded == timeline.Imported:
		msg = "no host readings: the imported log has GPUs only"
	case m.play.Grows:
		msg = m.noHostReadings()
	}
	rows := 1 + m.lay.CoreRows
	if multi {
		rows++
	}
	// A host's reason may be long (ssh's own words): its rows take it.
	text := m.fit.WrapWords(msg, m.width-ln.Width(), rows)
	ln.Add(text[0], m.theme.Dim)
	out := []string{ln.String()}
	for _, l := range text[1:] {
		out = append(out, m.newLine(m.width).Pad(m.lay.Label).Add(l, m.theme.Dim).String())
	}
	return draw.PadBlank(out, rows)
}

func fmtLoad(v float64) string {
	if math.IsNaN(v) {
		return draw.NA
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func ioInk(t *draw.Theme, v float64) draw.Ink {
	if v >= 10 {
		return t.Warn
	}
	return draw.Ink{}
}

func swapInk(t *draw.Theme, v float64) draw.Ink {
	if v > 0 {
		return t.Warn
	}
	return draw.Ink{}
}

// viewCores draws a bar per core at the cursor, under the CPU sparkline.
// When there are more cores than columns, each bar is the busiest of a
// group, so a pegged core never hides in an average.
func (m *Model) viewCores(f *frame, prefix int) []string {
	cores := m.hostCores()
	if len(cores) == 0 {
		return make([]string, m.lay.CoreRows)
	}
	vals := make([]float64, len(cores))
	pegged := 0
	for i, dev := range cores {
		vals[i] = m.value(timeline.CoreBusy, dev, f.at)
		if vals[i] >= 95 {
			pegged++
		}
	}
	room := m.width - prefix
	perRow := (len(vals) + m.lay.CoreRows - 1) / m.lay.CoreRows
	if perRow > room {
		vals = groupMax(vals, room*m.lay.CoreRows)
		perRow = room
	}
	summary := fmt.Sprintf(" %d cores", len(cores))
	if pegged > 0 {
		summary += fmt.Sprintf(", %d at 95%%+", pegged)
	}
	var out []string
	for r := 0; r < m.lay.CoreRows; r++ {
		ln := m.newLine(m.width)
		if r == 0 && m.lay.GPURows > 1 {
			ln.Pad(m.lay.Label).Add(draw.PadRight("cpus", layout.RowLabelWidth), m.theme.Dim)
		} else if r == 0 {
			ln.Add(draw.PadRight(" cpus", m.lay.Label), m.theme.Dim)
		}
		ln.Pad(prefix)
		lo, hi := r*perRow, min(len(vals), (r+1)*perRow)
		if lo < hi {
			ln.Add(m.glyph.Bars(vals[lo:hi], 0, 100), m.theme.Core)
		}
		if r == m.lay.CoreRows-1 && m.width-ln.Width() > len(summary) {
			ln.Add(summary, m.theme.Dim)
		}
		out = append(out, ln.String())
	}
	return out
}

// groupMax shrinks vals to n values, each the maximum of its group.
func groupMax(vals []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		lo, hi := i*len(vals)/n, (i+1)*len(vals)/n
		out[i] = math.NaN()
		for _, v := range vals[lo:max(hi, lo+1)] {
			out[i] = maxKnown(out[i], v)
		}
	}
	return out
}

// maxKnown is the larger of a and b, ignoring NaN unless both are.
func maxKnown(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
