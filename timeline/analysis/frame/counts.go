package frame

import (
	"math"
)

// Counting a GPU's columns by state over a window, and the figures rules
// compare with their thresholds.

// Counts counts a window's columns by state, and sums the work where
// it is known (a GPU judged by its clock alone has a state, not a work
// figure).
type Counts struct {
	cols, known, Idle, Active, Waiting int
	work, activeWork                   float64
	workKnown, activeKnown             int
	// thirds has bit k set if the GPU worked in the k-th third of the
	// window.
	thirds uint8
}

func (g *GPU) Counts(w Span) Counts {
	c := Counts{cols: w.Len()}
	for i := w.Lo; i < w.Hi; i++ {
		v := float64(g.Work.At(i))
		switch g.State.At(i) {
		case Unknown:
			continue
		case Idle:
			c.Idle++
		case Low, Busy:
			c.Active++
			if v == v {
				c.activeWork += v
				c.activeKnown++
			}
			c.thirds |= 1 << (3 * (i - w.Lo) / w.Len())
		case Waiting:
			c.Waiting++
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

// Judged says whether at least half the window has data: a window that is
// mostly a gap in the recording is not evidence of anything.
func (c Counts) Judged() bool { return c.known > 0 && 2*c.known >= c.cols }

// Share is n over the known columns.
func (c Counts) Share(n int) float64 { return float64(n) / float64(c.known) }

// Starts says whether a window can start a stretch of a rule about a GPU
// that works, but too little: it worked in at least hintMinActive of the
// columns, and in every third of the window. The work must run through the
// window: a window that ends as a job starts (llama8b's first two idle
// minutes, then work) is a transition, not a GPU working lightly.
func (c Counts) Starts() bool {
	return c.Share(c.Active) >= hintMinActive && c.thirds == 0b111
}

// MeanWork is the mean work over the columns where it is known; NaN
// where it is known nowhere (a GPU judged by its clock alone), so no rule
// about how much work was done can hold.
func (c Counts) MeanWork() float64 { return meanOf(c.work, c.workKnown) }

// MeanWorkApartFromWaits is meanWork leaving out the columns where the GPU
// busy-waited: a GPU spinning while another rank checkpoints is waiting
// (busy-wait, periodic-stall), not working lightly.
func (c Counts) MeanWorkApartFromWaits() float64 { return meanOf(c.work, c.workKnown-c.Waiting) }

// Intensity is the mean work while the GPU worked: near 100 for a GPU that
// saturates whenever it gets work; NaN where unknown.
func (c Counts) Intensity() float64 { return meanOf(c.activeWork, c.activeKnown) }

// Mean is the mean of the known values of xs in w; NaN if none.
func Mean(xs *Floats, w Span) float64 {
	if !xs.Has() {
		return math.NaN()
	}
	sum, n := 0.0, 0
	for i := w.Lo; i < w.Hi; i++ {
		if v := xs.At(i); v == v {
			sum += float64(v)
			n++
		}
	}
	return meanOf(sum, n)
}

// meanOf is the mean of n values that sum to sum; NaN where there are none.
func meanOf(sum float64, n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// pick functions for Stats.
func PickUtil(g *GPU) *Floats  { return &g.Util }
func PickSM(g *GPU) *Floats    { return &g.SM }
func PickWork(g *GPU) *Floats  { return &g.Work }
func PickPower(g *GPU) *Floats { return &g.Power }
func PickMem(g *GPU) *Floats   { return &g.Mem }

// Activity describes what GPUs did over spans: "0-2% util, SM activity
// 0.5%", the SM activity alone where utilisation is not reported (MIG),
// the clock and power where neither is (a log of clocks and power).
func Activity(gs []*GPU, spans []Span, keep func(g *GPU, i int) bool) string {
	util := Stats(gs, PickUtil, spans, keep)
	sm := Stats(gs, PickSM, spans, keep)
	switch {
	case util.OK() && sm.OK():
		return Range(util, "% util") + ", SM activity " + Range(sm, "%")
	case util.OK():
		return Range(util, "% util")
	case sm.OK():
		return "SM activity " + Range(sm, "%")
	}
	clock := Stats(gs, func(g *GPU) *Floats { return &g.Clock }, spans, keep)
	power := Stats(gs, PickPower, spans, keep)
	return "SM clock " + Range(clock, "MHz") + " at " + Range(power, "W") + ", utilisation not recorded"
}

// Level picks a rule's threshold: enter when starting a stretch, stay
// when going on with one (hysteresis).
func Level(in bool, enter, stay float64) float64 {
	if in {
		return stay
	}
	return enter
}
