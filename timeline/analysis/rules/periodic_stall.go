package rules

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// PeriodicStall is periodic-stall: busy stretches cut by regular
// stalls. A stall is a run of idle or busy-waiting columns at least
// StallMin long (breaks of up to 2 s bridged), with work on both sides, so
// a recording's idle start and end are not stalls. A run of at least three
// consecutive stalls is periodic when either their spacing or the work
// between them varies by at most StallJitter (coefficient of variation:
// llama8b's checkpoints come every 40 s, then every 80 s, but always after
// the same ~100 Steps), the stalls themselves are alike (their lengths
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
var PeriodicStall = frame.Rule{
	ID: timeline.HintPeriodicStall,
	Find: func(f *frame.Frame) []frame.Cand {
		var out []frame.Cand
		for _, g := range f.GPUs {
			for _, run := range periodicRuns(f, g) {
				// Between two stalls the pattern goes on: it holds until a
				// stall is half a period late.
				period, _ := stallCycle(f, run)
				out = append(out, frame.Cand{ID: timeline.HintPeriodicStall, GPU: g.Index, Firm: true,
					Spans: []frame.Span{{Lo: run[0].Lo, Hi: run[len(run)-1].Hi}}, Grace: int(3 * period / 2 / f.Step)})
			}
		}
		return out
	},
	Describe: describePeriodicStall,
	// A stall with a host cause is that cause's: the loader (input-bound, one
	// thread) or the storage (io-wait) sets the rhythm of the gaps.
	YieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait},
}

// stallScan is what the Engine keeps of a GPU's stalls: those judged so
// far, each with the work between it and the one before, and the last run
// of stalled columns, not judged yet: it may still grow or be bridged to
// the next, so scanning goes on from its start. A run is judged once, as
// it becomes final, while the columns around it are held: the Engine may
// let go of them later (SetBudget), and the stalls, and the hints made of
// them, stay.
type stallScan struct {
	stalls []frame.Span
	gaps   []workSum
	runs   []frame.Span
	upto   int // columns scanned
}

// workSum is a GPU's work summed over the columns of a stretch that have it.
type workSum struct {
	sum float64
	n   int
}

// stallsOf returns a GPU's stalls, in order, and the work between each
// and the one before (gaps[0] is empty).
func stallsOf(f *frame.Frame, g *frame.GPU) (stalls []frame.Span, gaps []workSum) {
	minLen := max(2, int((f.Opts.StallMin+f.Step-1)/f.Step))
	// add keeps run r where it is a stall: long enough, work on each side.
	add := func(r frame.Span) {
		if !(r.Len() >= minLen && r.Lo > 0 && g.Working(r.Lo-1) && r.Hi < f.N && g.Working(r.Hi)) {
			return
		}
		var w workSum
		if n := len(stalls); n > 0 {
			for i := stalls[n-1].Hi; i < r.Lo; i++ {
				if v := g.Work.At(i); v == v {
					w.sum += float64(v)
					w.n++
				}
			}
		}
		stalls, gaps = append(stalls, r), append(gaps, w)
	}
	var runs []frame.Span
	closed := f.Closed()
	if f.Now() {
		// The view of now: go on from what was scanned of the closed columns.
		kept := periodicKeptOf(f)
		sc := kept.stalls[g.Index]
		if sc == nil {
			sc = &stallScan{}
			kept.stalls[g.Index] = sc
		}
		from := sc.upto
		if n := len(sc.runs); n > 0 {
			from = min(from, sc.runs[n-1].Lo)
			sc.runs = sc.runs[:n-1]
		}
		sc.runs = stallRuns(f, g, sc.runs, from, closed)
		sc.upto = closed
		// Every run but the last is final, and the last too once no stalled
		// column can come close enough to bridge it: judged now, once.
		final := len(sc.runs) - 1
		if final >= 0 && closed-sc.runs[final].Hi > stallBridge(f) {
			final++
		}
		stalls, gaps = sc.stalls, sc.gaps
		if final > 0 {
			for _, r := range sc.runs[:final] {
				add(r)
			}
			sc.stalls, sc.gaps = stalls, gaps
			sc.runs = sc.runs[:copy(sc.runs, sc.runs[final:])]
		}
		// The question's stalls go on from the kept ones without writing
		// to them (the next question may be of another moment).
		stalls, gaps = stalls[:len(stalls):len(stalls)], gaps[:len(gaps):len(gaps)]
		runs = stallRuns(f, g, slices.Clone(sc.runs), closed, f.N)
	} else {
		runs = stallRuns(f, g, nil, 0, f.N)
	}
	for _, r := range runs {
		add(r)
	}
	return stalls, gaps
}

