package analysis

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// frozenTelemetryRule is frozen-telemetry: a GPU whose every figure the
// Engine keeps (utilisation, SM activity, power, memory, temperature, SM
// clock, PCIe traffic, clock-event reasons) repeats to the last digit for
// FrozenMin (2 min) or more, over 8 columns or more, after they varied.
// A hung driver or exporter, or a stale DCGM cache, hands out the last
// readings again and again; a live GPU's readings jitter. So the stretch
// is no data: its columns are unknown to every other rule (a GPU frozen at
// 100 % and 700 W is not a busy plateau, nor one frozen at 0 % an idle
// GPU), and this rule says so. Warning.
//
// What counts as a freeze, and why (real logs of testdata/telemetry, and
// the demos, checked in hints_frozen_real_test.go):
//
//   - the readings include power, and power would move: the GPU is
//     working (util at IdleUtil or more, or SM activity at IdleSM or more)
//     or its power has digits below the watt. A live GPU's power moves in
//     its last digit from one second to the next: in the real logs with
//     power, no GPU repeats every figure for more than 4 s. An idle GPU
//     logged in whole watts does hold still (vgg16's dmon: 21 W, 47 C,
//     0 % for 3m43s), and so does one without power readings (unet's H200
//     at 0 %, 34 C for 2m22s): neither can be told from a frozen one, and
//     the rule stays silent on them;
//   - the figures varied before: they changed between at least half of the
//     (four or more) columns of the FrozenMin before the stretch, so a
//     mock whose values never move is not a freeze;
//   - it is recognised FrozenMin into the stretch (live, a hung NVML that
//     returns cached values), and from then on the whole stretch, its
//     first FrozenMin too, is unknown: a moment of that first FrozenMin
//     asked about afterwards (a replay stepped back) reads as unknown,
//     where asked about before it was recognised it read as what it
//     showed. The phases (busy, stalled, idle) still take its readings.
var frozenTelemetryRule = hintRule{
	id: timeline.HintFrozenTelemetry,
	find: func(f *hintFrame) []hintCand {
		if f.eng == nil {
			return nil
		}
		var out []hintCand
		for _, g := range f.gpus {
			fg := f.eng.frozen.gpus[g.index]
			if fg == nil {
				continue
			}
			for _, sp := range fg.spans {
				if sp.seen >= f.n {
					break // recognised after the view's end
				}
				out = append(out, hintCand{id: timeline.HintFrozenTelemetry, gpu: g.index, firm: true,
					spans: []hintSpan{{sp.lo, min(sp.hi, f.n)}}})
			}
		}
		return out
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		fg := f.eng.frozen.gpus[g.gpus[0]]
		var what string
		for _, sp := range fg.spans {
			if sp.lo == g.spans[0].lo {
				what = sp.readings()
			}
		}
		names := f.gpuNames(g.gpus)
		verb := "'s readings"
		if len(g.gpus) > 1 {
			verb = ": their readings"
		}
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: fmt.Sprintf("%s%s froze %s: every figure repeated to the last digit (%s) after they varied; "+
				"treated as no data", names, verb, f.during(g), what),
			Suggestion: "Telemetry stopped updating: a hung driver or exporter, or a stale DCGM cache. Check " +
				"`nvidia-smi` on the node (a hang there is the driver: look for Xid errors in `dmesg`), restart the " +
				"exporter (dcgm-exporter, nv-hostengine) or the monitoring agent; nothing is judged on these readings.",
			Confidence: 0.9,
		}, true
	},
}

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
