package frame

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// FrozenLog is the Engine's watch for frozen telemetry: each GPU's last
// closed column, the run of identical columns it ends, and the freezes
// recognised.
type FrozenLog struct {
	GPUs map[int]*FrozenGPU
}

// FrozenGPU is one GPU's watch.
type FrozenGPU struct {
	have     bool
	lastCol  int              // the last column closed with figures
	last     [Metrics]float32 // its figures, throttle bits as a float
	runStart int              // the first column of the run of identical columns
	lively   bool             // the figures varied in the FrozenMin before the run
	jitters  bool             // the run's figures include one a live GPU never holds still
	// changed has a bit per column: its figures differ from the closed
	// column before it.
	changed columnBits
	closed  columnBits // a bit per column closed with figures (not held, not empty)
	Spans   []FrozenSpan
}

// FrozenSpan is a freeze: columns [lo, hi), recognised when column seen
// closed, and the figures that repeated.
type FrozenSpan struct {
	Lo, Hi, Seen int
	vals         [Metrics]float32
}

// Readings names the figures that repeated, to their last digit (as the
// Engine keeps them): "util 100%, 699.731 W, 71°C".
func (sp FrozenSpan) Readings() string {
	var parts []string
	add := func(m int, prefix, suffix string) {
		if v := sp.vals[m]; v == v {
			parts = append(parts, prefix+strconv.FormatFloat(float64(v), 'f', -1, 32)+suffix)
		}
	}
	add(MetricUtil, "util ", "%")
	add(MetricSM, "SM ", "%")
	add(MetricPower, "", " W")
	add(MetricTemp, "", "°C")
	add(MetricClock, "", " MHz")
	if v := float64(sp.vals[MetricMem]); !math.IsNaN(v) {
		parts = append(parts, units.Bytes(v))
	}
	return strings.Join(parts, ", ")
}

// columnBits is a bit per column, of the columns from the word from on:
// only the last FrozenMin of them is ever read, and a week of 512 GPUs
// must not hold a bit per column of each.
type columnBits struct {
	words []uint64
	from  int // the word words[0] is
}

func (b *columnBits) set(i int) {
	for b.from+len(b.words) <= i/64 {
		b.words = append(b.words, 0)
	}
	b.words[i/64-b.from] |= 1 << (i % 64)
}

// forget lets go of the bits of the columns before col, 4,096 columns or
// more at a time (all it holds, after a GPU that was gone a long while).
func (b *columnBits) forget(col int) {
	if k := col/64 - b.from; k >= 64 {
		b.words = b.words[:copy(b.words, b.words[min(k, len(b.words)):])]
		b.from += k
	}
}

// columnFigures are a GPU's figures in column i, the throttle bits as a
// float (-1 unknown).
func columnFigures(g *GPU, i int) [Metrics]float32 {
	var v [Metrics]float32
	for m := range MetricThrottle {
		v[m] = float32(At(g.Series(m), i))
	}
	v[MetricThrottle] = -1
	if g.Throttle.Has() {
		v[MetricThrottle] = float32(g.Throttle.At(i))
	}
	return v
}

func sameFigures(a, b *[Metrics]float32) bool {
	return slices.EqualFunc(a[:], b[:], func(x, y float32) bool { return x == y || x != x && y != y })
}

