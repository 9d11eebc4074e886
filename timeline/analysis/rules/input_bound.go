package rules

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// InputBound is input-bound: the GPU idle or low while the host CPU is
// busy (hostBusy: CPU at HostBusyCPU or more, two or more cores at
// BusyCore or more, or the job at JobBusyCPU or more) in at least 70 % of
// the window (50 % to go on), the GPU starved as in hostStarved, and the
// host not in the single-thread pattern (that is host-single-thread). The
// input-bound demo: GPUs in a 1-2 s on, 3-5 s off sawtooth while 24
// loader workers keep their cores busy (seed reports 003 and 004).
// Critical when the mean work is below 30 % (most of the GPU wasted).
var InputBound = frame.Rule{
	ID: timeline.HintInputBound,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPU(timeline.HintInputBound, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			h := f.HostOf(g)
			busy, known := frame.HostShare(&h.Busy, []frame.Span{w})
			single, _ := frame.HostShare(&h.Single, []frame.Span{w})
			return known && busy >= frame.Level(in, 0.7, 0.5) && single < 0.5 && hostStarved(f, g, w, in)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := f.HostOf(gs[0])
		ev := starvedText(f, g, gs) + ", while the host CPU is busy"
		var parts []string
		if cpu := frame.HostStats(&h.CPU, g.Spans); cpu.OK() {
			parts = append(parts, units.Number(cpu.Mean)+"% overall")
		}
		top := frame.HostStats(&h.TopCore, g.Spans)
		if busy, cores := frame.HostStats(&h.BusyCores, g.Spans), frame.HostStats(&h.Cores, g.Spans); busy.OK() {
			// A mean over the columns: "2.3 of 32 cores" is a count on
			// average, which the words must say.
			parts = append(parts, fmt.Sprintf("on average %s of %s cores at %s%% or more, the busiest at %s%%",
				units.Number(busy.Mean), units.Number(cores.Mean), units.Number(f.Opts.BusyCore), units.Number(top.Mean)))
		}
		if job := frame.HostStats(&h.Job, g.Spans); job.OK() {
			parts = append(parts, "the job "+units.Number(job.Mean)+"% of a core")
		}
		if len(parts) > 0 {
			ev += " (" + strings.Join(parts, ", ") + ")"
		}
		ev += ", " + f.During(g)
		sug := "The input pipeline cannot keep up: more DataLoader workers (`num_workers`), `pin_memory=True`, a larger " +
			"`prefetch_factor` with `persistent_workers`; cache or pre-decode the dataset; move augmentation to the GPU " +
			"(DALI, torchvision transforms on cuda)."
		if top.Mean >= f.Opts.PeggedCore {
			sug += " One core is pegged: if it is the main process, collation or host-to-device copies there are the " +
				"bottleneck; move them into the workers."
		}
		return hostHint(f, gs, g, ev, sug, 0.8), true
	},
}
