package hosts

import (
	"fmt"
	"math"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// UnevenMemory is uneven-memory: memory used per GPU differs a lot
// across the hosts of one job. It judges windows of SustainedWindows ×
// Window (2 min) where every host with data works (its GPUs working or
// busy-waiting 90 % of the time; a host starting or stopping holds what it
// is loading or freeing) or idles (under half the time: host-idle's, and
// left out): a host whose
// mean memory per GPU is off the hosts' median (the lower one, for an
// even number) by at least 30 % of it and 8 GiB (25 % and 6 GiB to go on)
// is uneven. Info; a warning where that host's GPUs are at 90 % of their
// memory or more (it will run out first, and it bounds every host's
// batch).
var UnevenMemory = frame.Rule{
	ID: timeline.HintUnevenMemory,
	Find: func(f *frame.Frame) []frame.Cand {
		return perHost(f, timeline.HintUnevenMemory, f.Opts.SustainedWindows, func(h int, wins []hostWin, in bool) bool {
			m, med, ok := unevenMemory(wins, h, true)
			if !ok {
				return false
			}
			d := math.Abs(m - med)
			return d >= frame.Level(in, unevenShare, unevenShareStay)*med && d >= frame.Level(in, unevenBytes, unevenBytesStay)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		h := hostOf(f, g)
		if h < 0 {
			return timeline.Hint{}, false
		}
		members := hostMembers(f)
		wins := hostWindows(f, hostColumns(f), g.Spans...)
		m, med, ok := unevenMemory(wins, h, false)
		if !ok {
			return timeline.Hint{}, false
		}
		names := f.Layout().NamesOf(len(members), func(k int) bool { return k != h && len(members[k]) > 0 && wins[k].works() })
		gs := f.Members(g)
		total := math.NaN()
		for _, gpu := range gs {
			if gpu.MemTotal > 0 {
				total = gpu.MemTotal
			}
		}
		held := units.Bytes(m) + " per GPU"
		sev := timeline.Info
		if total > 0 {
			held = units.BytesOf(m, total) + " per GPU"
			if m >= 0.9*total {
				sev = timeline.Warning
			}
		}
		dir := "more"
		if m < med {
			dir = "less"
		}
		ev := fmt.Sprintf("%s hold %s, %s than the hosts' median of %s (%s), %s", f.GPUNames(g.GPUs), held,
			units.Bytes(math.Abs(m-med))+" "+dir, units.Bytes(med), "beside "+units.Hosts(names, 3), f.During(g))
		return timeline.Hint{
			Severity: sev,
			Evidence: ev,
			Suggestion: "The hosts of one job hold different amounts: uneven shards or sequence lengths, a rank that keeps " +
				"extra state (rank 0's optimizer, evaluation or logging buffers), or a different batch size or model layout " +
				"per host. Even them out: the fullest host runs out of memory first and bounds every host's batch.",
			Confidence: 0.8 * frame.KnownShare(gs, g.Spans),
		}, true
	},
}

// unevenMemory is host h's mean memory per GPU and the hosts' median over
// a window; false unless h and at least one other host work with memory
// recorded, and (judging a window) every host with data works (90 % of its
// columns) or idles (under half of them, and is left out). Describing an
// episode, whose stretches may span a host's start, it only leaves out the
// hosts that idled.
func unevenMemory(wins []hostWin, h int, judging bool) (m, median float64, ok bool) {
	var all []float64
	for _, w := range wins {
		if !w.judged() || math.IsNaN(w.mem) {
			continue
		}
		switch share := w.share(w.active + w.waiting); {
		case share < 0.5:
			continue // an idle host is host-idle's
		case share < 0.9 && judging:
			return 0, 0, false // a host starting or stopping holds what it is loading or freeing
		}
		all = append(all, w.mem)
	}
	w := wins[h]
	if len(all) < 2 || !w.judged() || math.IsNaN(w.mem) || w.share(w.active+w.waiting) < frame.Level(judging, 0.5, 0.9) {
		return 0, 0, false
	}
	slices.Sort(all)
	return w.mem, all[(len(all)-1)/2], true
}
