package rules

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// Rules that find the cause of a starved GPU on the host: input-bound,
// host-single-thread and io-wait. Each judges every GPU over sustained
// windows (SustainedWindows × Window, 2 min) together with the host's
// columns, and stays silent without host data (an imported nvidia-smi log):
// low-utilization then speaks, and says the host was not recorded.

// hostStarved is the GPU side the host rules share: the GPU worked
// throughout the window (Counts.Starts; any work to go on: a GPU that
// never works is idle-memory-held or gpu-idle), its mean work is below LowWork
// (LowWork+10 to go on), and it waits: utilisation, the share of time with
// a kernel running, averages below LowWork+10, or without utilisation at
// least a fifth of the columns are idle. A GPU that always has a kernel
// running but keeps few SMs busy (the imbalance demo's GPU1: 75 % util, 28 %
// SM activity) is not waiting for input: that is low-utilization.
func hostStarved(f *frame.Frame, g *frame.GPU, w frame.Span, in bool) bool {
	c := g.Counts(w)
	if !c.Judged() || c.Active() == 0 || (!in && !c.Starts()) {
		return false
	}
	if m := c.MeanWork(); !(m < frame.Level(in, f.Opts.LowWork, f.Opts.LowWork+10)) {
		return false // enough work, or no work figure to judge
	}
	if g.Util != nil {
		return frame.Mean(g.Util, w) < f.Opts.LowWork+10
	}
	return c.Share(c.Idle) >= 0.2
}

// hintHostShareIn is the share of a window's known columns where flag is
// 1, and whether any column is known.
func hintHostShareIn(flag []int8, w frame.Span) (float64, bool) {
	return frame.HostShare(flag, []frame.Span{w})
}

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
			busy, known := hintHostShareIn(f.Host.Busy, w)
			single, _ := hintHostShareIn(f.Host.Single, w)
			return known && busy >= frame.Level(in, 0.7, 0.5) && single < 0.5 && hostStarved(f, g, w, in)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := &f.Host
		ev := starvedText(f, gs, g.Spans) + ", while the host CPU is busy"
		var parts []string
		if cpu := frame.HostStats(h.CPU, g.Spans); cpu.OK() {
			parts = append(parts, units.Number(cpu.Mean)+"% overall")
		}
		top := frame.HostStats(h.TopCore, g.Spans)
		if busy, cores := frame.HostStats(h.BusyCores, g.Spans), frame.HostStats(h.Cores, g.Spans); busy.OK() {
			parts = append(parts, fmt.Sprintf("%s of %s cores at %s%% or more, the busiest at %s%%",
				units.Number(busy.Mean), units.Number(cores.Mean), units.Number(f.Opts.BusyCore), units.Number(top.Mean)))
		}
		if job := frame.HostStats(h.Job, g.Spans); job.OK() {
			parts = append(parts, "the job "+units.Number(job.Mean)+"% of a core")
		}
		ev += hintParen(parts) + ", " + f.During(g)
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

// HostSingleThread is host-single-thread: the GPU starved (as in
// hostStarved) while one host core is at PeggedCore or more and at least
// three in four cores are at IdleCore or less, in at least 70 % of the
// window (50 % to go on). One thread feeds the GPU: num_workers=0 (seed
// report 001's "safe mode"), or preprocessing in the main process. It
// needs per-core data. Critical when the mean work is below 30 %.
var HostSingleThread = frame.Rule{
	ID: timeline.HintHostSingleThread,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPU(timeline.HintHostSingleThread, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			single, known := hintHostShareIn(f.Host.Single, w)
			return known && single >= frame.Level(in, 0.7, 0.5) && hostStarved(f, g, w, in)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := &f.Host
		top := frame.HostStats(h.TopCore, g.Spans)
		idle, cores := frame.HostStats(h.IdleCores, g.Spans), frame.HostStats(h.Cores, g.Spans)
		ev := fmt.Sprintf("%s, while one host core runs at %s%% and %s of %s cores idle, %s", starvedText(f, gs, g.Spans),
			units.Number(top.Mean), units.Number(idle.Mean), units.Number(cores.Mean), f.During(g))
		sug := "One thread feeds the GPU: a DataLoader with `num_workers=0`, or preprocessing in the main process. Use " +
			"`num_workers > 0` with `persistent_workers=True`, or parallelise the preprocessing (processes; threads only " +
			"help outside the GIL)."
		return hostHint(f, gs, g, ev, sug, 0.8), true
	},
}

