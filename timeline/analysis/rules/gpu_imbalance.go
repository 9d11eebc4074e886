package rules

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// GPUImbalance is gpu-imbalance: some GPUs idle or far lower than others.
// It judges each Window across the GPUs with data (at least two): the
// busiest GPU's mean work (SM activity where known, else utilisation; 0
// while busy-waiting) must be at least 20 % (15 % to go on), and the GPUs
// at or below a quarter of it (a third, to go on) are low. A stretch's
// GPUs are those low in at least half of its windows, its edges are the
// columns where they are still far below the rest, and it lasts at least a
// Window.
//
// Work, not utilisation, is compared, so GPUs spinning in a collective
// beside an idle rank 0 are all waiting, not imbalanced (a stall, see
// periodic-stall), and GPUs equally busy-waiting are never imbalanced.
// Critical when more than half the GPUs are low (seed report 002's seven
// of eight idle is most of the hardware wasted), else a warning. Lower
// confidence on utilisation alone, and when the low GPUs hold no memory
// (they may not belong to this job at all). Placement is one job's: with
// several jobs on one node this rule cannot tell them apart. In a session
// of several hosts placement is judged within each host, its GPUs against
// each other, and critical is more than half of that host's GPUs low: a
// whole host idle beside busy ones is host-idle (analysis/hosts). Where the
// node says who holds each GPU, a low GPU allocated and idle is
// allocated-idle instead.
var GPUImbalance = frame.Rule{
	ID:       timeline.HintGPUImbalance,
	Find:     findImbalance,
	Describe: describeImbalance,
	// A low GPU allocated to another holder than the busy ones is no
	// imbalance of one job; allocated-idle names whose it is.
	YieldsTo: []string{timeline.HintAllocatedIdle},
}

// imbalanceLow returns the low GPUs of a window, those at or below a
// quarter (a third) of the busiest one's level; nil if the window is not
// imbalanced. A GPU's level is its mean work, or where no work figure is
// known (a log of clocks and power) the share of the window it worked, as
// a percentage.
func imbalanceLow(f *frame.Frame, w frame.Span, in bool) []int {
	// Placement is within a host: in a session of several, each host is
	// judged on its own (a host idle beside busy ones is host-idle's).
	var low []int
	for _, part := range hostParts(f) {
		low = append(low, imbalanceLowAmong(part, w, in)...)
	}
	slices.Sort(low)
	return low
}

// imbalanceLowAmong is imbalanceLow of some GPUs.
func imbalanceLowAmong(gpus []*frame.GPU, w frame.Span, in bool) (low []int) {
	top, judged := math.Inf(-1), 0
	means := make([]float64, len(gpus))
	for k, g := range gpus {
		means[k] = math.NaN()
		if c := g.Counts(w); c.Judged() {
			means[k] = c.MeanWork()
			if math.IsNaN(means[k]) {
				means[k] = 100 * c.Share(c.Active)
			}
			top = max(top, means[k])
			judged++
		}
	}
	if judged < 2 || top < frame.Level(in, 20, 15) {
		return nil
	}
	limit := frame.Level(in, 0.25, 0.35) * top
	for k, m := range means {
		if m <= limit {
			low = append(low, gpus[k].Index)
		}
	}
	return low
}

// hostParts are the view's GPUs by host: all of them together in a
// session of one host (GPUs of no known host, together, are one more).
// A GPU split by MIG into slices of the session is left out: it is judged
// through its slices, never beside them (its power and memory are theirs,
// summed).
func hostParts(f *frame.Frame) [][]*frame.GPU {
	l := f.Layout()
	gpus := f.GPUs
	if len(l.Split) > 0 {
		gpus = slices.DeleteFunc(slices.Clone(gpus), func(g *frame.GPU) bool { return l.Split[g.Index] })
	}
	if len(l.Names) < 2 {
		return [][]*frame.GPU{gpus}
	}
	parts := make([][]*frame.GPU, len(l.Names)+1)
	for _, g := range gpus {
		h, ok := l.Of[g.Index]
		if !ok {
			h = len(l.Names)
		}
		parts[h] = append(parts[h], g)
	}
	return parts
}

