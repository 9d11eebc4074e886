package analysis

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// frozenLog is the Engine's watch for frozen telemetry: each GPU's last
// closed column, the run of identical columns it ends, and the freezes
// recognised.
type frozenLog struct {
	gpus map[int]*frozenGPU
}

// frozenGPU is one GPU's watch.
type frozenGPU struct {
	have     bool
	lastCol  int                  // the last column closed with figures
	last     [hintMetrics]float32 // its figures, throttle bits as a float
	runStart int                  // the first column of the run of identical columns
	lively   bool                 // the figures varied in the FrozenMin before the run
	jitters  bool                 // the run's figures include one a live GPU never holds still
	// changed has a bit per column: its figures differ from the closed
	// column before it.
	changed []uint64
	closed  []uint64 // a bit per column closed with figures (not held, not empty)
	spans   []frozenSpan
}

// frozenSpan is a freeze: columns [lo, hi), recognised when column seen
// closed, and the figures that repeated.
type frozenSpan struct {
	lo, hi, seen int
	vals         [hintMetrics]float32
}

// readings names the figures that repeated, to their last digit (as the
// Engine keeps them): "util 100%, 699.731 W, 71°C".
func (sp frozenSpan) readings() string {
	var parts []string
	add := func(m int, prefix, suffix string) {
		if v := sp.vals[m]; v == v {
			parts = append(parts, prefix+strconv.FormatFloat(float64(v), 'f', -1, 32)+suffix)
		}
	}
	add(mUtil, "util ", "%")
	add(mSM, "SM ", "%")
	add(mPower, "", " W")
	add(mTemp, "", "°C")
	add(mClock, "", " MHz")
	if v := float64(sp.vals[mMem]); !math.IsNaN(v) {
		parts = append(parts, units.Bytes(v))
	}
	return strings.Join(parts, ", ")
}

func setBit(bits *[]uint64, i int) {
	for len(*bits) <= i/64 {
		*bits = append(*bits, 0)
	}
	(*bits)[i/64] |= 1 << (i % 64)
}

// columnFigures are a GPU's figures in column i, the throttle bits as a
// float (-1 unknown).
func columnFigures(g *hintGPU, i int) [hintMetrics]float32 {
	var v [hintMetrics]float32
	for m := range mThrottle {
		v[m] = float32(hintAt(*g.series(m), i))
	}
	v[mThrottle] = -1
	if g.throttle != nil {
		v[mThrottle] = float32(g.throttle[i])
	}
	return v
}

func sameFigures(a, b *[hintMetrics]float32) bool {
	for m := range a {
		if a[m] != b[m] && !(a[m] != a[m] && b[m] != b[m]) {
			return false
		}
	}
	return true
}

// close watches GPU g's column i as it closes (Engine.closeColumn): it
// extends or ends the run of identical columns, recognises a freeze once
// the run holds the rule's conditions, and makes every column of a
// recognised freeze unknown (unfrozen reports whether columns before i
// were, so the Engine forgets what it judged of them).
func (fl *frozenLog) close(f *hintFrame, g *hintGPU, i int) (unfrozen bool) {
	if fl.gpus == nil {
		fl.gpus = map[int]*frozenGPU{}
	}
	fg := fl.gpus[g.index]
	if fg == nil {
		fg = &frozenGPU{}
		fl.gpus[g.index] = fg
	}
	v := columnFigures(g, i)
	if math.IsNaN(float64(v[mPower])) {
		// Without power nothing tells a freeze from a steady GPU; and a
		// column without figures (a lost GPU) is no repeat.
		fg.have = false
		return false
	}
	setBit(&fg.closed, i)
	o := f.opts
	same := fg.have && sameFigures(&v, &fg.last)
	switch {
	case !same:
		if fg.have {
			setBit(&fg.changed, i)
		}
		fg.runStart, fg.lively, fg.jitters = i, fg.livelyBefore(f, i), jitters(&v, o)
	case fg.ongoing():
		sp := &fg.spans[len(fg.spans)-1]
		frozenColumns(g, sp.hi, i+1) // the held columns since, and this one
		sp.hi = i + 1
	case fg.lively && fg.jitters && i+1-fg.runStart >= frozenMinColumns &&
		time.Duration(i+1-fg.runStart)*f.step >= o.FrozenMin:
		fg.spans = append(fg.spans, frozenSpan{lo: fg.runStart, hi: i + 1, seen: i, vals: v})
		frozenColumns(g, fg.runStart, i+1)
		unfrozen = fg.runStart < i
	}
	fg.have, fg.last, fg.lastCol = true, v, i
	return unfrozen
}

// ongoing says whether the last freeze reaches the last column closed.
func (fg *frozenGPU) ongoing() bool {
	return fg.have && len(fg.spans) > 0 && fg.spans[len(fg.spans)-1].hi == fg.lastCol+1
}

// frozenMinColumns is the fewest columns a freeze spans: at a 15 s step
// (Prometheus' default) 2 min is eight of them.
const frozenMinColumns = 8

// livelyBefore says whether the figures changed between at least half of
// the (four or more) closed columns of the FrozenMin before column i.
func (fg *frozenGPU) livelyBefore(f *hintFrame, i int) bool {
	lo := max(0, i-int(f.opts.FrozenMin/f.step))
	n, changed := countBits(fg.closed, lo, i), countBits(fg.changed, lo, i)
	return n >= 4 && 2*changed >= n
}

// countBits counts the bits set in [lo, hi): a few words, whatever the
// window (it is asked at every column of every GPU).
func countBits(b []uint64, lo, hi int) int {
	n := 0
	for w := lo / 64; w <= (hi-1)/64 && w < len(b) && lo < hi; w++ {
		word := b[w]
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
// power while working, or power with digits below the watt.
func jitters(v *[hintMetrics]float32, o HintOptions) bool {
	p := float64(v[mPower])
	working := float64(v[mUtil]) >= o.IdleUtil || float64(v[mSM]) >= o.IdleSM
	return !math.IsNaN(p) && (working || p != math.Trunc(p))
}

// frozenColumns makes columns [lo, hi) of g unknown: no state, no work, no
// figures, for every rule.
func frozenColumns(g *hintGPU, lo, hi int) {
	nan := float32(math.NaN())
	for i := lo; i < hi; i++ {
		g.state[i], g.work[i] = hsUnknown, nan
		for m := range mThrottle {
			if s := *g.series(m); s != nil {
				s[i] = nan
			}
		}
		if g.throttle != nil {
			g.throttle[i] = -1
		}
	}
}

// judge keeps the column being filled unknown while it repeats a freeze
// still going on (Engine.judgeColumn, after the column is classified).
func (fl *frozenLog) judge(g *hintGPU, i int) {
	fg := fl.gpus[g.index]
	if fg == nil || !fg.ongoing() || i <= fg.lastCol {
		return
	}
	if v := columnFigures(g, i); sameFigures(&v, &fg.last) {
		g.state[i], g.work[i] = hsUnknown, float32(math.NaN())
	}
}