// stallRuns appends to runs the runs of stalled columns in [from, to),
// bridging blips of work inside a stall.
func stallRuns(f *frame.Frame, g *frame.GPU, runs []frame.Span, from, to int) []frame.Span {
	stalled := func(i int) bool { return g.State.At(i) == frame.Idle || g.State.At(i) == frame.Waiting }
	bridge := stallBridge(f)
	for i := from; i < to; {
		if !stalled(i) {
			i++
			continue
		}
		j := i
		for j < to && stalled(j) {
			j++
		}
		if n := len(runs); n > 0 && bridges(runs[n-1], i, bridge, g.Working) {
			runs[n-1].Hi = j
		} else {
			runs = append(runs, frame.Span{Lo: i, Hi: j})
		}
		i = j
	}
	return runs
}

// stallBridge is the longest break of work inside one stall: 1 s.
func stallBridge(f *frame.Frame) int { return max(1, int(time.Second/f.Step)) }

// bridges says whether the break between a stall and the next stalled
// column at next is a blip inside one stall: at most bridge columns (1 s),
// under a fifth of the stall so far (a burst of work between two short
// idles is the input-bound sawtooth, not a blip), and working throughout
// (a gap in the recording is never bridged).
func bridges(stall frame.Span, next, bridge int, working func(int) bool) bool {
	gap := next - stall.Hi
	if gap > bridge || 5*gap > stall.Len() {
		return false
	}
	for i := stall.Hi; i < next; i++ {
		if !working(i) {
			return false
		}
	}
	return true
}

// periodicRuns splits a GPU's stalls into maximal runs of at least three
// consecutive stalls that are regular and alike (see PeriodicStall) and
// keeps those whose period and cost pass, with no stall outlasting the
// period and the GPU busy between them. A stall of another length ends a
// run and starts the next (llama8b's checkpoints take 16 s, then 55 s as
// they grow: two runs, two episodes of one hint). A run that is regular but
// too fast or too cheap is skipped whole: its parts would be too. Running
// sums keep it linear in the number of stalls (a day of an input-bound
// sawtooth has tens of thousands).
func periodicRuns(f *frame.Frame, g *frame.GPU) [][]frame.Span {
	stalls, gaps := stallsOf(f, g)
	// The same stalls make the same runs (what lies between them is in
	// closed columns): a new stall comes every few minutes, the question
	// every second.
	kept := periodicKeptOf(f)
	memo := kept.periodic[g.Index]
	if memo == nil || !slices.Equal(memo.stalls, stalls) || !slices.Equal(memo.gaps, gaps) {
		memo = &periodicMemo{runs: findPeriodicRuns(f, stalls, gaps)}
		kept.periodic[g.Index] = memo
	}
	// The memo keeps these stalls, not a copy: nothing writes to a
	// question's (stallsOf), and where they are the Engine's own they are
	// not a second copy of every stall.
	memo.stalls, memo.gaps = stalls, gaps
	out := make([][]frame.Span, len(memo.runs))
	for k, r := range memo.runs {
		out[k] = stalls[r[0]:r[1]]
	}
	return out
}

// periodicKept is what periodic-stall keeps between questions: each GPU's
// stalls scanned so far, and its runs for the last list of stalls.
type periodicKept struct {
	stalls   map[int]*stallScan
	periodic map[int]*periodicMemo
}