// Close watches GPU g's column i as it closes (the Engine's closeColumn): it
// extends or ends the run of identical columns, recognises a freeze once
// the run holds the rule's conditions, and makes every column of a
// recognised freeze unknown (unfrozen reports whether columns before i
// were, so the Engine forgets what it judged of them).
func (fl *FrozenLog) Close(f *Frame, g *GPU, i int) (unfrozen bool) {
	if fl.GPUs == nil {
		fl.GPUs = map[int]*FrozenGPU{}
	}
	fg := fl.GPUs[g.Index]
	if fg == nil {
		fg = &FrozenGPU{}
		fl.GPUs[g.Index] = fg
	}
	v := columnFigures(g, i)
	if math.IsNaN(float64(v[MetricPower])) {
		// Without power nothing tells a freeze from a steady GPU; and a
		// column without figures (a lost GPU) is no repeat.
		fg.have = false
		return false
	}
	o := f.Opts
	window := int(o.FrozenMin / f.Step) // what livelyBefore reads back
	fg.closed.forget(i - window)
	fg.changed.forget(i - window)
	fg.closed.set(i)
	same := fg.have && sameFigures(&v, &fg.last)
	switch {
	case !same:
		if fg.have {
			fg.changed.set(i)
		}
		// Parked at its clock's idle floor (P8), a GPU's draw can hold to
		// the hundredth of a watt for minutes: regad's idle V100s read
		// 42.06 W at 135 MHz, over and over.
		// The floor is the one the Engine classifies by: half the node's
		// highest clock, or 700 MHz if that is higher.
		parked := float64(v[MetricClock]) <= 0.5*max(1400, g.MaxClockAt.Get(i))
		fg.runStart, fg.lively, fg.jitters = i, fg.livelyBefore(f, i), jitters(&v, o, parked)
	case fg.ongoing():
		sp := &fg.Spans[len(fg.Spans)-1]
		frozenColumns(g, sp.Hi, i+1) // the held columns since, and this one
		sp.Hi = i + 1
	case fg.lively && fg.jitters && i+1-fg.runStart >= frozenMinColumns &&
		time.Duration(i+1-fg.runStart)*f.Step >= o.FrozenMin:
		fg.Spans = append(fg.Spans, FrozenSpan{Lo: fg.runStart, Hi: i + 1, Seen: i, vals: v})
		frozenColumns(g, fg.runStart, i+1)
		unfrozen = fg.runStart < i
	}
	fg.have, fg.last, fg.lastCol = true, v, i
	return unfrozen
}

// ongoing says whether the last freeze reaches the last column closed.
func (fg *FrozenGPU) ongoing() bool {
	return fg.have && len(fg.Spans) > 0 && fg.Spans[len(fg.Spans)-1].Hi == fg.lastCol+1
}

// frozenMinColumns is the fewest columns a freeze spans: at a 15 s step
// (Prometheus' default) 2 min is eight of them.
const frozenMinColumns = 8

// livelyBefore says whether the figures changed between at least half of
// the (four or more) closed columns of the FrozenMin before column i.
func (fg *FrozenGPU) livelyBefore(f *Frame, i int) bool {
	lo := max(0, i-int(f.Opts.FrozenMin/f.Step))
	n, changed := fg.closed.count(lo, i), fg.changed.count(lo, i)
	return n >= 4 && 2*changed >= n
}

// count counts the bits set in [lo, hi), of columns not forgotten: a few
// words, whatever the window (it is asked at every column of every GPU).
func (b *columnBits) count(lo, hi int) int {
	n := 0
	for w := max(lo/64, b.from); w <= (hi-1)/64 && w < b.from+len(b.words) && lo < hi; w++ {
		word := b.words[w-b.from]
		if w == lo/64 {
			word &^= 1<<(lo%64) - 1
		}
		if w == (hi-1)/64 && hi%64 != 0 {
			word &= 1<<(hi%64) - 1
		}
		n += bits.OnesCount64(word)
	}
	return n
}

// jitters says whether figures include one a live GPU never holds still:
// power while working, or power with digits below the watt unless the GPU
// is parked at its idle clock.
func jitters(v *[Metrics]float32, o Options, parked bool) bool {
	p := float64(v[MetricPower])
	working := float64(v[MetricUtil]) >= o.IdleUtil || float64(v[MetricSM]) >= o.IdleSM
	return !math.IsNaN(p) && (working || !parked && p != math.Trunc(p))
}

// frozenColumns makes columns [lo, hi) of g unknown: no state, no work, no
// figures, for every rule.
func frozenColumns(g *GPU, lo, hi int) {
	nan := float32(math.NaN())
	for i := lo; i < hi; i++ {
		g.State.Set(i, Unknown)
		g.Work.Set(i, nan)
		for m := range MetricThrottle {
			g.Series(m).Set(i, nan)
		}
		g.Throttle.Set(i, -1)
	}
}

// Judge keeps the column being filled unknown while it repeats a freeze
// still going on (the Engine's judgeColumn, after the column is classified).
func (fl *FrozenLog) Judge(g *GPU, i int) {
	fg := fl.GPUs[g.Index]
	if fg == nil || !fg.ongoing() || i <= fg.lastCol {
		return
	}
	if v := columnFigures(g, i); sameFigures(&v, &fg.last) {
		g.State.Set(i, Unknown)
		g.Work.Set(i, float32(math.NaN()))
	}
}