// sameHost returns the view's GPUs on a host that one of low is on, in
// order of index (all of them in a session of one host).
func sameHost(f *frame.Frame, low []int) []*frame.GPU {
	parts := hostParts(f)
	if len(parts) == 1 {
		return parts[0]
	}
	var out []*frame.GPU
	for _, part := range parts {
		if slices.ContainsFunc(part, func(g *frame.GPU) bool { return slices.Contains(low, g.Index) }) {
			out = append(out, part...)
		}
	}
	slices.SortFunc(out, func(a, b *frame.GPU) int { return a.Index - b.Index })
	return out
}

// imbalanceVerdict is a grid window's low GPUs, kept: nil if it is not
// imbalanced.
type imbalanceVerdict struct {
	judged bool
	low    []int
}

// imbalanceLowOf is imbalanceLow of grid window k of ws, kept as holds
// keeps the other rules' verdicts.
func imbalanceLowOf(f *frame.Frame, ws []frame.Span, k int, in bool) []int {
	kept := frame.Keep[[2][]imbalanceVerdict](f, timeline.HintGPUImbalance) // for in false, in true
	v := &kept[0]
	if in {
		v = &kept[1]
	}
	for len(*v) <= k {
		*v = append(*v, imbalanceVerdict{})
	}
	if w := &(*v)[k]; !w.judged {
		w.low = imbalanceLow(f, ws[k], in)
		w.judged = true
	}
	return (*v)[k].low
}

// findImbalance runs the windows with hysteresis and returns one candidate
// per low GPU of each stretch; stretches of the same GPUs less than
// MergeGap apart share a key, so they are one hint.
func findImbalance(f *frame.Frame) []frame.Cand {
	if len(f.GPUs) < 2 {
		return nil
	}
	type lowStretch struct {
		span frame.Span
		low  []int
		firm bool
	}
	var stretches []lowStretch
	// The ends kept of each stretch: a question of the Engine's own view
	// keeps those it asked for, every stretch there is.
	var was, now imbalanceEnds
	if f.Now() {
		kept := frame.Keep[imbalanceEnds](f, timeline.HintGPUImbalance+" ends")
		was, now = *kept, imbalanceEnds{}
		*kept = now
	}
	var cur frame.Span
	firm := false
	votes := map[int]int{}
	windows := 0
	flush := func() {
		// The GPUs low in at least half of the stretch's windows.
		maps.DeleteFunc(votes, func(_, n int) bool { return 2*n < windows })
		low := slices.Sorted(maps.Keys(votes))
		// A stretch with a grid window starts on the grid: its ends stay,
		// for the same low GPUs.
		var ends *frame.Ends
		if firm && now != nil {
			at := imbalanceStretch{fmt.Sprint(low), cur.Lo}
			if ends = was[at]; ends == nil {
				ends = &frame.Ends{}
			}
			now[at] = ends
		}
		if sp, ok := f.Edges(ends, cur, func(i int) bool { return imbalancedAt(f, i, low) }); ok && len(low) > 0 &&
			f.Dur(sp) >= min(f.Opts.Window, f.Dur(cur)) {
			stretches = append(stretches, lowStretch{sp, low, firm})
		}
		clear(votes)
		windows = 0
	}
	in := false
	step := func(w frame.Span, low []int, onGrid bool) {
		if in && low == nil {
			flush()
			in = false
		}
		if low == nil {
			return
		}
		if !in {
			cur, in, firm = w, true, false
		}
		cur.Hi = max(cur.Hi, w.Hi)
		firm = firm || onGrid
		windows++
		for _, idx := range low {
			votes[idx]++
		}
	}
	grid, trail, hasTrail, extendOnly := f.Windows(1)
	for k, w := range grid {
		step(w, imbalanceLowOf(f, grid, k, in), true)
	}
	// The trailing window only carries a stretch on, once the grid is in.
	if hasTrail && (in || !extendOnly) {
		step(trail, imbalanceLow(f, trail, in), false)
	}
	if in {
		flush()
	}
	var out []frame.Cand
	gap := int(f.Opts.MergeGap / f.Step)
	key := ""
	for k, st := range stretches {
		if k == 0 || !slices.Equal(st.low, stretches[k-1].low) || st.span.Lo-stretches[k-1].span.Hi > gap {
			key = "imbalance " + strconv.Itoa(k)
		}
		for _, idx := range st.low {
			out = append(out, frame.Cand{ID: timeline.HintGPUImbalance, GPU: idx, Key: key, Whole: true, Firm: st.firm,
				Spans: []frame.Span{st.span}})
		}
	}
	return out
}

