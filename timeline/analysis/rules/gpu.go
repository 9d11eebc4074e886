package rules

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// Rules that judge each GPU on its own: gpu-idle, idle-memory-held,
// low-utilization, busy-wait and pcie-bound.

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
			return g.State[i] == frame.Idle && !(frame.At(g.Mem, i) >= f.Opts.HeldMemory)
		}
		return f.PerGPU(timeline.HintGPUIdle, f.Opts.IdleWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			share, ok := g.ShareIn(w, func(i int) bool { return bare(g, i) })
			return ok && share >= frame.Level(in, 0.98, 0.97)
		}, bare)
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
	YieldsTo: []string{timeline.HintGPUImbalance},
}

// IdleMemoryHeld is idle-memory-held: memory allocated, utilisation
// near 0, for a sustained window (SustainedWindows × Window, 2 min): at
// least 90 % of the columns (80 % to go on) idle with at least HeldMemory
// used. It needs memory data and stays silent without it.
//
// The host says why, and sets the severity: with the host busy or one
// core pegged (the job computing on the CPU, seed report 000) it is
// critical; with the host idle it is info (an inference server waiting for
// requests, or a stalled job); without host data, a warning naming all
// three. It yields to gpu-imbalance.
var IdleMemoryHeld = frame.Rule{
	ID: timeline.HintIdleMemoryHeld,
	Find: func(f *frame.Frame) []frame.Cand {
		held := f.Opts.HeldMemory
		holding := func(g *frame.GPU, i int) bool { return g.State[i] == frame.Idle && frame.At(g.Mem, i) >= held }
		return f.PerGPU(timeline.HintIdleMemoryHeld, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			share, ok := g.ShareIn(w, func(i int) bool { return holding(g, i) })
			return ok && share >= frame.Level(in, 0.9, 0.8)
		}, holding)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		mem := frame.Stats(gs, frame.PickMem, g.Spans, nil)
		ev := fmt.Sprintf("%s holds %s at %s", f.GPUNames(g.GPUs), units.Bytes(mem.Mean), frame.Activity(gs, g.Spans, nil))
		if p := frame.Stats(gs, frame.PickPower, g.Spans, nil); p.OK() {
			ev += " and " + frame.Range(p, "W")
		}
		ev += ", " + f.During(g)
		h := timeline.Hint{Confidence: frame.KnownShare(gs, g.Spans)}
		working, cpuText, known := hostWorking(f, g.Spans)
		switch {
		case working:
			h.Severity, h.Confidence = timeline.Critical, 0.85*h.Confidence
			h.Evidence = ev + ", while " + cpuText
			h.Suggestion = "The job computes on the CPU: the model's memory is on the GPU but the work is not. " +
				"Move every batch to the device before the forward pass (`x.to(device, non_blocking=True)`), not just " +
				"the model, and look for operations that fall back to the CPU."
		case known:
			h.Severity, h.Confidence = timeline.Info, 0.7*h.Confidence
			h.Evidence = ev + "; " + cpuText
			h.Suggestion = "Nothing runs on the GPU or the host: an inference server waiting for requests (expected), " +
				"or a stalled job (a rank waiting for a dead peer, a lock, input that never comes): `py-spy dump` shows where it waits."
		default:
			h.Severity, h.Confidence = timeline.Warning, 0.55*h.Confidence
			h.Evidence = ev + "; no host CPU data in this recording"
			h.Suggestion = "Memory held with no work: the job may compute on the CPU (tensors left on the host), be stalled, " +
				"or be an idle server; record with gputop to see the host and tell which."
		}
		return h, true
	},
	YieldsTo: []string{timeline.HintGPUImbalance},
}

