package analysis

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Rules that judge each GPU on its own: gpu-idle, idle-memory-held,
// low-utilization, busy-wait and pcie-bound.

// gpuIdleRule is gpu-idle: a GPU with no work and no memory held for a long
// stretch. It judges windows of IdleWindows × Window (5 min): it fires
// where at least 98 % of a window's columns (97 % to go on) are idle with
// less than HeldMemory used, or with memory not recorded at all (a dmon
// log has none: then the evidence says so and the confidence is lower).
// A GPU that gets a little work every few seconds is not idle, however
// little (unet_optuna: a 2 s sample at 17 % every 20 s): that is
// low-utilization. Info: no job is held back, but a reservation is wasted, or a
// monitor outlived its job (vgg16: hours of 0 % at 20 W). It yields to
// gpu-imbalance, which explains idle GPUs beside busy ones.
var gpuIdleRule = hintRule{
	id: timeline.HintGPUIdle,
	find: func(f *hintFrame) []hintCand {
		bare := func(g *hintGPU, i int) bool { return g.state[i] == hsIdle && !(hintAt(g.mem, i) >= f.opts.HeldMemory) }
		return f.perGPU(timeline.HintGPUIdle, f.opts.IdleWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			share, ok := g.shareIn(w, func(i int) bool { return bare(g, i) })
			return ok && share >= hintLevel(in, 0.98, 0.97)
		}, bare)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		ev := f.gpuNames(g.gpus) + " " + hintActivity(gs, g.spans, nil)
		conf := 0.9
		if mem := hintStats(gs, hintPickMem, g.spans, nil); mem.ok() {
			ev += ", " + units.Bytes(mem.mean) + " memory used"
		} else {
			conf = 0.6
		}
		if p := hintStats(gs, hintPickPower, g.spans, nil); p.ok() {
			ev += ", at " + hintRange(p, "W")
		}
		ev += ", " + f.during(g)
		if conf < 0.9 {
			ev += " (memory use not recorded)"
		}
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: ev,
			Suggestion: "Nothing runs here: the job ended or never started on this GPU. Free the reservation, " +
				"or if it should be working, check the launcher (`CUDA_VISIBLE_DEVICES`, the process count, `--gpus`).",
			Confidence: conf * hintKnownShare(gs, g.spans),
		}, true
	},
	yieldsTo: []string{timeline.HintGPUImbalance},
}

// idleMemoryHeldRule is idle-memory-held: memory allocated, utilisation
// near 0, for a sustained window (SustainedWindows × Window, 2 min): at
// least 90 % of the columns (80 % to go on) idle with at least HeldMemory
// used. It needs memory data and stays silent without it.
//
// The host says why, and sets the severity: with the host busy or one
// core pegged (the job computing on the CPU, seed report 000) it is
// critical; with the host idle it is info (an inference server waiting for
// requests, or a stalled job); without host data, a warning naming all
// three. It yields to gpu-imbalance.
var idleMemoryHeldRule = hintRule{
	id: timeline.HintIdleMemoryHeld,
	find: func(f *hintFrame) []hintCand {
		held := f.opts.HeldMemory
		holding := func(g *hintGPU, i int) bool { return g.state[i] == hsIdle && hintAt(g.mem, i) >= held }
		return f.perGPU(timeline.HintIdleMemoryHeld, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			share, ok := g.shareIn(w, func(i int) bool { return holding(g, i) })
			return ok && share >= hintLevel(in, 0.9, 0.8)
		}, holding)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		mem := hintStats(gs, hintPickMem, g.spans, nil)
		ev := fmt.Sprintf("%s holds %s at %s", f.gpuNames(g.gpus), units.Bytes(mem.mean), hintActivity(gs, g.spans, nil))
		if p := hintStats(gs, hintPickPower, g.spans, nil); p.ok() {
			ev += " and " + hintRange(p, "W")
		}
		ev += ", " + f.during(g)
		h := timeline.Hint{Confidence: hintKnownShare(gs, g.spans)}
		working, cpuText, known := f.hostWorking(g.spans)
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
	yieldsTo: []string{timeline.HintGPUImbalance},
}

