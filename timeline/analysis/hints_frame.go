package analysis

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// hintFrame is [from, to] read once from the store onto a regular grid of
// columns (one per sampling interval and at least a second wide, coarser
// for very long spans), with every GPU's state classified per column.
// Rules judge windows of columns; nothing reads the store after this.
type hintFrame struct {
	opts     HintOptions
	from     time.Time
	step     time.Duration // the width of a column
	interval time.Duration // the sampling interval
	n        int
	gpus     []*hintGPU
	host     hintHost
	wcache   map[int][]hintSpan // windows, by length in Windows
}

// hintState is what a GPU was doing in one column.
type hintState uint8

const (
	hsUnknown hintState = iota // no utilisation and no SM activity
	hsIdle                     // SM activity below IdleSM where known, else utilisation below IdleUtil
	hsLow                      // working, below BusyWork
	hsBusy                     // working, at or above BusyWork
	hsWaiting                  // utilisation high, but SM activity or power says it is spinning
)

// hintGPU is one GPU's columns. A metric the GPU never reported in the span
// is nil; a column without a value is NaN (throttle: -1).
type hintGPU struct {
	index                                  int
	util, sm, power, mem, temp, clock, bus []float32
	throttle                               []int32
	limit                                  float64 // W, NaN if unknown
	memTotal                               float64 // bytes, NaN if unknown
	// powerRef is what busy-wait compares power with: the limit, or
	// without one the busiest draw seen on this node (refFromLimit false).
	powerRef     float64
	refFromLimit bool
	state        []hintState
	// work is SM activity where known, else utilisation, and 0 while
	// busy-waiting: what the GPU really got done.
	work []float32
}

// newHintFrame reads [from, to] from s; nil when the span holds less than
// one Window of samples.
func newHintFrame(s *timeline.Store, info timeline.SourceInfo, from, to time.Time, opts HintOptions) *hintFrame {
	if s == nil || s.Len() == 0 {
		return nil
	}
	interval := s.Interval()
	if interval <= 0 {
		interval = info.Interval
	}
	if interval <= 0 {
		interval = time.Second
	}
	// The last sample stands for the interval after it: asking up to it
	// (a report over a whole recording) includes that interval.
	if first := s.First(); from.Before(first) {
		from = first
	}
	if last := s.Last(); !to.Before(last) {
		to = last.Add(interval)
	}
	span := to.Sub(from)
	if span < opts.Window {
		return nil
	}
	// Columns are at least a second wide: NVML's utilisation is itself an
	// average over 1/6 s to 1 s, so finer columns add noise, not detail.
	step := max(interval, time.Second)
	if int64(span/step) > int64(opts.MaxColumns) {
		step = (span + time.Duration(opts.MaxColumns) - 1) / time.Duration(opts.MaxColumns)
	}
	f := &hintFrame{
		opts: opts, from: from, step: step, interval: interval,
		n: int(span / step), wcache: map[int][]hintSpan{},
	}
	scratch := make([]timeline.Agg, f.n)
	load := func(name, device string) []float32 {
		return f.load(s, timeline.Key{Name: name, Device: device}, scratch)
	}
	for _, idx := range timeline.GPUIndexes(s, info) {
		dev := timeline.GPUDevice(idx)
		g := &hintGPU{
			index: idx,
			util:  load(timeline.GPUUtil, dev), sm: load(timeline.GPUSMActive, dev), power: load(timeline.GPUPower, dev),
			mem: load(timeline.GPUMemUsed, dev), temp: load(timeline.GPUTemp, dev), clock: load(timeline.GPUClockSM, dev),
			bus:      f.loadPCIe(s, dev, scratch),
			throttle: f.loadThrottle(s, dev),
			limit:    math.NaN(), memTotal: math.NaN(),
		}
		if g.util == nil && g.sm == nil {
			continue // a GPU without activity data cannot be judged
		}
		for _, gi := range info.GPUs {
			if gi.Index == idx {
				g.limit, g.memTotal = gi.PowerLimit, gi.MemTotal
			}
		}
		if v := hintQuantile(load(timeline.GPUPowerLimit, dev), 0.5, nil); !math.IsNaN(v) {
			g.limit = v
		}
		if v := hintQuantile(load(timeline.GPUMemTotal, dev), 1, nil); !math.IsNaN(v) {
			g.memTotal = v
		}
		f.gpus = append(f.gpus, g)
	}
	if len(f.gpus) == 0 {
		return nil
	}
	f.setPowerRefs()
	for _, g := range f.gpus {
		f.classify(g)
	}
	f.loadHost(s, scratch)
	return f
}

