package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/alloc"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// frame is one drawing of the Model: what every panel of one View shares
// (the window, the cursor, a scratch buffer for series, so a View
// allocates little) and the rows it notes for the mouse as it draws them.
// The panels' drawing is the frame's (viewGPUs, viewHints, ...), reading
// the Model it embeds; what a frame leaves is its rows, and the hits View
// keeps for the mouse.
type frame struct {
	*Model
	from, to, at time.Time
	cols         []timeline.Agg
	// hits say what each row shows (mouse.go); hitBase is where the panel
	// being drawn starts.
	hits    []hit
	hitBase int
}

// gpuRow is one sparkline row of a GPU block.
type gpuRow struct {
	label  string
	metric string
	ink    func(*draw.Theme) draw.Ink
	scale  func(m *Model, dev string, at time.Time) (lo, hi float64)
	value  func(m *Model, dev string, at time.Time) string
}

// pctRow is the row of a percentage: on a scale of 0 to 100, its value at
// the cursor beside it.
func pctRow(label, metric string, ink func(*draw.Theme) draw.Ink) gpuRow {
	return gpuRow{label, metric, ink, func(*Model, string, time.Time) (float64, float64) { return 0, 100 },
		func(m *Model, dev string, at time.Time) string { return draw.Pct(m.value(metric, dev, at)) }}
}

var (
	utilRow  = pctRow("util", timeline.GPUUtil, func(t *draw.Theme) draw.Ink { return t.Util })
	smRow    = pctRow("SM", timeline.GPUSMActive, func(t *draw.Theme) draw.Ink { return t.SM })
	powerRow = gpuRow{"pwr", timeline.GPUPower, func(t *draw.Theme) draw.Ink { return t.Power },
		func(m *Model, dev string, at time.Time) (float64, float64) {
			return 0, m.limitOf(dev, at)
		},
		func(m *Model, dev string, at time.Time) string {
			return fmt.Sprintf("%4s", draw.Watts(m.value(timeline.GPUPower, dev, at)))
		}}
	memRow = gpuRow{"mem", timeline.GPUMemUsed, func(t *draw.Theme) draw.Ink { return t.Mem },
		func(m *Model, dev string, at time.Time) (float64, float64) {
			if total := m.value(timeline.GPUMemTotal, dev, at); total > 0 {
				return 0, total
			}
			return 0, m.gpuInfo(dev).MemTotal
		},
		func(m *Model, dev string, at time.Time) string {
			used, total := m.value(timeline.GPUMemUsed, dev, at), m.value(timeline.GPUMemTotal, dev, at)
			if total > 0 && !math.IsNaN(used) {
				return draw.Pct(100 * used / total)
			}
			return " " + draw.NA
		}}
)

// A MIG instance has no utilisation, power, clocks or temperature of its
// own (NVML gives them for the physical GPU): its rows are what it has, SM
// activity and memory from GPM and its own memory, then DRAM bandwidth
// and SM occupancy, the same number of rows as a whole GPU's.
var (
	dramRow = pctRow("dram", timeline.GPUDRAMBW, func(t *draw.Theme) draw.Ink { return t.Mem })
	occRow  = pctRow("occ", timeline.GPUSMOccupancy, func(t *draw.Theme) draw.Ink { return t.SM })
)

// migRows is a MIG instance's rows, at most n: memory alone without GPM.
func migRows(g timeline.GPUInfo, n int) []gpuRow {
	rows := []gpuRow{memRow}
	if g.GPM {
		rows = []gpuRow{smRow, memRow, dramRow, occRow}
	}
	return rows[:min(n, len(rows))]
}

// rowsWithData is a MIG-enabled GPU's rows: NVML gives it no utilisation,
// and GPM is its instances', so the rows with a value in view come first
// (power, memory), then the others, at most n.
func (f *frame) rowsWithData(dev string, n int) []gpuRow {
	var have, lack []gpuRow
	for _, r := range sparkRows(f.lay.ShowSM) {
		f.store.Series(timeline.Key{Name: r.metric, Device: dev}, f.from, f.to, f.cols)
		if slices.ContainsFunc(f.cols, func(a timeline.Agg) bool { return !a.Empty() }) {
			have = append(have, r)
		} else {
			lack = append(lack, r)
		}
	}
	rows := append(have, lack...)
	return rows[:min(n, len(rows))]
}

// sparkRows lists the sparkline rows a GPU block can have, in order of
// importance: utilisation, then SM activity where the GPU has it
// (utilisation alone reads 100 % for a kernel on a fifth of the SMs), then
// power (which exposes busy-waiting), then memory.
func sparkRows(showSM bool) []gpuRow {
	rows := []gpuRow{utilRow}
	if showSM {
		rows = append(rows, smRow)
	}
	return append(rows, powerRow, memRow)
}