// imbalanceEnds are the ends Edges kept of each stretch (findImbalance).
type imbalanceEnds map[imbalanceStretch]*frame.Ends

// imbalanceStretch names a stretch: its low GPUs, spelled out, and the
// column its windows start at.
type imbalanceStretch struct {
	low string
	lo  int
}

// imbalancedAt says whether column i still shows the imbalance: the other
// GPUs work at least 20 % on average and the low ones at most a third of
// that. Where no work figure is known, a working column counts as 100 and
// an idle one as 0.
func imbalancedAt(f *frame.Frame, i int, low []int) bool {
	var lowSum, restSum float64
	var lowN, restN int
	for _, g := range sameHost(f, low) {
		v := float64(g.Work.At(i))
		if math.IsNaN(v) {
			switch g.State.At(i) {
			case frame.Low, frame.Busy:
				v = 100
			case frame.Idle:
				v = 0
			default:
				continue
			}
		}
		if slices.Contains(low, g.Index) {
			lowSum += v
			lowN++
		} else {
			restSum += v
			restN++
		}
	}
	if lowN == 0 || restN == 0 {
		return false
	}
	rest := restSum / float64(restN)
	return rest >= 20 && lowSum/float64(lowN) <= rest/3
}

func describeImbalance(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
	low := f.Members(g)
	var busy []*frame.GPU
	var busyIdx []int
	peers := sameHost(f, g.GPUs)
	for _, gpu := range peers {
		if !slices.Contains(g.GPUs, gpu.Index) {
			busy = append(busy, gpu)
			busyIdx = append(busyIdx, gpu.Index)
		}
	}
	if len(busy) == 0 {
		return timeline.Hint{}, false
	}
	lowState := frame.ShareOf(low, g.Spans, func(st frame.State) bool { return st == frame.Idle })
	word := "far lower"
	if lowState >= 0.8 {
		word = "idle"
	}
	ev := fmt.Sprintf("%s busy (%s) while %s %s (%s", f.GPUNames(busyIdx), frame.Activity(busy, g.Spans, nil),
		f.GPUNames(g.GPUs), word, frame.Activity(low, g.Spans, nil))
	conf := 0.85
	if !frame.Stats(low, frame.PickSM, g.Spans, nil).OK() {
		conf = 0.7
	}
	if mem := frame.Stats(low, frame.PickMem, g.Spans, nil); mem.OK() {
		ev += ", " + units.Bytes(mem.Mean) + " memory held"
		if len(low) > 1 {
			ev += " each"
		}
		if mem.Mean < 256<<20 {
			ev += ": they may not belong to this job"
			conf *= 0.7
		}
	}
	ev += "), " + f.During(g)
	sev := timeline.Warning
	if 2*len(low) > len(peers) {
		sev = timeline.Critical
	}
	return timeline.Hint{
		Severity: sev,
		Evidence: ev,
		Suggestion: "Work is not spread over the GPUs: check how it is placed (`CUDA_VISIBLE_DEVICES` per worker, " +
			"`torchrun --nproc_per_node`, a hard-coded `cuda:0`), whether rank 0 does extra work, and whether the shards " +
			"are even (ranks that finish early idle until the last one does).",
		Confidence: conf * frame.KnownShare(low, g.Spans),
	}, true
}