// hostWorking says whether the host's CPU was working over spans (busy, or
// one core pegged, in at least half the known columns), describes it, and
// whether the host was recorded at all.
func hostWorking(f *frame.Frame, spans []frame.Span) (working bool, text string, known bool) {
	h := &f.Host
	busy, busyKnown := frame.HostShare(h.Busy, spans)
	single, singleKnown := frame.HostShare(h.Single, spans)
	if !busyKnown && !singleKnown {
		return false, "", false
	}
	cpu := frame.HostStats(h.CPU, spans)
	top := frame.HostStats(h.TopCore, spans)
	job := frame.HostStats(h.Job, spans)
	switch {
	case single >= 0.5:
		text = "one host core runs at " + units.Number(top.Mean) + "% and the others idle"
	case busy >= 0.5 && job.OK():
		text = "the job uses " + units.Number(job.Mean) + "% of a core"
	case busy >= 0.5:
		text = "the host CPU is " + units.Number(cpu.Mean) + "% busy"
	default:
		text, _ = f.HostContext(spans)
		return false, text, true
	}
	return true, text, true
}

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
// utilisation alone (it counts any kernel) and without host data (a host
// cause cannot be ruled out). It yields to every rule that names a cause.
var LowUtilization = frame.Rule{
	ID: timeline.HintLowUtilization,
	Find: func(f *frame.Frame) []frame.Cand {
		low := f.Opts.LowWork
		return f.PerGPU(timeline.HintLowUtilization, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			c := g.Counts(w)
			if !c.Judged() || c.Active() == 0 || c.Intensity() >= 70 {
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
			conf = 0.65
		}
		if idle := frame.ShareOf(gs, g.Spans, func(st frame.State) bool { return st == frame.Idle }); idle >= 0.2 {
			active := func(gpu *frame.GPU, i int) bool { return gpu.Working(i) }
			ev += ", idle " + units.Share(idle) + " of the time, in bursts of " +
				frame.Range(frame.Stats(gs, frame.PickWork, g.Spans, active), "%")
		} else if r := frame.Range(work, "%"); r != units.Number(work.Mean)+"%" {
			ev += ", ranging " + r
		}
		ev += ", " + f.During(g)
		host, known := f.HostContext(g.Spans)
		sug := "The GPU gets too little work per step: raise the batch size, remove host-device syncs from the loop " +
			"(`.item()`, `.cpu()`, printing tensors), overlap communication (NCCL rather than gloo, bucketed all-reduce) " +
			"and fuse small kernels (`torch.compile`, CUDA graphs)."
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

// BusyWait is busy-wait: utilisation high while the GPU does little
// (see Waiting: utilisation at WaitUtil or more with SM activity below
// WaitSM, or without SM activity, power at most WaitPower of the limit or
// of the node's working draw). It fires where at least 60 % of a window's
// columns wait (40 % to go on), cut to the waiting columns. Kernels
// resident but not working: an NCCL collective spinning while it waits for
// a slow rank (llama8b: GPU1-7 at 99 % util and 150 W while rank 0
// checkpoints). Critical when one stretch lasts 5 min or more: a hung
// collective wastes every GPU in it. Utilisation alone cannot see it; it
// yields to periodic-stall, which reports recurring waits as one stall.
var BusyWait = frame.Rule{
	ID: timeline.HintBusyWait,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPU(timeline.HintBusyWait, 1, func(g *frame.GPU, w frame.Span, in bool) bool {
			c := g.Counts(w)
			return c.Judged() && c.Share(c.Waiting) >= frame.Level(in, 0.6, 0.4)
		}, func(g *frame.GPU, i int) bool { return g.State[i] == frame.Waiting })
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		waiting := func(gpu *frame.GPU, i int) bool { return gpu.State[i] == frame.Waiting }
		ev := f.GPUNames(g.GPUs) + " " + frame.Range(frame.Stats(gs, frame.PickUtil, g.Spans, waiting), "% util")
		conf := 0.9
		if p := frame.Stats(gs, frame.PickPower, g.Spans, waiting); p.OK() {
			ev += " at " + frame.Range(p, "W") + powerShare(f, gs, p, g.Hull.Hi-1)
		}
		if sm := frame.Stats(gs, frame.PickSM, g.Spans, waiting); sm.OK() {
			ev += ", SM activity " + frame.Range(sm, "%")
		} else if gs[0].RefIsLimit.Get(g.Hull.Hi-1) == 1 {
			conf = 0.8
		} else {
			conf = 0.65
		}
		ev += ", " + f.During(g)
		sev := timeline.Warning
		for _, sp := range g.Spans {
			if f.Dur(sp) >= 5*time.Minute {
				sev = timeline.Critical
			}
		}
		return timeline.Hint{
			Severity: sev,
			Evidence: ev,
			Suggestion: "Kernels resident but not working: ranks waiting in a collective (NCCL all-reduce, barrier) for a " +
				"slower rank, or a kernel spinning on a flag. Find the GPU that is not waiting and what it does then (a " +
				"checkpoint, evaluation or logging on one rank); if it never ends the job is hung (`NCCL_DEBUG=INFO`, `py-spy dump`).",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
	YieldsTo: []string{timeline.HintPeriodicStall},
}

// powerShare says what a power range is a share of: " (21-23% of the
// 700W limit)", or without a limit " (27% of the 560W these GPUs draw
// when working)".
func powerShare(f *frame.Frame, gs []*frame.GPU, p frame.Stat, last int) string {
	ref := gs[0].RefAt.Get(last)
	if !(ref > 0) {
		return ""
	}
	share := frame.Stat{N: p.N, Lo: 100 * p.Lo / ref, Hi: 100 * p.Hi / ref}
	if gs[0].RefIsLimit.Get(last) == 1 {
		return " (" + frame.Range(share, "%") + " of the " + units.Number(ref) + "W limit)"
	}
	return " (" + frame.Range(share, "%") + " of the " + units.Number(ref) + "W they draw when working)"
}

// PCIeBound is pcie-bound: host-device traffic at PCIeBusy or more
// (both directions) while the GPU's work is below 25 %, in at least half
// the known columns of a window (30 % to go on), cut to those columns.
// Copies dominate and the SMs wait for them. It needs the PCIe counters
// (live NVML) and stays silent without them. The link's generation and
// width are not in the timeline, so "near its limit" is an absolute 10 GB/s
// (what a PCIe 3.0 x16 link sustains), and the confidence is modest.
var PCIeBound = frame.Rule{
	ID: timeline.HintPCIeBound,
	Find: func(f *frame.Frame) []frame.Cand {
		copying := func(g *frame.GPU, i int) bool {
			return frame.At(g.Bus, i) >= f.Opts.PCIeBusy && frame.At(g.Work, i) < 25
		}
		return f.PerGPU(timeline.HintPCIeBound, 1, func(g *frame.GPU, w frame.Span, in bool) bool {
			if g.Bus == nil {
				return false
			}
			known, yes := 0, 0
			for i := w.Lo; i < w.Hi; i++ {
				if g.Bus[i] == g.Bus[i] && g.State[i] != frame.Unknown {
					known++
					if copying(g, i) {
						yes++
					}
				}
			}
			return 2*known >= w.Len() && float64(yes) >= frame.Level(in, 0.5, 0.3)*float64(known)
		}, copying)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		bus := frame.Stats(gs, func(g *frame.GPU) []float32 { return g.Bus }, g.Spans, nil)
		conf := 0.55
		if !frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
			conf = 0.45
		}
		rate := units.Rate(bus.Lo)
		if hi := units.Rate(bus.Hi); hi != rate {
			rate += " to " + hi
		}
		ev := fmt.Sprintf("%s moves %s over PCIe while at %s, %s", f.GPUNames(g.GPUs), rate, frame.Activity(gs, g.Spans, nil), f.During(g))
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Copies between host and GPU dominate: use pinned memory (`pin_memory=True`) with non_blocking copies, " +
				"move fewer, larger batches, and keep data and intermediate results on the GPU (preprocess there, avoid `.cpu()` round trips).",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
}