// load reads one series onto the grid: nil if the key is unknown or has no
// value in the span.
func (f *hintFrame) load(s *timeline.Store, k timeline.Key, scratch []timeline.Agg) []float32 {
	if !s.Has(k) {
		return nil
	}
	s.Series(k, f.from, f.time(f.n), scratch)
	out := make([]float32, f.n)
	seen := false
	for i := range out {
		out[i] = float32(scratch[i].Mean)
		seen = seen || !scratch[i].Empty()
	}
	if !seen {
		return nil
	}
	return out
}

// loadPCIe is host-device traffic both ways, bytes/s.
func (f *hintFrame) loadPCIe(s *timeline.Store, dev string, scratch []timeline.Agg) []float32 {
	rx := f.load(s, timeline.Key{Name: timeline.GPUPCIeRx, Device: dev}, scratch)
	tx := f.load(s, timeline.Key{Name: timeline.GPUPCIeTx, Device: dev}, scratch)
	if rx == nil || tx == nil {
		return nil
	}
	for i := range rx {
		rx[i] += tx[i] // NaN stays NaN: both directions or unknown
	}
	return rx
}

// loadThrottle ORs the clock-event reason bits of the raw samples in each
// column. Bits cannot be averaged, so columns older than the raw tier
// (live, beyond its hour) are unknown rather than read from buckets; a
// column without a sample takes the one before it for up to two intervals,
// as Series holds values.
func (f *hintFrame) loadThrottle(s *timeline.Store, dev string) []int32 {
	k := timeline.Key{Name: timeline.GPUThrottle, Device: dev}
	if !s.Has(k) {
		return nil
	}
	bits := make([]int32, f.n)
	for i := range bits {
		bits[i] = -1
	}
	start := f.from
	if oldest := s.OldestRaw(); oldest.After(start) {
		start = oldest
	}
	seen := false
	s.Each(k, start, f.time(f.n), func(at time.Time, v float64) bool {
		c := f.col(at)
		if c < 0 || c >= f.n || math.IsNaN(v) || v < 0 || v != math.Trunc(v) {
			return true
		}
		if bits[c] < 0 {
			bits[c] = 0
		}
		bits[c] |= int32(v)
		seen = true
		return true
	})
	if !seen {
		return nil
	}
	hold := max(1, int(2*f.interval/f.step))
	carried := 0
	for i := 1; i < f.n; i++ {
		switch {
		case bits[i] >= 0:
			carried = 0
		case bits[i-1] >= 0 && carried < hold:
			bits[i] = bits[i-1]
			carried++
		}
	}
	return bits
}

// setPowerRefs gives each GPU the power busy-wait compares with: its limit
// where known; otherwise the 95th percentile of the draw while utilisation
// was at WaitUtil or more, the highest of any GPU of this node (the GPUs of
// one node are alike, and one of them may have done nothing but wait).
func (f *hintFrame) setPowerRefs() {
	node := math.NaN()
	for _, g := range f.gpus {
		if g.power == nil || g.util == nil {
			continue
		}
		v := hintQuantile(g.power, 0.95, func(i int) bool { return float64(g.util[i]) >= f.opts.WaitUtil })
		if !math.IsNaN(v) && (math.IsNaN(node) || v > node) {
			node = v
		}
	}
	for _, g := range f.gpus {
		g.powerRef, g.refFromLimit = node, false
		if g.limit > 0 {
			g.powerRef, g.refFromLimit = g.limit, true
		}
	}
}