// value is key's value at the cursor.
func (s *session) value(name, dev string, at time.Time) float64 {
	return s.store.ValueAt(timeline.Key{Name: name, Device: dev}, at)
}

// limitOf is a GPU's power limit: sampled, else from the source's header.
func (s *session) limitOf(dev string, at time.Time) float64 {
	if v := s.value(timeline.GPUPowerLimit, dev, at); v > 0 {
		return v
	}
	return s.gpuInfo(dev).PowerLimit
}

// gpuInfo is what the source said of a GPU at the start; unknown figures
// are NaN.
func (s *session) gpuInfo(dev string) timeline.GPUInfo {
	if i := slices.IndexFunc(s.info.GPUs, func(g timeline.GPUInfo) bool { return timeline.GPUDevice(g.Index) == dev }); i >= 0 {
		return s.info.GPUs[i]
	}
	return timeline.GPUInfo{MemTotal: math.NaN(), PowerLimit: math.NaN()}
}

// viewGPUs draws every GPU block.
func (f *frame) viewGPUs() []string {
	if f.info.MultiHost() && len(f.list.Names) > 0 {
		// Every host has its line from the first second, GPUs or not: it
		// says what the host is waiting for.
		return f.viewHostGPUs()
	}
	if len(f.info.GPUs) == 0 {
		return f.viewNoGPUs()
	}
	return f.viewGPUList()
}

// gpuLabel is the label of GPU i (g) in its column, and its ink: marked
// and inked as selected where it is.
func (f *frame) gpuLabel(i int, g timeline.GPUInfo) (string, draw.Ink) {
	mark, ink := " ", f.theme.Title
	if i == f.list.GPU {
		mark, ink = f.glyph.Sel, f.theme.Sel
	}
	if g.IsMIGInstance() {
		return draw.PadRight(mark+layout.MIGLabel(g, f.ascii), f.lay.Label), ink
	}
	return draw.PadRight(mark+fmt.Sprintf("GPU%d", g.OnHost()), f.lay.Label), ink
}

// viewGPU appends the block of info.GPUs[i] to out, its rows noted for the mouse.
func (f *frame) viewGPU(out []string, i int) []string {
	g := f.info.GPUs[i]
	dev := timeline.GPUDevice(g.Index)
	label, labelInk := f.gpuLabel(i, g)
	lost := f.store.Lost(dev, f.at)
	if f.lay.GPURows == 1 {
		f.hitRows(len(out), 1, hitGPU, i)
		return append(out, f.compactGPU(dev, label, labelInk, lost))
	}
	rows := sparkRows(f.lay.ShowSM)
	rows = rows[:min(f.lay.GPURows, len(rows))] // those the layout has room for
	height := len(rows)
	switch {
	case g.IsMIGInstance():
		rows = migRows(g, height)
	case g.MIG:
		rows = f.rowsWithData(dev, height)
	}
	own, spill := f.gpuFields(dev, f.at, rows, lost)
	owner := alloc.Short(f.ownerOf(g.Index, f.at))
	top := len(out)
	for r, row := range rows {
		ln := f.newLine(f.width)
		switch {
		case r == 0:
			ln.Add(label, labelInk)
		case r == 1 && owner != "":
			// Who holds it, under its name: the label column is widened
			// for it where owners are known (relayout).
			ln.Add(" "+f.fit.FitWords(owner, f.lay.Label-2, false), f.theme.Dim)
		}
		ln.Pad(f.lay.Label)
		ln.Add(draw.PadRight(row.label, layout.RowLabelWidth), f.theme.Dim)
		f.store.Series(timeline.Key{Name: row.metric, Device: dev}, f.from, f.to, f.cols)
		lo, hi := row.scale(f.Model, dev, f.at)
		if !(hi > lo) {
			// No known ceiling (a log without the power limit): the
			// highest value in view, so the shape still shows.
			hi = highest(f.cols)
		}
		ln.Add(f.glyph.Spark(f.cols, lo, hi), row.ink(&f.theme))
		ln.Add(" ", draw.Ink{})
		ln.Add(row.value(f.Model, dev, f.at), row.ink(&f.theme))
		spill = draw.FillRow(ln, own[row.metric], spill, f.width)
		out = append(out, ln.String())
	}
	f.hitRows(top, height, hitGPU, i)
	return draw.PadBlank(out, top+height) // an instance without GPM: its memory alone
}

