package hosts

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// HostIdle is host-idle: one host's GPUs idle while the other hosts'
// work. It judges windows of SustainedWindows × Window (2 min): the host's
// GPUs idle in at least 90 % of their known columns (80 % to go on) while
// the other hosts' GPUs work or busy-wait in at least half of theirs (40 %
// to go on). A host that never starts is idle from the first column. Its
// edges are the columns where the host is still mostly idle and the others
// mostly working. A host that is not answering is a gap, not idle: no
// hint. Warning; critical when the other hosts busy-wait most of the time
// (the job is stuck waiting for the idle host: a hung rank) or when the
// idle hosts hold more than half the session's GPUs. It yields to
// host-late, which says better when the host did start in the end.
var HostIdle = frame.Rule{
	ID: timeline.HintHostIdle,
	Find: func(f *frame.Frame) []frame.Cand {
		cols := hostColumns(f)
		return perHost(f, timeline.HintHostIdle, f.Opts.SustainedWindows, func(h int, wins []hostWin, in bool) bool {
			w := wins[h]
			if !w.judged() || w.share(w.idle) < frame.Level(in, hostIdleShare, hostIdleStay) {
				return false
			}
			// The other hosts judged, as one.
			o := hostsTogether(wins, func(k int) bool { return k != h && wins[k].judged() })
			return o.known > 0 && o.share(o.active+o.waiting) >= frame.Level(in, hostOthersActive, hostOthersStay)
		}, func(h, i int) bool {
			c := cols[h].At(i)
			if c.known == 0 || float64(c.idle) < hostIdleStay*float64(c.known) {
				return false
			}
			known, active := 0, 0
			for k := range cols {
				if k != h {
					o := cols[k].At(i)
					known += int(o.known)
					active += int(o.active + o.waiting)
				}
			}
			return known > 0 && float64(active) >= hostOthersStay*float64(known)
		})
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		h := hostOf(f, g)
		if h < 0 {
			return timeline.Hint{}, false
		}
		members := hostMembers(f)
		idle := f.Members(g)
		otherNames := f.Layout().NamesOf(len(members), func(k int) bool { return k != h && len(members[k]) > 0 })
		if len(otherNames) == 0 {
			return timeline.Hint{}, false
		}
		ev := fmt.Sprintf("%s idle (%s", f.GPUNames(g.GPUs), frame.Activity(idle, g.Spans, nil))
		if mem := frame.Stats(idle, frame.PickMem, g.Spans, nil); mem.OK() {
			ev += ", " + units.Bytes(mem.Mean) + " memory used"
		}
		if hostStarts(f, hostColumns(f))[h] < 0 {
			ev += ", never started"
		}
		ev += ") while " + units.Hosts(otherNames, 3) + " "
		// The others' figures from the hosts' kept sums: a scan of every
		// GPU's columns would cost the whole session on every tick.
		wins := hostWindows(f, hostColumns(f), g.Spans...)
		all := hostsTogether(wins, func(k int) bool { return k != h && len(members[k]) > 0 })
		waiting := 0.0
		if all.known > 0 {
			waiting = all.share(all.waiting)
		}
		if waiting >= 0.5 {
			ev += "busy-wait (" + units.Percent(all.util) + " util, " + units.Share(waiting) + " of the time spinning)"
		} else {
			ev += "work (" + all.figures(false) + ")"
		}
		ev += ", " + f.During(g)
		sev := timeline.Warning
		if waiting >= 0.5 || 2*len(idle) > len(f.GPUs) {
			sev = timeline.Critical
		}
		return timeline.Hint{
			Severity: sev,
			Evidence: ev,
			Suggestion: "One host does no work while the others do. Check that the job was launched there (the launcher's " +
				"host list, `--nnodes`, `MASTER_ADDR`), that its ranks found their GPUs (`CUDA_VISIBLE_DEVICES`), and its " +
				"logs for a crash or a rank stuck before its first step; the other hosts wait for it at every collective.",
			Confidence: 0.85 * frame.KnownShare(idle, g.Spans),
		}, true
	},
	YieldsTo: []string{timeline.HintHostLate},
}
