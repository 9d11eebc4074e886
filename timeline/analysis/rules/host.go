package rules

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
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
	if !c.Judged() || c.Active == 0 || (!in && !c.Starts()) {
		return false
	}
	if m := c.MeanWork(); !(m < frame.Level(in, f.Opts.LowWork, f.Opts.LowWork+10)) {
		return false // enough work, or no work figure to judge
	}
	if g.Util.Has() {
		return frame.Mean(&g.Util, w) < f.Opts.LowWork+10
	}
	return c.Share(c.Idle) >= 0.2
}

// starvedText describes a group's starved GPUs: "GPU0-7 idle 70 % of the
// time (work in bursts of 1-2s, then 3-5s idle), SM activity averages 20%".
func starvedText(f *frame.Frame, g *frame.Group, gs []*frame.GPU) string {
	idle := frame.ShareOf(gs, g.Spans, func(st frame.State) bool { return st == frame.Idle || st == frame.Waiting })
	text := f.GPUNames(g.GPUs)
	if idle >= 0.2 {
		text += " idle " + units.Share(idle) + " of the time"
		if work, gap := cycles(f, gs, g.Spans); work.OK() && gap.OK() {
			text += " (work in bursts of " + frame.Range(work, "s") + ", then " + frame.Range(gap, "s") + " idle)"
		}
		text += ","
	}
	work := frame.Stats(gs, frame.PickWork, g.Spans, nil)
	if frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
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
					switch st = g.State.At(i); st {
					case frame.Busy:
						st = frame.Low
					case frame.Waiting:
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
	return frame.StatsOf(on), frame.StatsOf(off)
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
	if !f.HostOf(gs[0]).Cores.Has() {
		conf *= 0.85
	}
	return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug, Confidence: conf * frame.KnownShare(gs, g.Spans)}
}