// gpuFields are the numbers a GPU block shows besides its rows' own, by the
// row they belong to, and those whose row is not shown (most important
// first), which spill into whatever room the shown rows have.
func (f *frame) gpuFields(dev string, at time.Time, rows []gpuRow, lost bool) (map[string][]draw.Field, []draw.Field) {
	if lost {
		return nil, []draw.Field{{Text: "LOST: fell off the bus", Ink: f.theme.Crit}}
	}
	v := func(name string) float64 { return f.value(name, dev, at) }
	has := func(name string) bool { return f.store.Has(timeline.Key{Name: name, Device: dev}) }
	shown := map[string]bool{}
	for _, r := range rows {
		shown[r.metric] = true
	}
	home := map[string][]draw.Field{}
	put := func(row string, f draw.Field) { home[row] = append(home[row], f) }

	if lo, hi := v(timeline.GPUUtilMin), v(timeline.GPUUtilMax); !math.IsNaN(lo) && !math.IsNaN(hi) && hi-lo >= 1 {
		put(timeline.GPUUtil, draw.Field{Text: fmt.Sprintf("(%.0f-%.0f%%)", lo, hi), Ink: f.theme.Dim})
	}
	// A MIG-enabled GPU's GPM figures are its instances': an N/A here
	// would say nothing its instances' rows do not.
	g := f.gpuInfo(dev)
	gpmOfInstances := g.MIG && !g.IsMIGInstance()
	known := func(name string) bool { return has(name) && !(gpmOfInstances && math.IsNaN(v(name))) }
	if !shown[timeline.GPUSMActive] && known(timeline.GPUSMActive) {
		put(timeline.GPUSMActive, draw.Field{Text: "SM " + strings.TrimSpace(draw.Pct(v(timeline.GPUSMActive))), Ink: f.theme.SM})
	}
	if known(timeline.GPUTensor) {
		put(timeline.GPUSMActive, draw.Field{Text: "tensor " + strings.TrimSpace(draw.Pct(v(timeline.GPUTensor))), Ink: f.theme.Dim})
	}
	// What the source never gave (an nvidia-smi log without temperatures)
	// is left out rather than shown as N/A, which reads as a failure.
	limit := f.limitOf(dev, at)
	switch {
	case !has(timeline.GPUPower) && g.IsMIGInstance():
		// The parent's power, shown on its rows.
	case !shown[timeline.GPUPower]:
		put(timeline.GPUPower, draw.Field{Text: units.WattsOf(v(timeline.GPUPower), limit), Ink: f.theme.Power})
	case limit > 0:
		put(timeline.GPUPower, draw.Field{Text: "of " + draw.Watts(limit), Ink: f.theme.Dim})
	}
	if flag := draw.ThrottleFlag(v(timeline.GPUThrottle)); flag != "" {
		put(timeline.GPUPower, draw.Field{Text: f.glyph.Warn + flag, Ink: f.theme.Warn})
	}
	if has(timeline.GPUTemp) {
		put(timeline.GPUPower, draw.Field{Text: units.Celsius(v(timeline.GPUTemp), f.ascii), Ink: f.theme.Temp})
	}
	if has(timeline.GPUClockSM) {
		put(timeline.GPUPower, draw.Field{Text: units.MHz(v(timeline.GPUClockSM)), Ink: f.theme.Dim})
	}
	if has(timeline.GPUMemUsed) {
		mem := draw.Mem(v(timeline.GPUMemUsed), v(timeline.GPUMemTotal))
		if !shown[timeline.GPUMemUsed] {
			// Beside another quantity's numbers, it says whose it is.
			mem = "mem " + mem
		}
		put(timeline.GPUMemUsed, draw.Field{Text: mem, Ink: f.theme.Mem})
	}
	if has(timeline.GPUPCIeRx) {
		put(timeline.GPUMemUsed, draw.Field{Text: "PCIe in " + draw.Rate(v(timeline.GPUPCIeRx)) + " out " + draw.Rate(v(timeline.GPUPCIeTx)), Ink: f.theme.Dim})
	}
	return home, rehome(home, shown)
}

// rehome gives the numbers of rows not on screen a fixed place, the same
// for every GPU at a size: memory right after utilization's own number
// (first, so that where the row is narrow it is the last to go: memory is
// always shown), power's numbers after SM activity's, or utilization's
// where there is no SM row. What has no place left (a MIG-enabled GPU's
// rows are the ones with data) spills into the first rows with room.
func rehome(home map[string][]draw.Field, shown map[string]bool) (spill []draw.Field) {
	move := func(from, to string, first bool) bool {
		if shown[from] || !shown[to] || len(home[from]) == 0 {
			return false
		}
		if first {
			home[to] = append(slices.Clone(home[from]), home[to]...)
		} else {
			home[to] = append(home[to], home[from]...)
		}
		delete(home, from)
		return true
	}
	move(timeline.GPUMemUsed, timeline.GPUUtil, true)
	if !move(timeline.GPUPower, timeline.GPUSMActive, false) {
		move(timeline.GPUPower, timeline.GPUUtil, false)
	}
	for _, name := range []string{timeline.GPUMemUsed, timeline.GPUPower, timeline.GPUSMActive} {
		if !shown[name] {
			spill = append(spill, home[name]...)
		}
	}
	return spill
}

