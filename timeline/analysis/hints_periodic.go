package analysis

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// periodicStallRule is periodic-stall: busy stretches cut by regular
// stalls. A stall is a run of idle or busy-waiting columns at least
// StallMin long (breaks of up to 2 s bridged), with work on both sides, so
// a recording's idle start and end are not stalls. A run of at least three
// consecutive stalls is periodic when either their spacing or the work
// between them varies by at most StallJitter (coefficient of variation:
// llama8b's checkpoints come every 40 s, then every 80 s, but always after
// the same ~100 steps), the stalls themselves are alike (their lengths
// vary by at most StallLengthJitter) and none outlasts their spacing (a
// 27-minute stall "every 12 min" is no period, but one long idle stretch,
// which idle-memory-held or gpu-idle names),
// the typical spacing is at least StallPeriod (a faster cycle is per step:
// input-bound or low-utilization), and the stalls cost at least StallShare
// of the time. A 2 s dip every minute is not one (too short and 3 %);
// neither are a healthy run's step boundaries. Between the stalls the GPU
// must be busy (mean work at least BusyWork).
//
// The whole span is judged, not windows: a period needs several cycles.
// GPUs whose stalls coincide are one hint, whose evidence tells the GPUs
// that idle (the rank doing the extra work) from those spinning in a
// collective while they wait for it. Critical when half the time or more
// is lost.
var periodicStallRule = hintRule{
	id: timeline.HintPeriodicStall,
	find: func(f *hintFrame) []hintCand {
		var out []hintCand
		for _, g := range f.gpus {
			for _, run := range f.periodicRuns(g, f.stalls(g)) {
				// Between two stalls the pattern goes on: it holds until a
				// stall is half a period late.
				period, _ := f.stallCycle(run)
				out = append(out, hintCand{id: timeline.HintPeriodicStall, gpu: g.index, firm: true,
					spans: []hintSpan{{run[0].lo, run[len(run)-1].hi}}, grace: int(3 * period / 2 / f.step)})
			}
		}
		return out
	},
	describe: describePeriodicStall,
	yieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread},
}

// stallScan is a GPU's runs of stalled columns found so far, kept by the
// Engine: runs before the last are final; the last may still grow or be
// bridged to the next, so scanning goes on from its start.
type stallScan struct {
	runs []hintSpan
	upto int // columns scanned
}

// stalls returns a GPU's stalls, in order.
func (f *hintFrame) stalls(g *hintGPU) []hintSpan {
	working := func(i int) bool { return g.state[i] == hsLow || g.state[i] == hsBusy }
	minLen := max(2, int((f.opts.StallMin+f.step-1)/f.step))
	var runs []hintSpan
	closed := f.closed()
	if f.now() {
		// The view of now: go on from what was scanned of the closed columns.
		kept := periodicKeptOf(f)
		sc := kept.stalls[g.index]
		if sc == nil {
			sc = &stallScan{}
			kept.stalls[g.index] = sc
		}
		from := sc.upto
		if n := len(sc.runs); n > 0 {
			from = min(from, sc.runs[n-1].lo)
			sc.runs = sc.runs[:n-1]
		}
		sc.runs = f.stallRuns(g, sc.runs, from, closed)
		sc.upto = closed
		runs = f.stallRuns(g, slices.Clone(sc.runs), closed, f.n)
	} else {
		runs = f.stallRuns(g, nil, 0, f.n)
	}
	out := runs[:0]
	for _, r := range runs {
		if r.len() >= minLen && r.lo > 0 && working(r.lo-1) && r.hi < f.n && working(r.hi) {
			out = append(out, r)
		}
	}
	return out
}

