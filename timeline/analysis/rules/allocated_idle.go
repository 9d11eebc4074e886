package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// AllocatedIdle is allocated-idle: a GPU the kubelet or Slurm allocated to
// a pod or a job (Sample.Owners) that does not use it, with no process on
// it or with processes that do not compute: a notebook left open, a job
// waiting on its input, a pod that asked for eight and uses one. NVML alone
// sees such a GPU as merely idle (gpu-idle, or gpu-imbalance beside busy
// ones, which both yield to this rule: it names whose it is). It judges
// the windows of gpu-idle (IdleWindows × Window, 5 min) at its levels: 98 %
// of a window's known columns idle and allocated (97 % to go on), memory
// held or not. Each holder is an episode of its own, so each is named.
// Warning: the GPU is held from everyone else.
var AllocatedIdle = frame.Rule{
	ID: timeline.HintAllocatedIdle,
	Find: func(f *frame.Frame) []frame.Cand {
		if !f.HasOwners() {
			return nil // a session without owners pays nothing
		}
		idle := func(g *frame.GPU, i int) bool {
			return g.State.At(i) == frame.Idle && f.OwnersAt(g.Index, i).Owners != nil
		}
		cands := f.PerGPUShare(timeline.HintAllocatedIdle, f.Opts.IdleWindows, 0.98, 0.97, nil, idle)
		for k := range cands {
			c := &cands[k]
			// GPUs of one holder make one episode; two holders idle at
			// once are two, each named.
			c.Key += "\x00" + holders(f.OwnersAt(c.GPU, c.Hull().Hi-1).Owners, false)
		}
		return cands
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		if len(gs) == 0 {
			return timeline.Hint{}, false
		}
		last := g.Hull.Hi - 1
		who := holders(f.OwnersAt(g.GPUs[0], last).Owners, true)
		if who == "" {
			return timeline.Hint{}, false
		}
		ev := f.GPUNames(g.GPUs) + " allocated to " + who + ", " + procsOn(f, g.GPUs, last) +
			frame.Activity(gs, g.Spans, nil)
		if mem := frame.Stats(gs, frame.PickMem, g.Spans, nil); mem.OK() {
			ev += ", " + units.Bytes(mem.Mean) + " memory used"
		}
		ev += ", " + f.During(g)
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Allocated but unused: ask its owner to release it (`kubectl delete pod`, `scancel`), or, if " +
				"it should be working, check that the job sees this GPU (`CUDA_VISIBLE_DEVICES`, the device plugin's count).",
			Confidence: 0.9 * frame.KnownShare(gs, g.Spans),
		}, true
	},
}

// holders names the holders of a GPU, each once, in order: "pod
// team-b/notebook-bob", with the container or the job's user where detail
// says: "Slurm job 4250 (carol, gpu)".
func holders(owners []timeline.Owner, detail bool) string {
	var names []string
	for _, o := range owners {
		n := frame.Holder(o)
		if n == "" {
			continue
		}
		if detail {
			n += frame.HolderDetail(o)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " and ")
}

// procsOn says what processes the GPUs had at column i: "no process on
// it, " or "2 processes on them, none computing, "; "" where the process
// tier was not read.
func procsOn(f *frame.Frame, gpus []int, i int) string {
	n := 0
	for _, gpu := range gpus {
		p := f.OwnersAt(gpu, i).Procs
		if p < 0 {
			return ""
		}
		n += p
	}
	it := "it"
	if len(gpus) > 1 {
		it = "them"
	}
	switch n {
	case 0:
		return "no process on " + it + ", "
	case 1:
		return "1 process on " + it + ", not computing, "
	}
	return fmt.Sprintf("%d processes on %s, none computing, ", n, it)
}
