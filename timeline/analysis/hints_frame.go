package analysis

import (
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// hintFrame is the timeline on a regular grid of columns (one per sampling
// interval and at least a second wide), with every GPU's state classified
// per column. The Engine keeps one that grows as samples arrive; rules
// judge a view of it cut at the moment asked about (Engine.view), so that
// what they say of a moment never depends on what came after it.
type hintFrame struct {
	opts     HintOptions
	from     time.Time     // the start of column 0
	step     time.Duration // the width of a column
	interval time.Duration // the sampling interval
	n        int
	gpus     []*hintGPU
	host     hintHost
	// kept is what views share: windows judged, stalls found, the job,
	// the hosts (frameKept). Nil for a frame built alone in a test.
	kept *frameKept
	// inView is what rules keep for this view alone (keepInView): what
	// they judged of windows that reach the open column, which the Engine
	// does not keep.
	inView map[string]any
}

// hintState is what a GPU was doing in one column.
type hintState uint8

const (
	hsUnknown hintState = iota // no utilisation, SM activity or clock and power
	hsIdle                     // SM activity below IdleSM where known, else utilisation below IdleUtil
	hsLow                      // working, below BusyWork
	hsBusy                     // working, at or above BusyWork
	hsWaiting                  // utilisation high, but SM activity or power says it is spinning
)

// hintGPU is one GPU's columns. A metric the GPU never reported before the
// view's end is nil; a column without a value is NaN (throttle: -1).
type hintGPU struct {
	index int
	// slot is the order the Engine first saw the GPU in: its place in the
	// Engine's column sums.
	slot                                   int
	util, sm, power, mem, temp, clock, bus []float32
	throttle                               []int32
	// limit and memTotal are the power limit (W) and memory (bytes) known
	// at the view's end; NaN if unknown.
	limit, memTotal float64
	// powerRef is what busy-wait compares power with: the limit, or
	// without one the busiest draw seen on this node (refFromLimit false).
	powerRef     float64
	refFromLimit bool
	state        []hintState
	// work is SM activity where known, else utilisation, and 0 while
	// busy-waiting: what the GPU really got done.
	work []float32

	// What was known at each column: the power limit and memory total, the
	// power reference busy-wait compares with (and whether it is the
	// limit), and the highest SM clock and draw this GPU had reached.
	limitAt, memTotalAt, refAt, refIsLimit, maxClockAt, maxPowerAt steps

	// seen is when each metric was first seen (a column; -1 never), for
	// views: the Engine's frame only.
	seen [hintMetrics]int
}

// steps is a value known at each column that changes seldom (a limit, a
// reference): the columns where it changed, and its values from there.
type steps struct {
	at []int32
	v  []float32
}

// set makes v the value from column i on.
func (s *steps) set(i int, v float32) {
	n := len(s.at)
	switch {
	case n > 0 && (s.v[n-1] == v || (v != v && s.v[n-1] != s.v[n-1])):
		return // no change
	case n > 0 && int(s.at[n-1]) == i:
		s.v[n-1] = v
		return
	}
	s.at, s.v = append(s.at, int32(i)), append(s.v, v)
}

// get is the value at column i; NaN before the first.
func (s *steps) get(i int) float64 {
	k := sortSearch(len(s.at), func(k int) bool { return int(s.at[k]) > i })
	if k == 0 {
		return math.NaN()
	}
	return float64(s.v[k-1])
}

// The metrics of a GPU, for hintGPU.seen.
const (
	mUtil = iota
	mSM
	mPower
	mMem
	mTemp
	mClock
	mBus
	mThrottle
	hintMetrics
)

// series returns the GPU's column slice of metric m.
func (g *hintGPU) series(m int) *[]float32 {
	switch m {
	case mUtil:
		return &g.util
	case mSM:
		return &g.sm
	case mPower:
		return &g.power
	case mMem:
		return &g.mem
	case mTemp:
		return &g.temp
	case mClock:
		return &g.clock
	case mBus:
		return &g.bus
	}
	return nil
}

// judgeable says whether a GPU's columns can say what it did: utilisation,
// SM activity, or (an imported log without either) its clock and power.
func (g *hintGPU) judgeable() bool {
	return g.util != nil || g.sm != nil || (g.clock != nil && g.power != nil)
}

// classify sets the state and work of column i; see hintState and
// HintOptions for the thresholds. Where SM activity is known it decides
// idle and busy (a kernel on a few SMs reads 30 % utilisation and does
// next to nothing), except that a GPU whose utilisation says a kernel runs
// most of the time is working, however few SMs it keeps busy (tiny
// kernels, launch-bound): low, never idle. Utilisation alone decides
// otherwise, and without either, the clock and power do (see
// clockState).
func (g *hintGPU) classify(i int, o HintOptions, clockIdle, powerIdle float64) {
	u, m := hintAt(g.util, i), hintAt(g.sm, i)
	work := m
	if math.IsNaN(m) {
		work = u
	}
	st := hsLow
	switch {
	case math.IsNaN(work):
		st, work = g.clockState(i, clockIdle, powerIdle), math.NaN()
	case u >= o.WaitUtil && g.spinning(i, o):
		st, work = hsWaiting, 0
	case !math.IsNaN(m): // SM activity beats utilisation
		switch {
		case m >= o.BusyWork:
			st = hsBusy
		case m < o.IdleSM && !(u >= o.LaunchUtil):
			st = hsIdle
		}
	case u < o.IdleUtil:
		st = hsIdle
	case u >= o.BusyWork:
		st = hsBusy
	}
	g.state[i], g.work[i] = st, float32(work)
}

// clockState judges a column from the SM clock and power alone, for logs
// without utilisation: at the clock's idle floor and an idle draw the GPU
// is idle; above both it is working, how hard unknown (low, with no work
// figure). clockIdle and powerIdle are the levels at or below which each
// counts as idle; NaN where they cannot be told yet.
func (g *hintGPU) clockState(i int, clockIdle, powerIdle float64) hintState {
	c, p := hintAt(g.clock, i), hintAt(g.power, i)
	if math.IsNaN(c) || math.IsNaN(p) || math.IsNaN(clockIdle) || math.IsNaN(powerIdle) {
		return hsUnknown
	}
	if c <= clockIdle && p <= powerIdle {
		return hsIdle
	}
	return hsLow
}

// spinning says whether a column with high utilisation did little: SM
// activity below WaitSM, or without SM activity, power at most WaitPower of
// the reference. Without either it cannot tell, and says no.
func (g *hintGPU) spinning(i int, o HintOptions) bool {
	if m := hintAt(g.sm, i); !math.IsNaN(m) {
		return m < o.WaitSM
	}
	p := hintAt(g.power, i)
	ref := g.refAt.get(i)
	return p > 0 && ref > 0 && p <= o.WaitPower*ref
}

// working says whether a column has the GPU doing real work.
func (g *hintGPU) working(i int) bool { return g.state[i] == hsLow || g.state[i] == hsBusy }

// shareIn is the share of a window's known columns (state known) where
// cond holds; false when under half the window is known.
func (g *hintGPU) shareIn(w hintSpan, cond func(i int) bool) (float64, bool) {
	known, yes := 0, 0
	for i := w.lo; i < w.hi; i++ {
		if g.state[i] == hsUnknown {
			continue
		}
		known++
		if cond(i) {
			yes++
		}
	}
	if known == 0 || 2*known < w.len() {
		return 0, false
	}
	return float64(yes) / float64(known), true
}

// at is a moment as the hints say it: how far into the session.
func (f *hintFrame) at(t time.Time) string {
	return units.Duration(t.Sub(f.from).Truncate(time.Second)) + " in"
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

// view is the frame cut at n columns: every slice shortened to them, a
// metric first seen later nil, the limits and references as known at the
// last of them, and only the GPUs that can be judged by then. It shares
// the engine's memory, so it is cheap; it must not be written to.
func (f *hintFrame) view(n int) *hintFrame {
	v := &hintFrame{opts: f.opts, from: f.from, step: f.step, interval: f.interval, n: n, kept: f.kept}
	if n == 0 {
		return v
	}
	for _, g := range f.gpus {
		c := &hintGPU{index: g.index, state: g.state[:n], work: g.work[:n],
			limitAt: g.limitAt, memTotalAt: g.memTotalAt, refAt: g.refAt, refIsLimit: g.refIsLimit,
			maxClockAt: g.maxClockAt, maxPowerAt: g.maxPowerAt}
		for m := range mThrottle {
			if s := *g.series(m); g.seen[m] >= 0 && g.seen[m] < n {
				*c.series(m) = s[:n]
			}
		}
		if g.seen[mThrottle] >= 0 && g.seen[mThrottle] < n {
			c.throttle = g.throttle[:n]
		}
		c.limit, c.memTotal = g.limitAt.get(n-1), g.memTotalAt.get(n-1)
		c.powerRef, c.refFromLimit = g.refAt.get(n-1), g.refIsLimit.get(n-1) == 1
		if c.judgeable() {
			v.gpus = append(v.gpus, c)
		}
	}
	v.host = f.host.view(n)
	return v
}
