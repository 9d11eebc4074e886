package analysis

import (
	"fmt"
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Rules about memory: memory-headroom (room for a bigger batch) and
// memory-pressure (near full, on a GPU or the host). Both need the memory
// used and its total, and stay silent without them.

// memoryHeadroomRule is memory-headroom: a GPU under-used in the sense of
// low-utilization (mean work below LowWork, LowWork+10 to go on; working
// throughout the window, and below 70 % while it works) over a
// sustained window (SustainedWindows × Window), using at most MemHeadroom
// (40 %) of its memory on average. Info: a bigger batch would give it more
// work per step. It yields to the host rules (a starved GPU needs a faster
// pipeline, not a bigger batch) and to rules that find the GPUs waiting.
var memoryHeadroomRule = hintRule{
	id: timeline.HintMemoryHeadroom,
	find: func(f *hintFrame) []hintCand {
		low := f.opts.LowWork
		return f.perGPU(timeline.HintMemoryHeadroom, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			if total := g.memTotalAt.get(w.hi - 1); !(total > 0) || !(hintMean(g.mem, w) <= f.opts.MemHeadroom*total) {
				return false
			}
			c := g.counts(w)
			if !c.judged() || c.active() == 0 || c.intensity() >= 70 {
				return false
			}
			return c.meanWork() < hintLevel(in, low, low+10) && (in || c.starts())
		}, nil)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		mem := hintStats(gs, hintPickMem, g.spans, nil)
		total := gs[0].memTotalAt.get(g.hull.hi - 1)
		work := hintStats(gs, hintPickWork, g.spans, nil)
		what := "util"
		if hintStats(gs, hintPickSM, g.spans, nil).ok() {
			what = "SM activity"
		}
		ev := fmt.Sprintf("%s uses %s of %s (%s) while %s averages %s%%, %s", f.gpuNames(g.gpus), units.Bytes(mem.hi),
			units.Bytes(total), units.Share(mem.hi/total), what, units.Number(work.mean), f.during(g))
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: ev,
			Suggestion: fmt.Sprintf("About %s free: raise the batch size (scaling the learning rate), or use the room "+
				"for a larger model or longer sequences.", units.Bytes(total-mem.hi)),
			Confidence: 0.7 * hintKnownShare(gs, g.spans),
		}, true
	},
	yieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait, timeline.HintPeriodicStall, timeline.HintBusyWait, timeline.HintGPUImbalance},
}

// memoryPressureRule is memory-pressure, on a GPU or the host, over
// Windows (30 s). A GPU: memory used at MemFull (95 %) of its total or
// more in at least 80 % of the window's columns (60 % to go on): info,
// since caching allocators (PyTorch's, TensorFlow's, JAX's) keep what they
// once needed and TensorFlow takes it all by default, so near full is an
// OOM risk only if the need grows. The host: RAM at MemFull of its total or
// more in 80 % of the window (60 % to go on), or swap growing by 256 MiB
// or more across it (64 MiB to go on): a warning, since the kernel's OOM
// killer or swapping stops the job.
var memoryPressureRule = hintRule{
	id: timeline.HintMemoryPressure,
	find: func(f *hintFrame) []hintCand {
		full := f.opts.MemFull
		nearFull := func(g *hintGPU, i int) bool { return hintAt(g.mem, i) >= full*g.memTotalAt.get(i) }
		out := f.perGPU(timeline.HintMemoryPressure, 1, func(g *hintGPU, w hintSpan, in bool) bool {
			if g.mem == nil {
				return false
			}
			share, ok := g.shareIn(w, func(i int) bool { return nearFull(g, i) })
			return ok && share >= hintLevel(in, 0.8, 0.6)
		}, nearFull)
		h := &f.host
		if h.memUsed == nil || h.memTotal == nil {
			return out
		}
		ramFull := func(i int) bool { return hintAt(h.memUsed, i) >= full*hintAt(h.memTotal, i) }
		eps := f.holds(holdKey{timeline.HintMemoryPressure, -1, 1}, func(w hintSpan, in bool) bool {
			known, yes := 0, 0
			for i := w.lo; i < w.hi; i++ {
				if h.memUsed[i] == h.memUsed[i] && h.memTotal[i] == h.memTotal[i] {
					known++
					if ramFull(i) {
						yes++
					}
				}
			}
			if 2*known >= w.len() && float64(yes) >= hintLevel(in, 0.8, 0.6)*float64(known) {
				return true
			}
			return f.swapGrowth(w) >= hintLevel(in, 256<<20, 64<<20)
		}, nil)
		for _, c := range f.cands(timeline.HintMemoryPressure, -1, eps) {
			c.key = "host"
			out = append(out, c)
		}
		return out
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		if len(g.gpus) == 0 {
			return f.describeHostMemory(g), true
		}
		gs := f.members(g)
		mem := hintStats(gs, hintPickMem, g.spans, nil)
		total := gs[0].memTotalAt.get(g.hull.hi - 1)
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: fmt.Sprintf("%s uses %s of %s (%s), %s", f.gpuNames(g.gpus), units.Bytes(mem.hi), units.Bytes(total),
				units.Share(mem.hi/total), f.during(g)),
			Suggestion: "Close to out of memory if the job's need grows: a smaller batch, activation checkpointing or " +
				"mixed precision give room; memory that keeps growing is a leak (tensors kept across steps, a loss " +
				"history without `.item()`). Caching allocators hold what they once needed, so this alone is not an error.",
			Confidence: 0.8 * hintKnownShare(gs, g.spans),
		}, true
	},
}

// swapGrowth is how much swap use grew across a window (NaN if unknown).
func (f *hintFrame) swapGrowth(w hintSpan) float64 {
	sw := f.host.swap
	if sw == nil {
		return math.NaN()
	}
	first, last := math.NaN(), math.NaN()
	for i := w.lo; i < w.hi; i++ {
		if v := float64(sw[i]); !math.IsNaN(v) {
			if math.IsNaN(first) {
				first = v
			}
			last = v
		}
	}
	return last - first
}

func (f *hintFrame) describeHostMemory(g *hintGroup) timeline.Hint {
	h := &f.host
	used, total := hintHostStats(h.memUsed, g.spans), hintHostStats(h.memTotal, g.spans)
	ev := fmt.Sprintf("host RAM %s of %s used (%s)", units.Bytes(used.hi), units.Bytes(total.mean), units.Share(used.hi/total.mean))
	if grew := f.swapGrowth(g.hull); grew >= 64<<20 {
		ev += ", swap grew by " + units.Bytes(grew)
	}
	ev += ", " + f.during(g)
	return timeline.Hint{
		Severity: timeline.Warning,
		Evidence: ev,
		Suggestion: "The host is about to swap or kill the job: fewer or lighter DataLoader workers (each holds its own " +
			"copy of what the dataset object holds), memory-map the data instead of loading it, and look for a leak " +
			"if RAM keeps growing.",
		Confidence: 0.85,
	}
}