func periodicKeptOf(f *frame.Frame) *periodicKept {
	k := frame.Keep[periodicKept](f, timeline.HintPeriodicStall)
	if k.stalls == nil {
		k.stalls, k.periodic = map[int]*stallScan{}, map[int]*periodicMemo{}
	}
	return k
}

// periodicMemo is a GPU's periodic runs for one list of stalls.
type periodicMemo struct {
	stalls []frame.Span
	gaps   []workSum
	runs   [][2]int // each run's first stall and the one after its last
}

// findPeriodicRuns is periodicRuns without the memo, of stalls and the
// work between them (stallsOf).
func findPeriodicRuns(f *frame.Frame, stalls []frame.Span, gaps []workSum) [][2]int {
	var out [][2]int
	for i := 0; i+2 < len(stalls); {
		var spacing, work, lengths hintMoments
		lengths.add(float64(stalls[i].Len()))
		j := i
		for j+1 < len(stalls) {
			spacing.add(float64(stalls[j+1].Lo - stalls[j].Lo))
			work.add(float64(stalls[j+1].Lo - stalls[j].Hi))
			lengths.add(float64(stalls[j+1].Len()))
			if (spacing.cv() > f.Opts.StallJitter && work.cv() > f.Opts.StallJitter) || lengths.cv() > f.Opts.StallLengthJitter {
				break
			}
			j++
		}
		if j < i+2 {
			i++
			continue
		}
		run := stalls[i : j+1]
		if costly(f, run) && shortStalls(f, run) && busyBetween(f, gaps[i+1:j+1]) {
			out = append(out, [2]int{i, j + 1})
			i = j + 1
			continue
		}
		i = j // the stall that broke the pattern may start the next one
	}
	return out
}

// busyBetween says whether the GPU is busy between the stalls of a run,
// from the work between them (mean work at least BusyWork): busy
// stretches cut by stalls, not a GPU that idles with a short blip of light
// work now and then (unet_optuna's 17 % every 20 s is low-utilization).
func busyBetween(f *frame.Frame, between []workSum) bool {
	sum, n := 0.0, 0
	for _, w := range between {
		sum += w.sum
		n += w.n
	}
	return n > 0 && sum/float64(n) >= f.Opts.BusyWork
}

