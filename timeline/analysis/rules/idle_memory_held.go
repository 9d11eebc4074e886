package rules

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

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
		holding := func(g *frame.GPU, i int) bool { return g.State.At(i) == frame.Idle && frame.At(&g.Mem, i) >= held }
		return f.PerGPUShare(timeline.HintIdleMemoryHeld, f.Opts.SustainedWindows, 0.9, 0.8, nil, holding)
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
		host := f.HostOf(gs[0])
		working, single, known := f.HostWorking(gs[0].Index, g.Spans)
		switch {
		case working:
			h.Severity, h.Confidence = timeline.Critical, 0.85*h.Confidence
			h.Evidence = ev + ", while " + cpuWork(host, g.Spans, single)
			h.Suggestion = "The job computes on the CPU: the model's memory is on the GPU but the work is not. " +
				"Move every batch to the device before the forward pass (`x.to(device, non_blocking=True)`), not just " +
				"the model, and look for operations that fall back to the CPU."
		case known:
			h.Severity, h.Confidence = timeline.Info, 0.7*h.Confidence
			cpuText, _ := f.HostContext(host, g.Spans)
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

// cpuWork says how the host's CPU worked over spans, where it did
// (Frame.HostWorking): one core pegged (single), the job's share of a core,
// or the whole CPU busy.
func cpuWork(h *frame.Host, spans []frame.Span, single bool) string {
	if single {
		return "one host core runs at " + units.Number(frame.HostStats(&h.TopCore, spans).Mean) + "% and the others idle"
	}
	if job := frame.HostStats(&h.Job, spans); job.OK() {
		return "the job uses " + units.Number(job.Mean) + "% of a core"
	}
	return "the host CPU is " + units.Number(frame.HostStats(&h.CPU, spans).Mean) + "% busy"
}