// stallRuns appends to runs the runs of stalled columns in [from, to),
// bridging blips of work inside a stall.
func (f *hintFrame) stallRuns(g *hintGPU, runs []hintSpan, from, to int) []hintSpan {
	stalled := func(i int) bool { return g.state[i] == hsIdle || g.state[i] == hsWaiting }
	working := func(i int) bool { return g.state[i] == hsLow || g.state[i] == hsBusy }
	bridge := max(1, int(time.Second/f.step))
	for i := from; i < to; {
		if !stalled(i) {
			i++
			continue
		}
		j := i
		for j < to && stalled(j) {
			j++
		}
		if n := len(runs); n > 0 && f.bridges(runs[n-1], i, bridge, working) {
			runs[n-1].hi = j
		} else {
			runs = append(runs, hintSpan{i, j})
		}
		i = j
	}
	return runs
}

// bridges says whether the break between a stall and the next stalled
// column at next is a blip inside one stall: at most bridge columns (1 s),
// under a fifth of the stall so far (a burst of work between two short
// idles is the input-bound sawtooth, not a blip), and working throughout
// (a gap in the recording is never bridged).
func (f *hintFrame) bridges(stall hintSpan, next, bridge int, working func(int) bool) bool {
	gap := next - stall.hi
	if gap > bridge || 5*gap > stall.len() {
		return false
	}
	for i := stall.hi; i < next; i++ {
		if !working(i) {
			return false
		}
	}
	return true
}

// periodicRuns splits a GPU's stalls into maximal runs of at least three
// consecutive stalls that are regular and alike (see periodicStallRule) and
// keeps those whose period and cost pass, with no stall outlasting the
// period and the GPU busy between them. A stall of another length ends a
// run and starts the next (llama8b's checkpoints take 16 s, then 55 s as
// they grow: two runs, two episodes of one hint). A run that is regular but
// too fast or too cheap is skipped whole: its parts would be too. Running
// sums keep it linear in the number of stalls (a day of an input-bound
// sawtooth has tens of thousands).
func (f *hintFrame) periodicRuns(g *hintGPU, stalls []hintSpan) [][]hintSpan {
	// The same stalls make the same runs (what lies between them is in
	// closed columns): a new stall comes every few minutes, the question
	// every second.
	kept := periodicKeptOf(f)
	memo := kept.periodic[g.index]
	if memo != nil && slices.Equal(memo.stalls, stalls) {
		return memo.runs
	}
	out := f.findPeriodicRuns(g, stalls)
	kept.periodic[g.index] = &periodicMemo{stalls: slices.Clone(stalls), runs: out}
	return out
}

// periodicKept is what periodic-stall keeps between questions: each GPU's
// stalls scanned so far, and its runs for the last list of stalls.
type periodicKept struct {
	stalls   map[int]*stallScan
	periodic map[int]*periodicMemo
}

func periodicKeptOf(f *hintFrame) *periodicKept {
	k := keep[periodicKept](f, timeline.HintPeriodicStall)
	if k.stalls == nil {
		k.stalls, k.periodic = map[int]*stallScan{}, map[int]*periodicMemo{}
	}
	return k
}

// periodicMemo is a GPU's periodic runs for one list of stalls.
type periodicMemo struct {
	stalls []hintSpan
	runs   [][]hintSpan
}

// findPeriodicRuns is periodicRuns without the memo.
func (f *hintFrame) findPeriodicRuns(g *hintGPU, stalls []hintSpan) [][]hintSpan {
	var out [][]hintSpan
	for i := 0; i+2 < len(stalls); {
		var spacing, work, lengths hintMoments
		lengths.add(float64(stalls[i].len()))
		j := i
		for j+1 < len(stalls) {
			spacing.add(float64(stalls[j+1].lo - stalls[j].lo))
			work.add(float64(stalls[j+1].lo - stalls[j].hi))
			lengths.add(float64(stalls[j+1].len()))
			if (spacing.cv() > f.opts.StallJitter && work.cv() > f.opts.StallJitter) || lengths.cv() > f.opts.StallLengthJitter {
				break
			}
			j++
		}
		if j < i+2 {
			i++
			continue
		}
		run := stalls[i : j+1]
		if f.costly(run) && f.shortStalls(run) && f.busyBetween(g, run) {
			out = append(out, run)
			i = j + 1
			continue
		}
		i = j // the stall that broke the pattern may start the next one
	}
	return out
}