// shortStalls: no stall of a run outlasts its period, a pause that comes
// back, not one long stop among short ones.
func shortStalls(f *frame.Frame, run []frame.Span) bool {
	period, _ := stallCycle(f, run)
	longest := slices.MaxFunc(run, func(a, b frame.Span) int { return a.Len() - b.Len() })
	return f.Dur(longest) < period
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
func costly(f *frame.Frame, run []frame.Span) bool {
	period, share := stallCycle(f, run)
	long := time.Duration(run[len(run)-1].Lo-run[0].Lo)*f.Step >= time.Duration(f.Opts.SustainedWindows)*f.Opts.Window
	return long && period >= f.Opts.StallPeriod && share >= f.Opts.StallShare
}

// stallCycle is a run's median spacing and the share of time its stalls
// take (every stall but the last, over the first start to the last).
func stallCycle(f *frame.Frame, run []frame.Span) (period time.Duration, share float64) {
	spacing := make([]int, 0, len(run)-1)
	lost := 0
	for k := 1; k < len(run); k++ {
		spacing = append(spacing, run[k].Lo-run[k-1].Lo)
		lost += run[k-1].Len()
	}
	slices.Sort(spacing)
	period = time.Duration(spacing[len(spacing)/2]) * f.Step
	return period, float64(lost) / float64(run[len(run)-1].Lo-run[0].Lo)
}

func describePeriodicStall(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
	gs := f.Members(g)
	var periods []time.Duration
	share := 0.0 // the runs' shares summed, then their mean
	var lengths []float32
	var idleGPUs, waitGPUs []int
	var stallSpans []frame.Span
	for _, gpu := range gs {
		for _, run := range periodicRuns(f, gpu) {
			if frame.Jaccard(frame.Span{Lo: run[0].Lo, Hi: run[len(run)-1].Hi}, g.Hull) == 0 {
				continue
			}
			period, s := stallCycle(f, run)
			periods, share = append(periods, period), share+s
			for _, st := range run {
				lengths = append(lengths, float32(f.Dur(st).Seconds()))
			}
			stallSpans = append(stallSpans, run...)
			if frame.ShareOf([]*frame.GPU{gpu}, run, func(st frame.State) bool { return st == frame.Waiting }) >= 0.5 {
				waitGPUs = append(waitGPUs, gpu.Index)
			} else {
				idleGPUs = append(idleGPUs, gpu.Index)
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
	share /= float64(len(periods))
	length := frame.StatsOf(lengths)
	stallSpans = frame.Union(stallSpans)
	verb := "stall"
	if len(g.GPUs) == 1 {
		verb = "stalls"
	}
	ev := fmt.Sprintf("%s %s for %ss every %s, %s of the time (%d stalls over %s)", f.GPUNames(g.GPUs), verb,
		frame.Range(length, ""), units.Duration(period), units.Share(share), len(stallSpans), units.Duration(f.Held(g.Hull)))
	sug := "The job pauses every " + units.Duration(period) + ": checkpointing, evaluation or logging on the critical path. " +
		"Make it asynchronous (`torch.distributed.checkpoint.async_save`, a background thread) or less frequent."
	if len(idleGPUs) > 0 && len(waitGPUs) > 0 {
		idle := subset(gs, idleGPUs)
		wait := subset(gs, waitGPUs)
		waiting := func(gpu *frame.GPU, i int) bool { return gpu.State.At(i) == frame.Waiting }
		ev += fmt.Sprintf(": %s idle (%s) while %s wait at %s", f.GPUNames(idleGPUs), frame.Activity(idle, stallSpans, nil),
			f.GPUNames(waitGPUs), frame.Range(frame.Stats(wait, frame.PickUtil, stallSpans, waiting), "% util"))
		if p := frame.Stats(wait, frame.PickPower, stallSpans, waiting); p.OK() {
			ev += ", " + frame.Range(p, "W")
		}
		ev += " (spinning in a collective)"
		sug = fmt.Sprintf("%s stops every %s and the others wait for it in a collective: its rank does something on "+
			"the critical path, typically a synchronous checkpoint save, evaluation or logging on rank 0. Save "+
			"asynchronously (`torch.distributed.checkpoint.async_save`, a background thread) or less often.",
			f.GPUNames(idleGPUs), units.Duration(period))
	}
	ev += stallWrites(f.HostOf(gs[0]), stallSpans)
	ev += throughputLoss(f, stallSpans, g.Hull)
	sev := timeline.Warning
	if share >= 0.5 {
		sev = timeline.Critical
	}
	conf := 0.85
	if !frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
		conf = 0.7
	}
	return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * frame.KnownShare(gs, g.Spans)}, true
}

// subset returns the GPUs of gs with the given indexes.
func subset(gs []*frame.GPU, idx []int) []*frame.GPU {
	return slices.DeleteFunc(slices.Clone(gs), func(g *frame.GPU) bool { return !slices.Contains(idx, g.Index) })
}

// stallWrites notes disk writes during the stalls when they are at least
// 100 MB/s and twice what the host writes otherwise: a checkpoint.
func stallWrites(h *frame.Host, stalls []frame.Span) string {
	w := &h.DiskWrite
	if !w.Has() || len(stalls) == 0 {
		return ""
	}
	during := frame.HostStats(w, stalls)
	var between []frame.Span
	for k := 1; k < len(stalls); k++ {
		between = append(between, frame.Span{Lo: stalls[k-1].Hi, Hi: stalls[k].Lo})
	}
	other := frame.HostStats(w, between)
	if !during.OK() || during.Mean < 100e6 || (other.OK() && during.Mean < 2*other.Mean) {
		return ""
	}
	return "; the host writes " + units.Rate(during.Mean) + " to disk during them"
}
