package rules

import (
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

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
		return f.PerGPU(timeline.HintIOWait, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			h := f.HostOf(g)
			high, known := frame.HostShare(&h.IOHigh, []frame.Span{w})
			if !known || high < frame.Level(in, 0.5, 0.3) || frame.Mean(&h.DiskRead, w) < frame.Mean(&h.DiskWrite, w) {
				return false
			}
			c := g.Counts(w)
			return c.Judged() && c.Share(c.Idle+c.Waiting) >= frame.Level(in, 0.3, 0.2)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := f.HostOf(gs[0])
		wait := frame.HostStats(&h.IOWait, g.Spans)
		ev := starvedText(f, g, gs) + ", while host iowait is " + units.Number(wait.Mean) + "%"
		if cores := frame.HostStats(&h.Cores, g.Spans); cores.OK() {
			ev += " (" + units.Number(wait.Mean*cores.Mean/100) + " cores' worth)"
		}
		conf := 0.75
		if rd := frame.HostStats(&h.DiskRead, g.Spans); rd.OK() {
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