// IOWait is io-wait: the GPU stalls (idle or busy-waiting in at least
// 30 % of the window's columns, 20 % to go on) while the host's iowait is
// high (hostIOHigh: IOWait % or more, or two cores' worth) in at least
// half of it (30 % to go on), and the disks read at least as much as they
// write where disk rates are recorded: input waiting on storage, not a
// checkpoint being written (which periodic-stall reports). Critical when
// the mean work is below 30 %.
var IOWait = frame.Rule{
	ID: timeline.HintIOWait,
	Find: func(f *frame.Frame) []frame.Cand {
		h := &f.Host
		return f.PerGPU(timeline.HintIOWait, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			high, known := hintHostShareIn(h.IOHigh, w)
			if !known || high < frame.Level(in, 0.5, 0.3) || frame.Mean(h.DiskRead, w) < frame.Mean(h.DiskWrite, w) {
				return false
			}
			c := g.Counts(w)
			return c.Judged() && c.Share(c.Idle+c.Waiting) >= frame.Level(in, 0.3, 0.2)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := &f.Host
		wait := frame.HostStats(h.IOWait, g.Spans)
		ev := starvedText(f, gs, g.Spans) + ", while host iowait is " + units.Number(wait.Mean) + "%"
		if cores := frame.HostStats(h.Cores, g.Spans); cores.OK() {
			ev += " (" + units.Number(wait.Mean*cores.Mean/100) + " cores' worth)"
		}
		conf := 0.75
		if rd := frame.HostStats(h.DiskRead, g.Spans); rd.OK() {
			ev += " and the disks read " + units.Rate(rd.Mean)
		} else {
			conf = 0.6
		}
		ev += ", " + f.During(g)
		sug := "Input waits on storage: copy the dataset to local NVMe or RAM (tmpfs), read it in large sequential " +
			"shards (WebDataset, TFRecord), use more reader workers, or cache decoded samples."
		return hostHint(f, gs, g, ev, sug, conf), true
	},
}

// starvedText describes a starved GPU: "GPU0-7 idle 70 % of the time (work
// in bursts of 1-2s, then 3-5s idle), SM activity averages 20%".
func starvedText(f *frame.Frame, gs []*frame.GPU, spans []frame.Span) string {
	idle := frame.ShareOf(gs, spans, func(st frame.State) bool { return st == frame.Idle || st == frame.Waiting })
	ids := make([]int, len(gs))
	for k, g := range gs {
		ids[k] = g.Index
	}
	text := f.GPUNames(ids)
	if idle >= 0.2 {
		text += " idle " + units.Share(idle) + " of the time"
		if work, gap := cycles(f, gs, spans); work.OK() && gap.OK() {
			text += " (work in bursts of " + frame.Range(work, "s") + ", then " + frame.Range(gap, "s") + " idle)"
		}
		text += ","
	}
	work := frame.Stats(gs, frame.PickWork, spans, nil)
	if frame.Stats(gs, frame.PickSM, spans, nil).OK() {
		return text + " SM activity averages " + units.Number(work.Mean) + "%"
	}
	return text + " util averages " + units.Number(work.Mean) + "%"
}

// cycles measures the runs of work and of idleness inside spans, in
// seconds; runs cut by a span's edge are left out.
func cycles(f *frame.Frame, gs []*frame.GPU, spans []frame.Span) (work, idle frame.Stat) {
	var on, off []float32
	for _, g := range gs {
		for _, sp := range spans {
			start, prev := sp.Lo, frame.State(255)
			for i := sp.Lo; i <= sp.Hi; i++ {
				st := frame.State(255)
				if i < sp.Hi {
					st = g.State[i]
					if st == frame.Busy {
						st = frame.Low
					}
					if st == frame.Waiting {
						st = frame.Idle
					}
				}
				if st == prev {
					continue
				}
				if start > sp.Lo && i < sp.Hi {
					secs := float32(f.Dur(frame.Span{Lo: start, Hi: i}).Seconds())
					switch prev {
					case frame.Low:
						on = append(on, secs)
					case frame.Idle:
						off = append(off, secs)
					}
				}
				start, prev = i, st
			}
		}
	}
	stat := func(xs []float32) frame.Stat {
		return frame.Stats([]*frame.GPU{{Util: xs}}, frame.PickUtil, []frame.Span{{Lo: 0, Hi: len(xs)}}, nil)
	}
	return stat(on), stat(off)
}

// hostHint finishes a host rule's hint: critical when the GPUs' mean work
// is below 30 % (most of them wasted); the confidence lower on
// utilisation alone and without per-core data.
func hostHint(f *frame.Frame, gs []*frame.GPU, g *frame.Group, ev, sug string, conf float64) timeline.Hint {
	sev := timeline.Warning
	if frame.Stats(gs, frame.PickWork, g.Spans, nil).Mean < 30 {
		sev = timeline.Critical
	}
	if !frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
		conf *= 0.85
	}
	if f.Host.Cores == nil {
		conf *= 0.85
	}
	return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * frame.KnownShare(gs, g.Spans)}
}

// hintParen joins parts in parentheses: " (a, b)"; "" for none.
func hintParen(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	s := " ("
	for k, p := range parts {
		if k > 0 {
			s += ", "
		}
		s += p
	}
	return s + ")"
}
