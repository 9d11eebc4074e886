package rules

import (
	"cmp"
	"fmt"
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// MemoryPressure is memory-pressure, on a GPU or the host, over
// Windows (30 s). A GPU: memory used at MemFull (95 %) of its total or
// more in at least 80 % of the window's columns (60 % to go on): info,
// since caching allocators (PyTorch's, TensorFlow's, JAX's) keep what they
// once needed and TensorFlow takes it all by default, so near full is an
// OOM risk only if the need grows. The host: RAM at MemFull of its total or
// more in 80 % of the window (60 % to go on), or swap growing by 256 MiB
// or more across it (64 MiB to go on): a warning, since the kernel's OOM
// killer or swapping stops the job.
var MemoryPressure = frame.Rule{
	ID: timeline.HintMemoryPressure,
	Find: func(f *frame.Frame) []frame.Cand {
		full := f.Opts.MemFull
		nearFull := func(g *frame.GPU, i int) bool { return frame.At(&g.Mem, i) >= full*g.MemTotalAt.Get(i) }
		out := f.PerGPUShare(timeline.HintMemoryPressure, 1, 0.8, 0.6, func(g *frame.GPU) bool { return g.Mem.Has() }, nearFull)
		// Each host's RAM is its own: a session of several hosts judges
		// each apart, and names the host (Cand.Key, hostMemoryKey).
		for k := range f.Hosts {
			out = append(out, hostMemoryCands(f, k)...)
		}
		return out
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		if len(g.GPUs) == 0 {
			return describeHostMemory(f, g), true
		}
		gs := f.Members(g)
		mem := frame.Stats(gs, frame.PickMem, g.Spans, nil)
		total := gs[0].MemTotalAt.Get(g.Hull.Hi - 1)
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: fmt.Sprintf("%s uses %s of %s (%s), %s", f.GPUNames(g.GPUs), units.Bytes(mem.Hi), units.Bytes(total),
				units.Share(mem.Hi/total), f.During(g)),
			Suggestion: "Close to out of memory if the job's need grows: a smaller batch, activation checkpointing or " +
				"mixed precision give room; memory that keeps growing is a leak (tensors kept across steps, a loss " +
				"history without `.item()`). Caching allocators hold what they once needed, so this alone is not an error.",
			Confidence: 0.8 * frame.KnownShare(gs, g.Spans),
		}, true
	},
}

// hostMemoryKey is the Cand.Key of host k's RAM candidates: "host" for a
// session's own, as before, "host@NAME" for one of several.
func hostMemoryKey(f *frame.Frame, k int) string {
	return timeline.DeviceOnHost("host", f.Hosts[k].Name)
}

// hostMemoryCands are host k's RAM candidates: RAM near full, or swap
// growing.
func hostMemoryCands(f *frame.Frame, k int) []frame.Cand {
	full := f.Opts.MemFull
	h := &f.Hosts[k]
	if !h.MemUsed.Has() || !h.MemTotal.Has() {
		return nil
	}
	ramFull := func(i int) bool { return frame.At(&h.MemUsed, i) >= full*frame.At(&h.MemTotal, i) }
	known := func(i int) bool { return h.MemUsed.At(i) == h.MemUsed.At(i) && h.MemTotal.At(i) == h.MemTotal.At(i) }
	eps := f.Holds(frame.HoldKey{Rule: timeline.HintMemoryPressure, GPU: -1 - k, Mult: 1}, func(w frame.Span, in bool) bool {
		return holdsIn(w, in, 0.8, 0.6, known, ramFull) || swapGrowth(h, w) >= frame.Level(in, 256<<20, 64<<20)
	}, nil)
	return f.Cands(timeline.HintMemoryPressure, -1, hostMemoryKey(f, k), eps)
}

// swapGrowth is how much host h's swap use grew across a window (NaN if
// unknown).
func swapGrowth(h *frame.Host, w frame.Span) float64 {
	sw := &h.Swap
	if !sw.Has() {
		return math.NaN()
	}
	first, last := math.NaN(), math.NaN()
	for i := w.Lo; i < w.Hi; i++ {
		if v := float64(sw.At(i)); !math.IsNaN(v) {
			if math.IsNaN(first) {
				first = v
			}
			last = v
		}
	}
	return last - first
}

func describeHostMemory(f *frame.Frame, g *frame.Group) timeline.Hint {
	h := f.Hosts[0]
	for k := range f.Hosts {
		if hostMemoryKey(f, k) == g.Cands[0].Key {
			h = f.Hosts[k]
		}
	}
	who := cmp.Or(h.Name, "host")
	used, total := frame.HostStats(&h.MemUsed, g.Spans), frame.HostStats(&h.MemTotal, g.Spans)
	ev := fmt.Sprintf("%s RAM %s of %s used (%s)", who, units.Bytes(used.Hi), units.Bytes(total.Mean), units.Share(used.Hi/total.Mean))
	if grew := swapGrowth(&h, g.Hull); grew >= 64<<20 {
		ev += ", swap grew by " + units.Bytes(grew)
	}
	ev += ", " + f.During(g)
	return timeline.Hint{
		Severity: timeline.Warning,
		Evidence: ev,
		Suggestion: "The host is about to swap or kill the job: fewer or lighter DataLoader workers (each holds its own " +
			"copy of what the dataset object holds), memory-map the data instead of loading it, and look for a leak " +
			"if RAM keeps growing.",
		Confidence: 0.85,
	}
}