// classify sets the state and work of every column; see hintState and
// HintOptions for the thresholds. Where SM activity is known it decides
// idle and busy (a kernel on a few SMs reads 30 % utilisation and does
// next to nothing); utilisation alone decides otherwise.
func (f *hintFrame) classify(g *hintGPU) {
	o := f.opts
	g.state = make([]hintState, f.n)
	g.work = make([]float32, f.n)
	for i := range f.n {
		u, m := hintAt(g.util, i), hintAt(g.sm, i)
		work := m
		if math.IsNaN(m) {
			work = u
		}
		st := hsLow
		switch {
		case math.IsNaN(work):
			st = hsUnknown
		case u >= o.WaitUtil && g.spinning(i, o):
			st, work = hsWaiting, 0
		case !math.IsNaN(m): // SM activity beats utilisation
			if m < o.IdleSM {
				st = hsIdle
			} else if m >= o.BusyWork {
				st = hsBusy
			}
		case u < o.IdleUtil:
			st = hsIdle
		case u >= o.BusyWork:
			st = hsBusy
		}
		g.state[i], g.work[i] = st, float32(work)
	}
}

// spinning says whether a column with high utilisation did little: SM
// activity below WaitSM, or without SM activity, power at most WaitPower of
// the reference. Without either it cannot tell, and says no.
func (g *hintGPU) spinning(i int, o HintOptions) bool {
	if m := hintAt(g.sm, i); !math.IsNaN(m) {
		return m < o.WaitSM
	}
	p := hintAt(g.power, i)
	return p > 0 && g.powerRef > 0 && p <= o.WaitPower*g.powerRef
}

// time is the start of column c.
func (f *hintFrame) time(c int) time.Time { return f.from.Add(time.Duration(c) * f.step) }

// col is the column that holds t.
func (f *hintFrame) col(t time.Time) int { return int(t.Sub(f.from) / f.step) }

// dur is how long a span of columns lasts.
func (f *hintFrame) dur(sp hintSpan) time.Duration { return time.Duration(sp.hi-sp.lo) * f.step }

// lengthFactor lowers the confidence of a short hint: 0.7 for one Window,
// 1 from four Windows on.
func (f *hintFrame) lengthFactor(sp hintSpan) float64 {
	return 0.6 + 0.4*min(1, float64(f.dur(sp))/float64(4*f.opts.Window))
}

// hintAt is xs[i] as a float64, NaN if xs is nil.
func hintAt(xs []float32, i int) float64 {
	if xs == nil {
		return math.NaN()
	}
	return float64(xs[i])
}

// hintQuantile is the q-quantile of the known values of xs at the columns
// keep accepts (all if keep is nil); NaN if there are none. Long spans are
// thinned to at most 8192 evenly spread values: evidence and references
// need a robust figure, not an exact one, and a day at 1 s must stay cheap.
func hintQuantile(xs []float32, q float64, keep func(i int) bool) float64 {
	return hintQuantileIn(xs, []hintSpan{{0, len(xs)}}, q, keep)
}

// hintQuantileIn is hintQuantile over the columns of spans.
func hintQuantileIn(xs []float32, spans []hintSpan, q float64, keep func(i int) bool) float64 {
	if xs == nil {
		return math.NaN()
	}
	total := 0
	for _, sp := range spans {
		total += sp.hi - sp.lo
	}
	stride := max(1, total/8192)
	vals := make([]float32, 0, min(total, 8192+len(spans)))
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i += stride {
			if v := xs[i]; v == v && (keep == nil || keep(i)) {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 {
		return math.NaN()
	}
	slices.Sort(vals)
	return float64(vals[int(math.Round(q*float64(len(vals)-1)))])
}
