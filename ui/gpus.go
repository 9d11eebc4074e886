package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// frame is what every panel of one View shares: the window, the cursor and
// a scratch buffer for series, so a View allocates little.
type frame struct {
	from, to, at time.Time
	cols         []timeline.Agg
}

// gpuRow is one sparkline row of a GPU block.
type gpuRow struct {
	label  string
	metric string
	ink    func(*theme) ink
	scale  func(m *Model, dev string, at time.Time) (lo, hi float64)
	value  func(m *Model, dev string, at time.Time) string
}

func percentScale(*Model, string, time.Time) (float64, float64) { return 0, 100 }

var (
	utilRow = gpuRow{"util", timeline.GPUUtil, func(t *theme) ink { return t.util }, percentScale,
		func(m *Model, dev string, at time.Time) string { return fmtPct(m.value(timeline.GPUUtil, dev, at)) }}
	smRow = gpuRow{"SM", timeline.GPUSMActive, func(t *theme) ink { return t.sm }, percentScale,
		func(m *Model, dev string, at time.Time) string { return fmtPct(m.value(timeline.GPUSMActive, dev, at)) }}
	powerRow = gpuRow{"pwr", timeline.GPUPower, func(t *theme) ink { return t.power },
		func(m *Model, dev string, at time.Time) (float64, float64) {
			return 0, m.limitOf(dev, at)
		},
		func(m *Model, dev string, at time.Time) string {
			return fmt.Sprintf("%4s", fmtWatts(m.value(timeline.GPUPower, dev, at)))
		}}
	memRow = gpuRow{"mem", timeline.GPUMemUsed, func(t *theme) ink { return t.mem },
		func(m *Model, dev string, at time.Time) (float64, float64) {
			if total := m.value(timeline.GPUMemTotal, dev, at); total > 0 {
				return 0, total
			}
			return 0, m.gpuInfo(dev).MemTotal
		},
		func(m *Model, dev string, at time.Time) string {
			used, total := m.value(timeline.GPUMemUsed, dev, at), m.value(timeline.GPUMemTotal, dev, at)
			if total > 0 && !math.IsNaN(used) {
				return fmtPct(100 * used / total)
			}
			return " " + na
		}}
)