// compactGPU is the one-row GPU of a small terminal: every number, one
// sparkline. " 98% SM  87% 68.2/79.6GiB 652/700W 71°C PWR"
func (f *frame) compactGPU(dev, label string, labelInk draw.Ink, lost bool) string {
	ln := f.newLine(f.width)
	ln.Add(label, labelInk)
	// A MIG instance has no utilisation: its sparkline is its SM activity.
	// A MIG-enabled GPU has none either: its sparkline is its power.
	g := f.gpuInfo(dev)
	mig := g.IsMIGInstance()
	spark, sparkInk, hi := timeline.GPUUtil, f.theme.Util, 100.0
	switch {
	case mig:
		spark, sparkInk = timeline.GPUSMActive, f.theme.SM
	case g.MIG:
		spark, sparkInk, hi = timeline.GPUPower, f.theme.Power, f.limitOf(dev, f.at)
	}
	f.store.Series(timeline.Key{Name: spark, Device: dev}, f.from, f.to, f.cols)
	if !(hi > 0) {
		hi = highest(f.cols)
	}
	ln.Add(f.glyph.Spark(f.cols, 0, hi), sparkInk)
	ln.Add(" ", draw.Ink{})
	if lost {
		ln.Add("LOST: fell off the bus", f.theme.Crit)
		return ln.String()
	}
	v := func(name string) float64 { return f.value(name, dev, f.at) }
	util := draw.Pct(v(timeline.GPUUtil))
	if mig && !f.store.Has(timeline.Key{Name: timeline.GPUUtil, Device: dev}) {
		util = draw.PadLeft("", len(util)) // never given: its column blank
	}
	ln.Add(util, f.theme.Util)
	if f.lay.ShowSM {
		ln.Add(" SM ", f.theme.Dim).Add(draw.Pct(v(timeline.GPUSMActive)), f.theme.SM)
	}
	// A quantity the source never gave keeps its column blank, not N/A.
	has := func(name string) bool { return f.store.Has(timeline.Key{Name: name, Device: dev}) }
	mem, temp := "", ""
	if has(timeline.GPUMemUsed) {
		mem = draw.Mem(v(timeline.GPUMemUsed), v(timeline.GPUMemTotal))
	}
	if has(timeline.GPUTemp) {
		temp = units.Celsius(v(timeline.GPUTemp), f.ascii)
	}
	ln.Add(" ", draw.Ink{}).Add(draw.PadLeft(mem, 12), f.theme.Mem)
	pwr := units.WattsOf(v(timeline.GPUPower), f.limitOf(dev, f.at))
	if mig && !has(timeline.GPUPower) {
		pwr = "" // its parent's, on the parent's row
	}
	ln.Add(" ", draw.Ink{}).Add(draw.PadLeft(pwr, 8), f.theme.Power)
	ln.Add(" ", draw.Ink{}).Add(draw.PadLeft(temp, 4), f.theme.Temp)
	if flag := draw.ThrottleFlag(v(timeline.GPUThrottle)); flag != "" {
		ln.Add(" ", draw.Ink{}).Add(flag, f.theme.Warn)
	}
	if o := alloc.Short(f.ownerOf(g.Index, f.at)); o != "" && ln.Width()+1+len([]rune(o)) <= f.width {
		ln.Add(" ", draw.Ink{}).Add(o, f.theme.Dim)
	}
	return ln.String()
}

// viewNoGPUs says why there are no GPUs to show (no driver, or still
// looking), in the rows the GPUs would have had.
func (f *frame) viewNoGPUs() []string {
	var out []string
	for _, n := range f.info.Notes {
		for _, l := range f.fit.WrapWords(" "+n, f.width, 0) {
			out = append(out, f.theme.Warn.Paint(l))
		}
	}
	if len(out) == 0 {
		out = append(out, f.theme.Warn.Paint(" no GPUs"))
	}
	if len(out) < layout.NoGPURows && len(f.info.Checks) > 0 {
		out = append(out, f.theme.Dim.Paint(f.fit.FitWords(" ? lists every check made while looking for GPUs", f.width, false)))
	}
	return draw.PadBlank(out, layout.NoGPURows)
}

// highest is the largest mean among cols, NaN if none is known.
func highest(cols []timeline.Agg) float64 {
	hi := math.NaN()
	for _, c := range cols {
		hi = draw.MaxKnown(hi, c.Mean)
	}
	return hi
}
