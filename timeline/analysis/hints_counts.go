package analysis

import (
	"math"
)

// Counting a GPU's columns by state over a window, and the figures rules
// compare with their thresholds.

// hintCounts counts a window's columns by state, and sums the work where
// it is known (a GPU judged by its clock alone has a state, not a work
// figure).
type hintCounts struct {
	cols, known, idle, low, busy, waiting int
	work, activeWork                      float64
	workKnown, activeKnown                int
	// thirds has bit k set if the GPU worked in the k-th third of the
	// window.
	thirds uint8
}

func (g *hintGPU) counts(w hintSpan) hintCounts {
	c := hintCounts{cols: w.len()}
	for i := w.lo; i < w.hi; i++ {
		v := float64(g.work[i])
		switch g.state[i] {
		case hsUnknown:
			continue
		case hsIdle:
			c.idle++
		case hsLow, hsBusy:
			if g.state[i] == hsLow {
				c.low++
			} else {
				c.busy++
			}
			if v == v {
				c.activeWork += v
				c.activeKnown++
			}
			c.thirds |= 1 << (3 * (i - w.lo) / w.len())
		case hsWaiting:
			c.waiting++
		}
		c.known++
		if v == v {
			c.work += v
			c.workKnown++
		}
	}
	return c
}

// hintMinActive is the share of a window's columns in which a GPU must
// work for the rules about a starved or under-used GPU to start (see
// starts): below it the GPU is idle, not starved.
const hintMinActive = 0.03

// judged says whether at least half the window has data: a window that is
// mostly a gap in the recording is not evidence of anything.
func (c hintCounts) judged() bool { return c.known > 0 && 2*c.known >= c.cols }

// share is n over the known columns.
func (c hintCounts) share(n int) float64 { return float64(n) / float64(c.known) }

func (c hintCounts) active() int { return c.low + c.busy }

// starts says whether a window can start a stretch of a rule about a GPU
// that works, but too little: it worked in at least hintMinActive of the
// columns, and in every third of the window. The work must run through the
// window: a window that ends as a job starts (llama8b's first two idle
// minutes, then work) is a transition, not a GPU working lightly.
func (c hintCounts) starts() bool {
	return c.share(c.active()) >= hintMinActive && c.thirds == 0b111
}

// meanWork is the mean work over the columns where it is known; NaN
// where it is known nowhere (a GPU judged by its clock alone), so no rule
// about how much work was done can hold.
func (c hintCounts) meanWork() float64 {
	if c.workKnown == 0 {
		return math.NaN()
	}
	return c.work / float64(c.workKnown)
}

// meanWorkApartFromWaits is meanWork leaving out the columns where the GPU
// busy-waited: a GPU spinning while another rank checkpoints is waiting
// (busy-wait, periodic-stall), not working lightly.
func (c hintCounts) meanWorkApartFromWaits() float64 {
	if c.workKnown-c.waiting <= 0 {
		return math.NaN()
	}
	return c.work / float64(c.workKnown-c.waiting)
}

// intensity is the mean work while the GPU worked: near 100 for a GPU that
// saturates whenever it gets work; NaN where unknown.
func (c hintCounts) intensity() float64 {
	if c.activeKnown == 0 {
		return math.NaN()
	}
	return c.activeWork / float64(c.activeKnown)
}

// hintMean is the mean of the known values of xs in w; NaN if none.
func hintMean(xs []float32, w hintSpan) float64 {
	if xs == nil {
		return math.NaN()
	}
	sum, n := 0.0, 0
	for i := w.lo; i < w.hi; i++ {
		if v := xs[i]; v == v {
			sum += float64(v)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// pick functions for hintStats.
func hintPickUtil(g *hintGPU) []float32  { return g.util }
func hintPickSM(g *hintGPU) []float32    { return g.sm }
func hintPickWork(g *hintGPU) []float32  { return g.work }
func hintPickPower(g *hintGPU) []float32 { return g.power }
func hintPickMem(g *hintGPU) []float32   { return g.mem }

// hintActivity describes what GPUs did over spans: "0-2% util, SM activity
// 0.5%", the SM activity alone where utilisation is not reported (MIG),
// the clock and power where neither is (a log of clocks and power).
func hintActivity(gs []*hintGPU, spans []hintSpan, keep func(g *hintGPU, i int) bool) string {
	util := hintStats(gs, hintPickUtil, spans, keep)
	sm := hintStats(gs, hintPickSM, spans, keep)
	switch {
	case util.ok() && sm.ok():
		return hintRange(util, "% util") + ", SM activity " + hintRange(sm, "%")
	case util.ok():
		return hintRange(util, "% util")
	case sm.ok():
		return "SM activity " + hintRange(sm, "%")
	}
	clock := hintStats(gs, func(g *hintGPU) []float32 { return g.clock }, spans, keep)
	power := hintStats(gs, hintPickPower, spans, keep)
	return "SM clock " + hintRange(clock, "MHz") + " at " + hintRange(power, "W") + ", utilisation not recorded"
}

// hintLevel picks a rule's threshold: enter when starting a stretch, stay
// when going on with one (hysteresis).
func hintLevel(in bool, enter, stay float64) float64 {
	if in {
		return stay
	}
	return enter
}
