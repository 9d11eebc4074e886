package hostpanel

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// Panel is the host panel: the selected host's CPU, memory, swap, disk and
// cores, at the cursor and over the window.
type Panel struct {
	draw.Pen
	// Label names the host ("host", or the selected host's name), in a
	// column LabelWidth wide.
	Label      string
	LabelWidth int
	// Multi gives the CPU and the memory a row each, where the GPUs have
	// more than one.
	Multi bool
	// CoreRows are the rows of the per-core bars.
	CoreRows int
	// The host's readings at the cursor.
	CPU, IOWait, Load, MemUsed, MemTotal, Swap, DiskRead, DiskWrite float64
	// HasDisk says the host gave its disk's rates at all.
	HasDisk bool
	// CPUSpark and MemSpark are the CPU's and the memory's sparklines over
	// the window (MemSpark only where Multi).
	CPUSpark, MemSpark string
	// Cores are each core's busy share at the cursor, in order.
	Cores []float64
}

// View draws the host: CPU (with iowait and load), RAM and swap, disk,
// and a bar per core, so one pegged core among idle ones (a single-threaded
// loader) stands out.
func (p *Panel) View() []string {
	prefix := p.LabelWidth
	cpu := p.NewLine(p.Width)
	cpu.Add(draw.PadRight(" "+p.Label, p.LabelWidth), p.Theme.Title)
	if p.Multi {
		prefix += layout.RowLabelWidth
		cpu.Add(draw.PadRight("cpu", layout.RowLabelWidth), p.Theme.Dim)
	}
	cpu.Pad(prefix)
	cpu.Add(p.CPUSpark, p.Theme.Host)
	// A one-row host has the room of a one-row GPU: short labels.
	iowait, load := " iowait ", " load "
	if !p.Multi {
		iowait, load = " iow ", " ld "
	}
	cpu.Add(" ", draw.Ink{}).Add(draw.Pct(p.CPU), p.Theme.Host)
	cpu.Add(iowait, p.Theme.Dim).Add(strings.TrimSpace(draw.Pct(p.IOWait)), p.Theme.WarnIf(p.IOWait >= 10))
	cpu.Add(load, p.Theme.Dim).Add(fmtLoad(p.Load), draw.Ink{})
	ram := draw.Mem(p.MemUsed, p.MemTotal)
	swap := draw.Bytes(p.Swap)
	disk := "disk r " + draw.Rate(p.DiskRead) + " w " + draw.Rate(p.DiskWrite)
	if !p.Multi {
		// Whole fields or none: "sw 12.0" cut from "sw 12.0M" lies.
		draw.FillRow(cpu, []draw.Field{
			{Text: "RAM " + ram, Ink: p.Theme.Mem},
			{Text: "sw " + swap, Ink: p.Theme.WarnIf(p.Swap > 0)},
		}, nil, p.Width)
		return append([]string{cpu.String()}, p.cores(prefix)...)
	}

	mem := p.NewLine(p.Width)
	mem.Pad(p.LabelWidth).Add(draw.PadRight("ram", layout.RowLabelWidth), p.Theme.Dim)
	mem.Add(p.MemSpark, p.Theme.Mem)
	mem.Add(" ", draw.Ink{}).Add(ram, p.Theme.Mem)
	// Whole fields only: a disk rate cut in half is worse than none; and
	// none at all where the host never gave one.
	var fields []draw.Field
	if p.HasDisk {
		fields = append(fields, draw.Field{Text: disk, Ink: p.Theme.Dim})
	}
	fields = append(fields, draw.Field{Text: "swap " + swap, Ink: p.Theme.WarnIf(p.Swap > 0)})
	draw.FillRow(mem, fields, nil, p.Width)
	return append([]string{cpu.String(), mem.String()}, p.cores(prefix)...)
}

// None says in msg that there is no host data, in the rows the
// host would have had: an imported nvidia-smi log has none, and a row of
// N/A reads as if something failed.
func (p *Panel) None(msg string) []string {
	ln := p.NewLine(p.Width)
	ln.Add(draw.PadRight(" "+p.Label, p.LabelWidth), p.Theme.Title)
	rows := 1 + p.CoreRows
	if p.Multi {
		rows++
	}
	// A host's reason may be long (ssh's own words): its rows take it.
	text := p.Fit.WrapWords(msg, p.Width-ln.Width(), rows)
	ln.Add(text[0], p.Theme.Dim)
	out := []string{ln.String()}
	for _, l := range text[1:] {
		out = append(out, p.NewLine(p.Width).Pad(p.LabelWidth).Add(l, p.Theme.Dim).String())
	}
	return draw.PadBlank(out, rows)
}

func fmtLoad(v float64) string {
	if math.IsNaN(v) {
		return draw.NA
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// cores draws a bar per core at the cursor, under the CPU sparkline.
// When there are more cores than columns, each bar is the busiest of a
// group, so a pegged core never hides in an average.
func (p *Panel) cores(prefix int) []string {
	cores := p.Cores
	if len(cores) == 0 {
		return make([]string, p.CoreRows)
	}
	vals := cores
	pegged := 0
	for _, v := range vals {
		if v >= 95 {
			pegged++
		}
	}
	room := p.Width - prefix
	perRow := (len(vals) + p.CoreRows - 1) / p.CoreRows
	if perRow > room {
		vals = groupMax(vals, room*p.CoreRows)
		perRow = room
	}
	summary := fmt.Sprintf(" %d cores", len(cores))
	if pegged > 0 {
		summary += fmt.Sprintf(", %d at 95%%+", pegged)
	}
	var out []string
	for r := 0; r < p.CoreRows; r++ {
		ln := p.NewLine(p.Width)
		if r == 0 && p.Multi {
			ln.Pad(p.LabelWidth).Add(draw.PadRight("cpus", layout.RowLabelWidth), p.Theme.Dim)
		} else if r == 0 {
			ln.Add(draw.PadRight(" cpus", p.LabelWidth), p.Theme.Dim)
		}
		ln.Pad(prefix)
		lo, hi := r*perRow, min(len(vals), (r+1)*perRow)
		if lo < hi {
			ln.Add(p.Glyph.Bars(vals[lo:hi], 0, 100), p.Theme.Core)
		}
		if r == p.CoreRows-1 && p.Width-ln.Width() > len(summary) {
			ln.Add(summary, p.Theme.Dim)
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
			out[i] = draw.MaxKnown(out[i], v)
		}
	}
	return out
}
