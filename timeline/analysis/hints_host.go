package analysis

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Rules that find the cause of a starved GPU on the host: input-bound,
// host-single-thread and io-wait. Each judges every GPU over sustained
// windows (SustainedWindows × Window, 2 min) together with the host's
// columns, and stays silent without host data (an imported nvidia-smi log):
// low-utilization then speaks, and says the host was not recorded.

// hostStarved is the GPU side the host rules share: the GPU worked
// throughout the window (hintCounts.starts; any work to go on: a GPU that
// never works is idle-memory-held or gpu-idle), its mean work is below LowWork
// (LowWork+10 to go on), and it waits: utilisation, the share of time with
// a kernel running, averages below LowWork+10, or without utilisation at
// least a fifth of the columns are idle. A GPU that always has a kernel
// running but keeps few SMs busy (the imbalance demo's GPU1: 75 % util, 28 %
// SM activity) is not waiting for input: that is low-utilization.
func (f *hintFrame) hostStarved(g *hintGPU, w hintSpan, in bool) bool {
	c := g.counts(w)
	if !c.judged() || c.active() == 0 || (!in && !c.starts()) {
		return false
	}
	if m := c.meanWork(); !(m < hintLevel(in, f.opts.LowWork, f.opts.LowWork+10)) {
		return false // enough work, or no work figure to judge
	}
	if g.util != nil {
		return hintMean(g.util, w) < f.opts.LowWork+10
	}
	return c.share(c.idle) >= 0.2
}

// hintHostShareIn is the share of a window's known columns where flag is
// 1, and whether any column is known.
func hintHostShareIn(flag []int8, w hintSpan) (float64, bool) {
	return hintHostShare(flag, []hintSpan{w})
}

// inputBoundRule is input-bound: the GPU idle or low while the host CPU is
// busy (hostBusy: CPU at HostBusyCPU or more, two or more cores at
// BusyCore or more, or the job at JobBusyCPU or more) in at least 70 % of
// the window (50 % to go on), the GPU starved as in hostStarved, and the
// host not in the single-thread pattern (that is host-single-thread). The
// input-bound demo: GPUs in a 1-2 s on, 3-5 s off sawtooth while 24
// loader workers keep their cores busy (seed reports 003 and 004).
// Critical when the mean work is below 30 % (most of the GPU wasted).
var inputBoundRule = hintRule{
	id: timeline.HintInputBound,
	find: func(f *hintFrame) []hintCand {
		return f.perGPU(timeline.HintInputBound, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			busy, known := hintHostShareIn(f.host.busy, w)
			single, _ := hintHostShareIn(f.host.single, w)
			return known && busy >= hintLevel(in, 0.7, 0.5) && single < 0.5 && f.hostStarved(g, w, in)
		}, nil)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		h := &f.host
		ev := f.starvedText(gs, g.spans) + ", while the host CPU is busy"
		var parts []string
		if cpu := hintHostStats(h.cpu, g.spans); cpu.ok() {
			parts = append(parts, units.Number(cpu.mean)+"% overall")
		}
		top := hintHostStats(h.topCore, g.spans)
		if busy, cores := hintHostStats(h.busyCores, g.spans), hintHostStats(h.cores, g.spans); busy.ok() {
			parts = append(parts, fmt.Sprintf("%s of %s cores at %s%% or more, the busiest at %s%%",
				units.Number(busy.mean), units.Number(cores.mean), units.Number(f.opts.BusyCore), units.Number(top.mean)))
		}
		if job := hintHostStats(h.job, g.spans); job.ok() {
			parts = append(parts, "the job "+units.Number(job.mean)+"% of a core")
		}
		ev += hintParen(parts) + ", " + f.during(g)
		sug := "The input pipeline cannot keep up: more DataLoader workers (`num_workers`), `pin_memory=True`, a larger " +
			"`prefetch_factor` with `persistent_workers`; cache or pre-decode the dataset; move augmentation to the GPU " +
			"(DALI, torchvision transforms on cuda)."
		if top.mean >= f.opts.PeggedCore {
			sug += " One core is pegged: if it is the main process, collation or host-to-device copies there are the " +
				"bottleneck; move them into the workers."
		}
		return f.hostHint(gs, g, ev, sug, 0.8), true
	},
}

// hostSingleThreadRule is host-single-thread: the GPU starved (as in
// hostStarved) while one host core is at PeggedCore or more and at least
// three in four cores are at IdleCore or less, in at least 70 % of the
// window (50 % to go on). One thread feeds the GPU: num_workers=0 (seed
// report 001's "safe mode"), or preprocessing in the main process. It
// needs per-core data. Critical when the mean work is below 30 %.
var hostSingleThreadRule = hintRule{
	id: timeline.HintHostSingleThread,
	find: func(f *hintFrame) []hintCand {
		return f.perGPU(timeline.HintHostSingleThread, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			single, known := hintHostShareIn(f.host.single, w)
			return known && single >= hintLevel(in, 0.7, 0.5) && f.hostStarved(g, w, in)
		}, nil)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		h := &f.host
		top := hintHostStats(h.topCore, g.spans)
		idle, cores := hintHostStats(h.idleCores, g.spans), hintHostStats(h.cores, g.spans)
		ev := fmt.Sprintf("%s, while one host core runs at %s%% and %s of %s cores idle, %s", f.starvedText(gs, g.spans),
			units.Number(top.mean), units.Number(idle.mean), units.Number(cores.mean), f.during(g))
		sug := "One thread feeds the GPU: a DataLoader with `num_workers=0`, or preprocessing in the main process. Use " +
			"`num_workers > 0` with `persistent_workers=True`, or parallelise the preprocessing (processes; threads only " +
			"help outside the GIL)."
		return f.hostHint(gs, g, ev, sug, 0.8), true
	},
}