// hostWorking says whether the host's CPU was working over spans (busy, or
// one core pegged, in at least half the known columns), describes it, and
// whether the host was recorded at all.
func (f *hintFrame) hostWorking(spans []hintSpan) (working bool, text string, known bool) {
	h := &f.host
	busy, busyKnown := hintHostShare(h.busy, spans)
	single, singleKnown := hintHostShare(h.single, spans)
	if !busyKnown && !singleKnown {
		return false, "", false
	}
	cpu := hintHostStats(h.cpu, spans)
	top := hintHostStats(h.topCore, spans)
	job := hintHostStats(h.job, spans)
	switch {
	case single >= 0.5:
		text = "one host core runs at " + units.Number(top.mean) + "% and the others idle"
	case busy >= 0.5 && job.ok():
		text = "the job uses " + units.Number(job.mean) + "% of a core"
	case busy >= 0.5:
		text = "the host CPU is " + units.Number(cpu.mean) + "% busy"
	default:
		text, _ = f.hostContext(spans)
		return false, text, true
	}
	return true, text, true
}

// lowUtilizationRule is low-utilization: a GPU that works, but lightly,
// for a sustained window (SustainedWindows × Window, 2 min, longer than a
// validation phase). It fires where the mean work (SM activity where known,
// else utilisation; busy-waiting left out, as busy-wait's) is below LowWork
// (LowWork+10 to go on), the GPU worked
// throughout the window (hintCounts.starts; any work to go on; never
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
var lowUtilizationRule = hintRule{
	id: timeline.HintLowUtilization,
	find: func(f *hintFrame) []hintCand {
		low := f.opts.LowWork
		return f.perGPU(timeline.HintLowUtilization, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			c := g.counts(w)
			if !c.judged() || c.active() == 0 || c.intensity() >= 70 {
				return false
			}
			return c.meanWorkApartFromWaits() < hintLevel(in, low, low+10) && (in || c.starts())
		}, nil)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		work := hintStats(gs, hintPickWork, g.spans, nil)
		util := hintStats(gs, hintPickUtil, g.spans, nil)
		sm := hintStats(gs, hintPickSM, g.spans, nil)
		ev := f.gpuNames(g.gpus) + " "
		conf := 0.8
		if sm.ok() {
			ev += "SM activity averages " + units.Number(sm.mean) + "%"
			if util.ok() {
				ev += " (util " + units.Number(util.mean) + "%)"
			}
		} else {
			ev += "util averages " + units.Number(util.mean) + "%"
			conf = 0.65
		}
		if idle := hintShareOf(gs, g.spans, func(st hintState) bool { return st == hsIdle }); idle >= 0.2 {
			active := func(gpu *hintGPU, i int) bool { return gpu.working(i) }
			ev += ", idle " + units.Share(idle) + " of the time, in bursts of " +
				hintRange(hintStats(gs, hintPickWork, g.spans, active), "%")
		} else if r := hintRange(work, "%"); r != units.Number(work.mean)+"%" {
			ev += ", ranging " + r
		}
		ev += ", " + f.during(g)
		host, known := f.hostContext(g.spans)
		sug := "The GPU gets too little work per step: raise the batch size, remove host-device syncs from the loop " +
			"(`.item()`, `.cpu()`, printing tensors), overlap communication (NCCL rather than gloo, bucketed all-reduce) " +
			"and fuse small kernels (`torch.compile`, CUDA graphs)."
		if sm.ok() && util.ok() && util.mean-sm.mean >= 30 {
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
		if work.mean < 10 {
			sev = timeline.Critical
		}
		return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * hintKnownShare(gs, g.spans)}, true
	},
	yieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait, timeline.HintPeriodicStall, timeline.HintGPUImbalance,
		timeline.HintBusyWait, timeline.HintIdleMemoryHeld, timeline.HintGPUIdle},
}

