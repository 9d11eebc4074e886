package hosts

import (
	"fmt"
	"math"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// workOf is what straggler-host compares: SM activity where every host
// that works has it, else the draw as a share of the limit (%), else the
// draw; the name of the figure; false where some host that works has none.
func workOf(wins []hostWin) (func(w hostWin) float64, string, bool) {
	for _, pick := range []struct {
		name string
		of   func(w hostWin) float64
	}{
		{"SM activity", func(w hostWin) float64 { return w.sm }},
		{"power", func(w hostWin) float64 { return 100 * w.ps }},
		{"power", func(w hostWin) float64 { return w.power }},
	} {
		if !slices.ContainsFunc(wins, func(w hostWin) bool { return w.works() && math.IsNaN(pick.of(w)) }) {
			return pick.of, pick.name, true
		}
	}
	return nil, "", false
}

// medianOthers is the median of a figure of the hosts but h, over the
// judged hosts that work and have it; NaN if none.
func medianOthers(wins []hostWin, h int, of func(w hostWin) float64) float64 {
	var v []float64
	for k, w := range wins {
		if x := of(w); k != h && w.works() && !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// straggles judges host h a straggler over a window; see StragglerHost.
func straggles(h int, wins []hostWin, in bool) bool {
	w := wins[h]
	if !w.judged() || w.share(w.active+w.waiting) < 0.9 {
		return false
	}
	others := 0
	for k, o := range wins {
		if k == h || !o.works() {
			continue // an idle host is host-idle's, not a pace to compare with
		}
		// Every other host pegged: busy-waiting shows as high utilisation.
		if !(o.util >= frame.Level(in, stragglerUtil, stragglerUtilStay)) {
			return false
		}
		others++
	}
	if others == 0 {
		return false
	}
	work, _, ok := workOf(wins)
	if !ok {
		return false
	}
	x, xo := work(w), medianOthers(wins, h, work)
	if !(xo > 0) || !(x >= 10) {
		return false
	}
	uo := medianOthers(wins, h, func(o hostWin) float64 { return o.util })
	co := medianOthers(wins, h, func(o hostWin) float64 { return o.clock })
	switch {
	case w.util >= frame.Level(in, stragglerUtil, stragglerUtilStay) && x >= frame.Level(in, stragglerWork, stragglerWorkStay)*xo:
		return true // it works harder while the others, as pegged, get less done: they wait
	case w.util >= frame.Level(in, stragglerUtil, stragglerUtilStay) && w.clock <= frame.Level(in, stragglerClock, stragglerClkStay)*co &&
		x >= frame.Level(in, stragglerClkWork, stragglerCWStay)*xo:
		return true // held back clocks, and the others wait for it
	case uo >= stragglerPegged && w.util <= uo-frame.Level(in, stragglerDip, stragglerDipStay) && x >= frame.Level(in, 1, 0.95)*xo:
		return true // its utilisation dips while the others stay pegged doing no more: they spin
	}
	return false
}

// StragglerHost is straggler-host: one host's GPUs are slower and the
// other hosts busy-wait for it in every collective. In data-parallel
// training each step ends in an all-reduce; the hosts that finish their
// share first spin in the NCCL kernel until the last arrives. NVML shows
// the spin as utilisation still near 100 % (a kernel is running) with
// less SM activity (NCCL keeps a few SMs busy), less tensor activity and
// less power; the straggler works the whole step: more SM activity and
// power, or the same at held-back clocks (a power cap, heat). With Steps
// shorter than a column the spin is a share of each column, so the
// comparison is of means, host against host, over sustained windows
// (SustainedWindows × Window, 2 min), while the host works (90 % of its
// columns) and every other host that works (half its columns; an idle one
// is host-idle's and left out) has a utilisation of 80 % or more (75 % to
// go on). Host h is a straggler where, with W its work (SM activity
// where every host has it, else power as a share of the limit, else
// power) and Wo the other hosts' median:
//
//   - its utilisation is 80 % or more and W ≥ 1.25 × Wo (1.15 to go on):
//     it gets more done per second than hosts that are just as pegged;
//   - or its SM clock is at most 90 % of the others' median (93 %) and
//     W ≥ 1.10 × Wo (1.05): throttled, and the others wait for it;
//   - or the others' median utilisation is 90 % or more, its own dips
//     15 points below it (10) and W ≥ Wo (0.95): pegged hosts that do no
//     more than one whose kernels pause are spinning (its input, its
//     host, its network slows it).
//
// Healthy hosts alike differ by a few percent and never fire; a host that
// idles is host-idle's. Warning; critical where the others get at most
// half as much done (they wait half of every step).
var StragglerHost = frame.Rule{
	ID: timeline.HintStragglerHost,
	Find: func(f *frame.Frame) []frame.Cand {
		return perHost(f, timeline.HintStragglerHost, f.Opts.SustainedWindows, straggles, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		h := hostOf(f, g)
		if h < 0 {
			return timeline.Hint{}, false
		}
		l := f.Layout()
		members := hostMembers(f)
		slow := f.Members(g)
		cols := hostColumns(f)
		wins := hostWindows(f, cols, g.Spans...)
		working := func(k int) bool { return k != h && len(members[k]) > 0 && wins[k].works() }
		names := l.NamesOf(len(members), working)
		work, what, ok := workOf(wins)
		if !ok || len(names) == 0 {
			return timeline.Hint{}, false
		}
		ev := fmt.Sprintf("%s work (%s) while %s wait (%s): every step waits for %s, %s", f.GPUNames(g.GPUs),
			hostsTogether(wins, func(k int) bool { return k == h }).figures(true), units.Hosts(names, 3),
			hostsTogether(wins, working).figures(true), l.Names[h], f.During(g))
		x, xo := math.NaN(), medianOthers(wins, h, work)
		if wins[h].works() {
			x = work(wins[h])
		}
		sev := timeline.Warning
		if xo <= 0.5*x {
			sev = timeline.Critical
		}
		conf := 0.75
		if what != "SM activity" {
			conf = 0.6 // power alone also moves with the model's mix of kernels
		}
		return timeline.Hint{
			Severity: sev,
			Evidence: ev,
			Suggestion: "One host is slower and every collective waits for it. Check its clocks and clock-event reasons " +
				"(`nvidia-smi -q -d PERFORMANCE`), its power cap and cooling, its GPUs' links and NIC (`nvidia-smi topo -m`, " +
				"`ibstat`, `nccl-tests`), and whether its ranks get more data (uneven shards) or extra work (rank 0's logging " +
				"and evaluation).",
			Confidence: conf * frame.KnownShare(slow, g.Spans),
		}, true
	},
}