// busyBetween says whether the GPU is busy between the stalls of a run
// (mean work at least BusyWork): busy stretches cut by stalls, not a GPU
// that idles with a short blip of light work now and then (unet_optuna's
// 17 % every 20 s is low-utilization).
func (f *hintFrame) busyBetween(g *hintGPU, run []hintSpan) bool {
	sum, n := 0.0, 0
	for k := 1; k < len(run); k++ {
		for _, w := range g.work[run[k-1].hi:run[k].lo] {
			if w == w {
				sum += float64(w)
				n++
			}
		}
	}
	return n > 0 && sum/float64(n) >= f.opts.BusyWork
}

// shortStalls: no stall of a run outlasts its period, a pause that comes
// back, not one long stop among short ones.
func (f *hintFrame) shortStalls(run []hintSpan) bool {
	period, _ := f.stallCycle(run)
	longest := slices.MaxFunc(run, func(a, b hintSpan) int { return a.len() - b.len() })
	return f.dur(longest) < period
}

// hintMoments keeps the count, sum and sum of squares of a series.
type hintMoments struct{ n, sum, sq float64 }

func (m *hintMoments) add(x float64) { m.n, m.sum, m.sq = m.n+1, m.sum+x, m.sq+x*x }

// cv is the coefficient of variation (standard deviation over mean).
func (m *hintMoments) cv() float64 {
	mean := m.sum / m.n
	if !(mean > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(max(0, m.sq/m.n-mean*mean)) / mean
}

// costly: the run lasts a sustained window (SustainedWindows × Window,
// from its first stall's start to its last's: a pattern, not a cluster),
// its median spacing is at least StallPeriod and its stalls take at least
// StallShare of that time.
func (f *hintFrame) costly(run []hintSpan) bool {
	period, share := f.stallCycle(run)
	long := time.Duration(run[len(run)-1].lo-run[0].lo)*f.step >= time.Duration(f.opts.SustainedWindows)*f.opts.Window
	return long && period >= f.opts.StallPeriod && share >= f.opts.StallShare
}

// stallCycle is a run's median spacing and the share of time its stalls
// take (every stall but the last, over the first start to the last).
func (f *hintFrame) stallCycle(run []hintSpan) (period time.Duration, share float64) {
	spacing := make([]int, 0, len(run)-1)
	lost := 0
	for k := 1; k < len(run); k++ {
		spacing = append(spacing, run[k].lo-run[k-1].lo)
		lost += run[k-1].len()
	}
	slices.Sort(spacing)
	period = time.Duration(spacing[len(spacing)/2]) * f.step
	return period, float64(lost) / float64(run[len(run)-1].lo-run[0].lo)
}

func describePeriodicStall(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
	gs := f.members(g)
	var periods []time.Duration
	var shares []float64
	var lengths []float32
	var idleGPUs, waitGPUs []int
	var stallSpans []hintSpan
	for _, gpu := range gs {
		for _, run := range f.periodicRuns(gpu, f.stalls(gpu)) {
			if hintJaccard(hintSpan{run[0].lo, run[len(run)-1].hi}, g.hull) == 0 {
				continue
			}
			period, share := f.stallCycle(run)
			periods, shares = append(periods, period), append(shares, share)
			for _, st := range run {
				lengths = append(lengths, float32(f.dur(st).Seconds()))
			}
			stallSpans = append(stallSpans, run...)
			if hintShareOf([]*hintGPU{gpu}, run, func(st hintState) bool { return st == hsWaiting }) >= 0.5 {
				waitGPUs = append(waitGPUs, gpu.index)
			} else {
				idleGPUs = append(idleGPUs, gpu.index)
			}
		}
	}
	if len(periods) == 0 {
		return timeline.Hint{}, false
	}
	slices.Sort(periods)
	period := periods[len(periods)/2]
	if period >= time.Minute {
		period = period.Round(5 * time.Second) // "every 2m", not "every 1m59s"
	}
	share := 0.0
	for _, s := range shares {
		share += s
	}
	share /= float64(len(shares))
	length := hintStats([]*hintGPU{{util: lengths}}, hintPickUtil, []hintSpan{{0, len(lengths)}}, nil)
	stallSpans = hintUnion(stallSpans)
	verb := "stall"
	if len(g.gpus) == 1 {
		verb = "stalls"
	}
	ev := fmt.Sprintf("%s %s for %ss every %s, %s of the time (%d stalls over %s)", f.gpuNames(g.gpus), verb,
		hintRange(length, ""), units.Duration(period), units.Share(share), len(stallSpans), units.Duration(f.dur(g.hull)))
	sug := "The job pauses every " + units.Duration(period) + ": checkpointing, evaluation or logging on the critical path. " +
		"Make it asynchronous (`torch.distributed.checkpoint.async_save`, a background thread) or less frequent."
	if len(idleGPUs) > 0 && len(waitGPUs) > 0 {
		idle := f.subset(gs, idleGPUs)
		wait := f.subset(gs, waitGPUs)
		waiting := func(gpu *hintGPU, i int) bool { return gpu.state[i] == hsWaiting }
		ev += fmt.Sprintf(": %s idle (%s) while %s wait at %s", f.gpuNames(idleGPUs), hintActivity(idle, stallSpans, nil),
			f.gpuNames(waitGPUs), hintRange(hintStats(wait, hintPickUtil, stallSpans, waiting), "% util"))
		if p := hintStats(wait, hintPickPower, stallSpans, waiting); p.ok() {
			ev += ", " + hintRange(p, "W")
		}
		ev += " (spinning in a collective)"
		sug = fmt.Sprintf("%s stops every %s and the others wait for it in a collective: its rank does something on "+
			"the critical path, typically a synchronous checkpoint save, evaluation or logging on rank 0. Save "+
			"asynchronously (`torch.distributed.checkpoint.async_save`, a background thread) or less often.",
			f.gpuNames(idleGPUs), units.Duration(period))
	}
	ev += f.stallWrites(stallSpans)
	ev += f.throughputLoss(stallSpans, g.hull)
	sev := timeline.Warning
	if share >= 0.5 {
		sev = timeline.Critical
	}
	conf := 0.85
	if !hintStats(gs, hintPickSM, g.spans, nil).ok() {
		conf = 0.7
	}
	return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * hintKnownShare(gs, g.spans)}, true
}

// subset returns the GPUs of gs with the given indexes.
func (f *hintFrame) subset(gs []*hintGPU, idx []int) []*hintGPU {
	var out []*hintGPU
	for _, g := range gs {
		if slices.Contains(idx, g.index) {
			out = append(out, g)
		}
	}
	return out
}

// stallWrites notes disk writes during the stalls when they are at least
// 100 MB/s and twice what the host writes otherwise: a checkpoint.
func (f *hintFrame) stallWrites(stalls []hintSpan) string {
	w := f.host.diskWrite
	if w == nil || len(stalls) == 0 {
		return ""
	}
	during := hintHostStats(w, stalls)
	var between []hintSpan
	for k := 1; k < len(stalls); k++ {
		between = append(between, hintSpan{stalls[k-1].hi, stalls[k].lo})
	}
	other := hintHostStats(w, between)
	if !during.ok() || during.mean < 100e6 || (other.ok() && during.mean < 2*other.mean) {
		return ""
	}
	return "; the host writes " + units.Rate(during.mean) + " to disk during them"
}