// busyWaitRule is busy-wait: utilisation high while the GPU does little
// (see hsWaiting: utilisation at WaitUtil or more with SM activity below
// WaitSM, or without SM activity, power at most WaitPower of the limit or
// of the node's working draw). It fires where at least 60 % of a window's
// columns wait (40 % to go on), cut to the waiting columns. Kernels
// resident but not working: an NCCL collective spinning while it waits for
// a slow rank (llama8b: GPU1-7 at 99 % util and 150 W while rank 0
// checkpoints). Critical when one stretch lasts 5 min or more: a hung
// collective wastes every GPU in it. Utilisation alone cannot see it; it
// yields to periodic-stall, which reports recurring waits as one stall.
var busyWaitRule = hintRule{
	id: timeline.HintBusyWait,
	find: func(f *hintFrame) []hintCand {
		return f.perGPU(timeline.HintBusyWait, 1, func(g *hintGPU, w hintSpan, in bool) bool {
			c := g.counts(w)
			return c.judged() && c.share(c.waiting) >= hintLevel(in, 0.6, 0.4)
		}, func(g *hintGPU, i int) bool { return g.state[i] == hsWaiting })
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		waiting := func(gpu *hintGPU, i int) bool { return gpu.state[i] == hsWaiting }
		ev := f.gpuNames(g.gpus) + " " + hintRange(hintStats(gs, hintPickUtil, g.spans, waiting), "% util")
		conf := 0.9
		if p := hintStats(gs, hintPickPower, g.spans, waiting); p.ok() {
			ev += " at " + hintRange(p, "W") + f.powerShare(gs, p, g.hull.hi-1)
		}
		if sm := hintStats(gs, hintPickSM, g.spans, waiting); sm.ok() {
			ev += ", SM activity " + hintRange(sm, "%")
		} else if gs[0].refIsLimit.get(g.hull.hi-1) == 1 {
			conf = 0.8
		} else {
			conf = 0.65
		}
		ev += ", " + f.during(g)
		sev := timeline.Warning
		for _, sp := range g.spans {
			if f.dur(sp) >= 5*time.Minute {
				sev = timeline.Critical
			}
		}
		return timeline.Hint{
			Severity: sev,
			Evidence: ev,
			Suggestion: "Kernels resident but not working: ranks waiting in a collective (NCCL all-reduce, barrier) for a " +
				"slower rank, or a kernel spinning on a flag. Find the GPU that is not waiting and what it does then (a " +
				"checkpoint, evaluation or logging on one rank); if it never ends the job is hung (`NCCL_DEBUG=INFO`, `py-spy dump`).",
			Confidence: conf * hintKnownShare(gs, g.spans),
		}, true
	},
	yieldsTo: []string{timeline.HintPeriodicStall},
}

// powerShare says what a power range is a share of: " (21-23% of the
// 700W limit)", or without a limit " (27% of the 560W these GPUs draw
// when working)".
func (f *hintFrame) powerShare(gs []*hintGPU, p hintStat, last int) string {
	ref := gs[0].refAt.get(last)
	if !(ref > 0) {
		return ""
	}
	share := hintStat{n: p.n, lo: 100 * p.lo / ref, hi: 100 * p.hi / ref}
	if gs[0].refIsLimit.get(last) == 1 {
		return " (" + hintRange(share, "%") + " of the " + units.Number(ref) + "W limit)"
	}
	return " (" + hintRange(share, "%") + " of the " + units.Number(ref) + "W they draw when working)"
}

// pcieBoundRule is pcie-bound: host-device traffic at PCIeBusy or more
// (both directions) while the GPU's work is below 25 %, in at least half
// the known columns of a window (30 % to go on), cut to those columns.
// Copies dominate and the SMs wait for them. It needs the PCIe counters
// (live NVML) and stays silent without them. The link's generation and
// width are not in the timeline, so "near its limit" is an absolute 10 GB/s
// (what a PCIe 3.0 x16 link sustains), and the confidence is modest.
var pcieBoundRule = hintRule{
	id: timeline.HintPCIeBound,
	find: func(f *hintFrame) []hintCand {
		copying := func(g *hintGPU, i int) bool {
			return hintAt(g.bus, i) >= f.opts.PCIeBusy && hintAt(g.work, i) < 25
		}
		return f.perGPU(timeline.HintPCIeBound, 1, func(g *hintGPU, w hintSpan, in bool) bool {
			if g.bus == nil {
				return false
			}
			known, yes := 0, 0
			for i := w.lo; i < w.hi; i++ {
				if g.bus[i] == g.bus[i] && g.state[i] != hsUnknown {
					known++
					if copying(g, i) {
						yes++
					}
				}
			}
			return 2*known >= w.len() && float64(yes) >= hintLevel(in, 0.5, 0.3)*float64(known)
		}, copying)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		bus := hintStats(gs, func(g *hintGPU) []float32 { return g.bus }, g.spans, nil)
		conf := 0.55
		if !hintStats(gs, hintPickSM, g.spans, nil).ok() {
			conf = 0.45
		}
		rate := units.Rate(bus.lo)
		if hi := units.Rate(bus.hi); hi != rate {
			rate += " to " + hi
		}
		ev := fmt.Sprintf("%s moves %s over PCIe while at %s, %s", f.gpuNames(g.gpus), rate, hintActivity(gs, g.spans, nil), f.during(g))
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Copies between host and GPU dominate: use pinned memory (`pin_memory=True`) with non_blocking copies, " +
				"move fewer, larger batches, and keep data and intermediate results on the GPU (preprocess there, avoid `.cpu()` round trips).",
			Confidence: conf * hintKnownShare(gs, g.spans),
		}, true
	},
}