// ioWaitRule is io-wait: the GPU stalls (idle or busy-waiting in at least
// 30 % of the window's columns, 20 % to go on) while the host's iowait is
// high (hostIOHigh: IOWait % or more, or two cores' worth) in at least
// half of it (30 % to go on), and the disks read at least as much as they
// write where disk rates are recorded: input waiting on storage, not a
// checkpoint being written (which periodic-stall reports). Critical when
// the mean work is below 30 %.
var ioWaitRule = hintRule{
	id: timeline.HintIOWait,
	find: func(f *hintFrame) []hintCand {
		h := &f.host
		return f.perGPU(timeline.HintIOWait, f.opts.SustainedWindows, func(g *hintGPU, w hintSpan, in bool) bool {
			high, known := hintHostShareIn(h.ioHigh, w)
			if !known || high < hintLevel(in, 0.5, 0.3) || hintMean(h.diskRead, w) < hintMean(h.diskWrite, w) {
				return false
			}
			c := g.counts(w)
			return c.judged() && c.share(c.idle+c.waiting) >= hintLevel(in, 0.3, 0.2)
		}, nil)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		h := &f.host
		wait := hintHostStats(h.iowait, g.spans)
		ev := f.starvedText(gs, g.spans) + ", while host iowait is " + units.Number(wait.mean) + "%"
		if cores := hintHostStats(h.cores, g.spans); cores.ok() {
			ev += " (" + units.Number(wait.mean*cores.mean/100) + " cores' worth)"
		}
		conf := 0.75
		if rd := hintHostStats(h.diskRead, g.spans); rd.ok() {
			ev += " and the disks read " + units.Rate(rd.mean)
		} else {
			conf = 0.6
		}
		ev += ", " + f.during(g)
		sug := "Input waits on storage: copy the dataset to local NVMe or RAM (tmpfs), read it in large sequential " +
			"shards (WebDataset, TFRecord), use more reader workers, or cache decoded samples."
		return f.hostHint(gs, g, ev, sug, conf), true
	},
}

// starvedText describes a starved GPU: "GPU0-7 idle 70 % of the time (work
// in bursts of 1-2s, then 3-5s idle), SM activity averages 20%".
func (f *hintFrame) starvedText(gs []*hintGPU, spans []hintSpan) string {
	idle := hintShareOf(gs, spans, func(st hintState) bool { return st == hsIdle || st == hsWaiting })
	ids := make([]int, len(gs))
	for k, g := range gs {
		ids[k] = g.index
	}
	text := f.gpuNames(ids)
	if idle >= 0.2 {
		text += " idle " + units.Share(idle) + " of the time"
		if work, gap := f.cycles(gs, spans); work.ok() && gap.ok() {
			text += " (work in bursts of " + hintRange(work, "s") + ", then " + hintRange(gap, "s") + " idle)"
		}
		text += ","
	}
	work := hintStats(gs, hintPickWork, spans, nil)
	if hintStats(gs, hintPickSM, spans, nil).ok() {
		return text + " SM activity averages " + units.Number(work.mean) + "%"
	}
	return text + " util averages " + units.Number(work.mean) + "%"
}

// cycles measures the runs of work and of idleness inside spans, in
// seconds; runs cut by a span's edge are left out.
func (f *hintFrame) cycles(gs []*hintGPU, spans []hintSpan) (work, idle hintStat) {
	var on, off []float32
	for _, g := range gs {
		for _, sp := range spans {
			start, prev := sp.lo, hintState(255)
			for i := sp.lo; i <= sp.hi; i++ {
				st := hintState(255)
				if i < sp.hi {
					st = g.state[i]
					if st == hsBusy {
						st = hsLow
					}
					if st == hsWaiting {
						st = hsIdle
					}
				}
				if st == prev {
					continue
				}
				if start > sp.lo && i < sp.hi {
					secs := float32(f.dur(hintSpan{start, i}).Seconds())
					switch prev {
					case hsLow:
						on = append(on, secs)
					case hsIdle:
						off = append(off, secs)
					}
				}
				start, prev = i, st
			}
		}
	}
	stat := func(xs []float32) hintStat {
		return hintStats([]*hintGPU{{util: xs}}, hintPickUtil, []hintSpan{{0, len(xs)}}, nil)
	}
	return stat(on), stat(off)
}

// hostHint finishes a host rule's hint: critical when the GPUs' mean work
// is below 30 % (most of them wasted); the confidence lower on
// utilisation alone and without per-core data.
func (f *hintFrame) hostHint(gs []*hintGPU, g *hintGroup, ev, sug string, conf float64) timeline.Hint {
	sev := timeline.Warning
	if hintStats(gs, hintPickWork, g.spans, nil).mean < 30 {
		sev = timeline.Critical
	}
	if !hintStats(gs, hintPickSM, g.spans, nil).ok() {
		conf *= 0.85
	}
	if f.host.cores == nil {
		conf *= 0.85
	}
	return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * hintKnownShare(gs, g.spans)}
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