// A MIG instance has no utilisation, power, clocks or temperature of its
// own (NVML gives them for the physical GPU): its rows are what it has, SM
// activity and memory from GPM and its own memory, then DRAM bandwidth
// and SM occupancy, the same number of rows as a whole GPU's.
var (
	dramRow = gpuRow{"dram", timeline.GPUDRAMBW, func(t *theme) ink { return t.mem }, percentScale,
		func(m *Model, dev string, at time.Time) string { return fmtPct(m.value(timeline.GPUDRAMBW, dev, at)) }}
	occRow = gpuRow{"occ", timeline.GPUSMOccupancy, func(t *theme) ink { return t.sm }, percentScale,
		func(m *Model, dev string, at time.Time) string {
			return fmtPct(m.value(timeline.GPUSMOccupancy, dev, at))
		}}
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
func (m *Model) rowsWithData(f *frame, dev string, n int) []gpuRow {
	var have, lack []gpuRow
	for _, r := range sparkRows(m.lay.showSM) {
		m.store.Series(timeline.Key{Name: r.metric, Device: dev}, f.from, f.to, f.cols)
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

// rowsFor is the rows that fit this layout.
func (l *layout) rowsFor() []gpuRow {
	rows := sparkRows(l.showSM)
	return rows[:min(l.gpuRows, len(rows))]
}

// value is key's value at the cursor.
func (m *Model) value(name, dev string, at time.Time) float64 {
	return m.store.ValueAt(timeline.Key{Name: name, Device: dev}, at)
}

// limitOf is a GPU's power limit: sampled, else from the source's header.
func (m *Model) limitOf(dev string, at time.Time) float64 {
	if v := m.value(timeline.GPUPowerLimit, dev, at); v > 0 {
		return v
	}
	return m.gpuInfo(dev).PowerLimit
}

// gpuInfo is what the source said of a GPU at the start; unknown figures
// are NaN.
func (m *Model) gpuInfo(dev string) timeline.GPUInfo {
	for _, g := range m.info.GPUs {
		if timeline.GPUDevice(g.Index) == dev {
			return g
		}
	}
	return timeline.GPUInfo{MemTotal: math.NaN(), PowerLimit: math.NaN()}
}

// viewGPUs draws every GPU block.
func (m *Model) viewGPUs(f *frame) []string {
	if m.info.MultiHost() && len(m.hosts.names) > 0 {
		// Every host has its line from the first second, GPUs or not: it
		// says what the host is waiting for.
		return m.viewHostGPUs(f)
	}
	if len(m.info.GPUs) == 0 {
		return m.viewNoGPUs()
	}
	return m.viewGPUList(f)
}

func (m *Model) gpuLabel(i int, g timeline.GPUInfo) string {
	mark := " "
	if i == m.gpu {
		mark = "▸"
		if m.ascii {
			mark = ">"
		}
	}
	if g.IsMIGInstance() {
		return padRight(mark+migLabel(g, m.ascii), m.lay.label)
	}
	return padRight(mark+fmt.Sprintf("GPU%d", g.OnHost()), m.lay.label)
}

func (m *Model) viewGPU(f *frame, i int, g timeline.GPUInfo) []string {
	dev := timeline.GPUDevice(g.Index)
	label := m.gpuLabel(i, g)
	labelInk := m.theme.title
	if i == m.gpu {
		labelInk = m.theme.sel
	}
	lost := m.store.Lost(dev, f.at)
	if m.lay.gpuRows == 1 {
		return []string{m.compactGPU(f, dev, label, labelInk, lost)}
	}
	rows := m.lay.rowsFor()
	height := len(rows)
	switch {
	case g.IsMIGInstance():
		rows = migRows(g, height)
	case g.MIG:
		rows = m.rowsWithData(f, dev, height)
	}
	own, spill := m.gpuFields(dev, f.at, rows, lost)
	var out []string
	for r, row := range rows {
		ln := m.newLine(m.width)
		if r == 0 {
			ln.add(label, labelInk)
		}
		ln.pad(m.lay.label)
		ln.add(padRight(row.label, rowLabelWidth), m.theme.dim)
		m.store.Series(timeline.Key{Name: row.metric, Device: dev}, f.from, f.to, f.cols)
		lo, hi := row.scale(m, dev, f.at)
		if !(hi > lo) {
			// No known ceiling (a log without the power limit): the
			// highest value in view, so the shape still shows.
			hi = highest(f.cols)
		}
		ln.add(m.glyph.spark(f.cols, lo, hi), row.ink(&m.theme))
		ln.add(" ", ink{})
		ln.add(row.value(m, dev, f.at), row.ink(&m.theme))
		spill = fillRow(ln, &m.theme, own[row.metric], spill, m.width)
		out = append(out, ln.String())
	}
	for len(out) < height { // an instance without GPM: its memory alone
		ln := m.newLine(m.width)
		if len(out) == 0 {
			ln.add(label, labelInk)
		}
		out = append(out, ln.String())
	}
	return out
}

// fillRow adds a row's own fields, then as many spilled ones (fields whose
// row is not on screen) as fit; it returns the spill that is left.
func fillRow(ln *line, t *theme, own, spill []field, width int) []field {
	for _, fl := range own {
		if ln.w+1+fl.width() > width {
			break
		}
		ln.add(" ", ink{})
		fl.paint(ln, t)
	}
	for len(spill) > 0 && ln.w+1+spill[0].width() <= width {
		ln.add(" ", ink{})
		spill[0].paint(ln, t)
		spill = spill[1:]
	}
	return spill
}

// rowLabelWidth is the width of the row labels ("util", "SM", "phase") and
// a space.
const rowLabelWidth = 6

// field is one number beside the sparklines. Each belongs to a row (power
// limit, temperature and throttling beside the power sparkline); a field
// whose row is not on screen spills into the first rows with room.
type field struct {
	text string
	ink  func(*theme) ink
}

func (f field) width() int { return len([]rune(f.text)) }

func (f field) paint(l *line, t *theme) {
	k := ink{}
	if f.ink != nil {
		k = f.ink(t)
	}
	l.add(f.text, k)
}

func dimInk(t *theme) ink   { return t.dim }
func warnInk(t *theme) ink  { return t.warn }
func critInk(t *theme) ink  { return t.crit }
func memInk(t *theme) ink   { return t.mem }
func powerInk(t *theme) ink { return t.power }
func tempInk(t *theme) ink  { return t.temp }
func smInk(t *theme) ink    { return t.sm }

// gpuFields are the numbers a GPU block shows besides its rows' own, by the
// row they belong to, and those whose row is not shown (most important
// first), which spill into whatever room the shown rows have.
func (m *Model) gpuFields(dev string, at time.Time, rows []gpuRow, lost bool) (map[string][]field, []field) {
	if lost {
		return nil, []field{{"LOST: fell off the bus", critInk}}
	}
	v := func(name string) float64 { return m.value(name, dev, at) }
	has := func(name string) bool { return m.store.Has(timeline.Key{Name: name, Device: dev}) }
	shown := map[string]bool{}
	for _, r := range rows {
		shown[r.metric] = true
	}
	home := map[string][]field{}
	put := func(row string, f field) { home[row] = append(home[row], f) }

	if lo, hi := v(timeline.GPUUtilMin), v(timeline.GPUUtilMax); !math.IsNaN(lo) && !math.IsNaN(hi) && hi-lo >= 1 {
		put(timeline.GPUUtil, field{fmt.Sprintf("(%.0f-%.0f%%)", lo, hi), dimInk})
	}
	// A MIG-enabled GPU's GPM figures are its instances': an N/A here
	// would say nothing its instances' rows do not.
	g := m.gpuInfo(dev)
	gpmOfInstances := g.MIG && !g.IsMIGInstance()
	known := func(name string) bool { return has(name) && !(gpmOfInstances && math.IsNaN(v(name))) }
	if !shown[timeline.GPUSMActive] && known(timeline.GPUSMActive) {
		put(timeline.GPUSMActive, field{"SM " + strings.TrimSpace(fmtPct(v(timeline.GPUSMActive))), smInk})
	}
	if known(timeline.GPUTensor) {
		put(timeline.GPUSMActive, field{"tensor " + strings.TrimSpace(fmtPct(v(timeline.GPUTensor))), dimInk})
	}
	// What the source never gave (an nvidia-smi log without temperatures)
	// is left out rather than shown as N/A, which reads as a failure.
	limit := m.limitOf(dev, at)
	switch {
	case !has(timeline.GPUPower) && g.IsMIGInstance():
		// The parent's power, shown on its rows.
	case !shown[timeline.GPUPower]:
		put(timeline.GPUPower, field{units.WattsOf(v(timeline.GPUPower), limit), powerInk})
	case limit > 0:
		put(timeline.GPUPower, field{"of " + fmtWatts(limit), dimInk})
	}
	if flag := throttleFlag(v(timeline.GPUThrottle)); flag != "" {
		put(timeline.GPUPower, field{m.glyph.warn + flag, warnInk})
	}
	if has(timeline.GPUTemp) {
		put(timeline.GPUPower, field{fmtTemp(v(timeline.GPUTemp), m.ascii), tempInk})
	}
	if has(timeline.GPUClockSM) {
		put(timeline.GPUPower, field{fmtMHz(v(timeline.GPUClockSM)), dimInk})
	}
	if has(timeline.GPUMemUsed) {
		mem := fmtMem(v(timeline.GPUMemUsed), v(timeline.GPUMemTotal))
		if !shown[timeline.GPUMemUsed] {
			// Beside another quantity's numbers, it says whose it is.
			mem = "mem " + mem
		}
		put(timeline.GPUMemUsed, field{mem, memInk})
	}
	if has(timeline.GPUPCIeRx) {
		put(timeline.GPUMemUsed, field{"PCIe in " + fmtRate(v(timeline.GPUPCIeRx)) + " out " + fmtRate(v(timeline.GPUPCIeTx)), dimInk})
	}
	return home, rehome(home, shown)
}

// rehome gives the numbers of rows not on screen a fixed place, the same
// for every GPU at a size: memory right after utilization's own number
// (first, so that where the row is narrow it is the last to go: memory is
// always shown), power's numbers after SM activity's, or utilization's
// where there is no SM row. What has no place left (a MIG-enabled GPU's
// rows are the ones with data) spills into the first rows with room.
func rehome(home map[string][]field, shown map[string]bool) (spill []field) {
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
func (m *Model) compactGPU(f *frame, dev, label string, labelInk ink, lost bool) string {
	ln := m.newLine(m.width)
	ln.add(label, labelInk)
	// A MIG instance has no utilisation: its sparkline is its SM activity.
	// A MIG-enabled GPU has none either: its sparkline is its power.
	g := m.gpuInfo(dev)
	mig := g.IsMIGInstance()
	spark, sparkInk, hi := timeline.GPUUtil, m.theme.util, 100.0
	switch {
	case mig:
		spark, sparkInk = timeline.GPUSMActive, m.theme.sm
	case g.MIG:
		spark, sparkInk, hi = timeline.GPUPower, m.theme.power, m.limitOf(dev, f.at)
	}
	m.store.Series(timeline.Key{Name: spark, Device: dev}, f.from, f.to, f.cols)
	if !(hi > 0) {
		hi = highest(f.cols)
	}
	ln.add(m.glyph.spark(f.cols, 0, hi), sparkInk)
	ln.add(" ", ink{})
	if lost {
		ln.add("LOST: fell off the bus", m.theme.crit)
		return ln.String()
	}
	v := func(name string) float64 { return m.value(name, dev, f.at) }
	util := fmtPct(v(timeline.GPUUtil))
	if mig && !m.store.Has(timeline.Key{Name: timeline.GPUUtil, Device: dev}) {
		util = padLeft("", len(util)) // never given: its column blank
	}
	ln.add(util, m.theme.util)
	if m.lay.showSM {
		ln.add(" SM ", m.theme.dim).add(fmtPct(v(timeline.GPUSMActive)), m.theme.sm)
	}
	// A quantity the source never gave keeps its column blank, not N/A.
	has := func(name string) bool { return m.store.Has(timeline.Key{Name: name, Device: dev}) }
	mem, temp := "", ""
	if has(timeline.GPUMemUsed) {
		mem = fmtMem(v(timeline.GPUMemUsed), v(timeline.GPUMemTotal))
	}
	if has(timeline.GPUTemp) {
		temp = fmtTemp(v(timeline.GPUTemp), m.ascii)
	}
	ln.add(" ", ink{}).add(padLeft(mem, 12), m.theme.mem)
	pwr := units.WattsOf(v(timeline.GPUPower), m.limitOf(dev, f.at))
	if mig && !has(timeline.GPUPower) {
		pwr = "" // its parent's, on the parent's row
	}
	ln.add(" ", ink{}).add(padLeft(pwr, 8), m.theme.power)
	ln.add(" ", ink{}).add(padLeft(temp, 4), m.theme.temp)
	if flag := throttleFlag(v(timeline.GPUThrottle)); flag != "" {
		ln.add(" ", ink{}).add(flag, m.theme.warn)
	}
	return ln.String()
}

// viewNoGPUs says why there are no GPUs to show (no driver, or still
// looking), in the rows the GPUs would have had.
func (m *Model) viewNoGPUs() []string {
	var out []string
	for _, n := range m.info.Notes {
		for _, l := range m.fit.wrapWords(" "+n, m.width, 0) {
			out = append(out, m.theme.warn.paint(l))
		}
	}
	if len(out) == 0 {
		out = append(out, m.theme.warn.paint(" no GPUs"))
	}
	if len(out) < noGPURows && len(m.info.Checks) > 0 {
		out = append(out, m.theme.dim.paint(m.fit.fitWords(" ? lists every check made while looking for GPUs", m.width, false)))
	}
	return padBlank(out, noGPURows)
}

// highest is the largest mean among cols, NaN if none is known.
func highest(cols []timeline.Agg) float64 {
	hi := math.NaN()
	for _, c := range cols {
		hi = maxKnown(hi, c.Mean)
	}
	return hi
}
