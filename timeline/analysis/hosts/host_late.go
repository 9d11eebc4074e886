package hosts

import (
	"fmt"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// hostLateMin is how long after the others a host must start to be late.
const hostLateMin = 2 * time.Minute

// HostLate is host-late: a host that starts working well after the
// others. A host starts at the first column where at least half its GPUs
// work and keep working for most of a Window (hostStarts); the others'
// start is the lower median of the started hosts' starts (so that with
// two hosts it is the earlier one, and seven hosts late beside one early
// are not all late). A host that starts at least 2 min after it, having
// data (idle, not a gap) for at least half of the time between, is late:
// the episode runs from the others' start to its own. It is judged once
// the host has worked a Window, so a host that never starts is host-idle,
// not late. Warning: the other hosts' GPUs waited (or ran without it) all
// that time.
var HostLate = frame.Rule{
	ID: timeline.HintHostLate,
	Find: func(f *frame.Frame) []frame.Cand {
		cols := hostColumns(f)
		if cols == nil {
			return nil
		}
		starts := hostStarts(f, cols)
		started := slices.DeleteFunc(slices.Clone(starts), func(s int) bool { return s < 0 })
		if len(started) < 2 {
			return nil
		}
		slices.Sort(started)
		ref := started[(len(started)-1)/2]
		late := int(hostLateMin / f.Step)
		members := hostMembers(f)
		var out []frame.Cand
		for h, s := range starts {
			if s < 0 || s-ref < late || len(members[h]) == 0 {
				continue
			}
			sp := frame.Span{Lo: ref, Hi: s}
			if w := hostWindowOf(&cols[h], hostsOf(f).blocks[h], []frame.Span{sp}); !w.judged() {
				continue // a gap, not a late start: the host was not answering
			}
			out = append(out, hostCands(f, timeline.HintHostLate, h, members[h], []frame.Stretch{{Span: sp, Firm: true}}, 1)...)
		}
		return out
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		h := hostOf(f, g)
		if h < 0 || len(g.Spans) == 0 {
			return timeline.Hint{}, false
		}
		l := f.Layout()
		late := f.Members(g)
		sp := g.Hull
		starts := hostStarts(f, hostColumns(f))
		first := l.NamesOf(len(starts), func(k int) bool { return k != h && starts[k] >= 0 && starts[k] <= sp.Lo })
		ev := fmt.Sprintf("%s started %s after %s (at %s, they at %s); meanwhile its GPUs were idle (%s)",
			l.Names[h], units.Duration(f.Dur(sp)), units.Hosts(first, 3), clockAt(f, sp.Hi), clockAt(f, sp.Lo),
			frame.Activity(late, g.Spans, nil))
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev + ": " + units.Duration(f.Dur(sp)) + " of " + units.Count(len(late), "GPU") + " lost",
			Suggestion: "One host started long after the others: the whole job waited for it, or ran short of it. Look at " +
				"what it did first (a container pull, a dataset copy or cache warm-up, a slow `import`, a retry of the " +
				"rendezvous) in its logs, and start the work there before the job, or stage the data on every host.",
			Confidence: 0.8 * frame.KnownShare(late, g.Spans),
		}, true
	},
}

// clockAt is column c as the time of day, "12:10:00" (UTC): when hosts
// started, a person compares it with the job's logs.
func clockAt(f *frame.Frame, c int) string { return f.Time(c).UTC().Format("15:04:05") }
