package rules

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// GPUIdle is gpu-idle: a GPU with no work and no memory held for a long
// stretch. It judges windows of IdleWindows × Window (5 min): it fires
// where at least 98 % of a window's columns (97 % to go on) are idle with
// less than HeldMemory used, or with memory not recorded at all (a dmon
// log has none: then the evidence says so and the confidence is lower).
// A GPU that gets a little work every few seconds is not idle, however
// little (unet_optuna: a 2 s sample at 17 % every 20 s): that is
// low-utilization. Info: no job is held back, but a reservation is wasted, or a
// monitor outlived its job (vgg16: hours of 0 % at 20 W). It yields to
// gpu-imbalance, which explains idle GPUs beside busy ones.
var GPUIdle = frame.Rule{
	ID: timeline.HintGPUIdle,
	Find: func(f *frame.Frame) []frame.Cand {
		bare := func(g *frame.GPU, i int) bool {
			return g.State.At(i) == frame.Idle && !(frame.At(&g.Mem, i) >= f.Opts.HeldMemory)
		}
		return f.PerGPUShare(timeline.HintGPUIdle, f.Opts.IdleWindows, 0.98, 0.97, nil, bare)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		ev := f.GPUNames(g.GPUs) + " " + frame.Activity(gs, g.Spans, nil)
		conf := 0.9
		if mem := frame.Stats(gs, frame.PickMem, g.Spans, nil); mem.OK() {
			ev += ", " + units.Bytes(mem.Mean) + " memory used"
		} else {
			conf = 0.6
		}
		if p := frame.Stats(gs, frame.PickPower, g.Spans, nil); p.OK() {
			ev += ", at " + frame.Range(p, "W")
		}
		ev += ", " + f.During(g)
		if conf < 0.9 {
			ev += " (memory use not recorded)"
		}
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: ev,
			Suggestion: "Nothing runs here: the job ended or never started on this GPU. Free the reservation, " +
				"or if it should be working, check the launcher (`CUDA_VISIBLE_DEVICES`, the process count, `--gpus`).",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
	YieldsTo: []string{timeline.HintGPUImbalance, timeline.HintAllocatedIdle},
}
