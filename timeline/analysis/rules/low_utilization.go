package rules

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// LowUtilization is low-utilization: a GPU that works, but lightly,
// for a sustained window (SustainedWindows × Window, 2 min, longer than a
// validation phase). It fires where the mean work (SM activity where known,
// else utilisation; busy-waiting left out, as busy-wait's) is below LowWork
// (LowWork+10 to go on), the GPU worked
// throughout the window (Counts.Starts; any work to go on; never
// working is gpu-idle or idle-memory-held), and while it worked it
// averaged below 70 %. That
// last test keeps demand-driven work silent: request-driven inference
// (ollama dmon: bursts at 93-97 % between prompts) saturates the GPU
// whenever there is work, and its gaps are client think time, not a
// bottleneck.
//
// Critical below 10 % (most of the GPU wasted). Lower confidence on
// utilisation alone (it counts any kernel, so it overstates work: not
// below 10 %) and without host data (a host cause cannot be ruled out). It yields to every rule that names a cause.
var LowUtilization = frame.Rule{
	ID: timeline.HintLowUtilization,
	Find: func(f *frame.Frame) []frame.Cand {
		low := f.Opts.LowWork
		return f.PerGPU(timeline.HintLowUtilization, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			c := g.Counts(w)
			if !c.Judged() || c.Active == 0 || c.Intensity() >= 70 {
				return false
			}
			return c.MeanWorkApartFromWaits() < frame.Level(in, low, low+10) && (in || c.Starts())
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		work := frame.Stats(gs, frame.PickWork, g.Spans, nil)
		util := frame.Stats(gs, frame.PickUtil, g.Spans, nil)
		sm := frame.Stats(gs, frame.PickSM, g.Spans, nil)
		ev := f.GPUNames(g.GPUs) + " "
		conf := 0.8
		if sm.OK() {
			ev += "SM activity averages " + units.Number(sm.Mean) + "%"
			if util.OK() {
				ev += " (util " + units.Number(util.Mean) + "%)"
			}
		} else {
			ev += "util averages " + units.Number(util.Mean) + "%"
			if work.Mean >= 10 {
				// Utilisation counts any kernel, so it overstates work: a
				// moderate figure is doubtful, but a GPU under 10 % by
				// utilisation is under 10 % by any measure (unet_optuna's
				// 1.2 % was critical at 49 % confidence).
				conf = 0.65
			}
		}
		if idle := frame.ShareOf(gs, g.Spans, func(st frame.State) bool { return st == frame.Idle }); idle >= 0.2 {
			ev += ", idle " + units.Share(idle) + " of the time, in bursts of " +
				frame.Range(frame.Stats(gs, frame.PickWork, g.Spans, (*frame.GPU).Working), "%")
		} else if r := frame.Range(work, "%"); r != units.Number(work.Mean)+"%" {
			ev += ", ranging " + r
		}
		ev += ", " + f.During(g)
		host, known := f.HostContext(f.HostOf(gs[0]), g.Spans)
		sug := "The GPU gets too little work per step: raise the batch size, remove host-device syncs from the loop " +
			"(`.item()`, `.cpu()`, printing tensors), "
		if len(f.GPUs) > 1 {
			sug += "overlap communication (NCCL rather than gloo, bucketed all-reduce) "
		}
		// One GPU has no collectives to overlap: that advice is for more.
		sug += "and fuse small kernels (`torch.compile`, CUDA graphs)."
		if sm.OK() && util.OK() && util.Mean-sm.Mean >= 30 {
			sug = "Kernels run most of the time but keep few SMs busy: small batches or small kernels. Raise the " +
				"batch size, fuse kernels (`torch.compile`, CUDA graphs), and use mixed precision with tensor-core shapes."
		}
		if known {
			ev += "; " + host + ": no host cause visible"
		} else {
			ev += "; " + host
			conf *= 0.75
			sug += " Without host data a slow input pipeline cannot be ruled out: record with gputop to see the CPU."
		}
		sev := timeline.Warning
		if work.Mean < 10 {
			sev = timeline.Critical
		}
		return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * frame.KnownShare(gs, g.Spans)}, true
	},
	YieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait, timeline.HintPeriodicStall, timeline.HintGPUImbalance,
		timeline.HintBusyWait, timeline.HintIdleMemoryHeld, timeline.HintGPUIdle},
}
