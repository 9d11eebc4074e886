package hosts

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// Rules across the hosts of a session of several (a Prometheus import of a
// cluster, `gputop --hosts`): host-idle, host-late, straggler-host and
// uneven-memory. A multi-node job is one job: its hosts should work alike,
// and where one does not, the whole job waits for it or wastes it.
//
// They judge each host by its GPUs together (hostCol: per column, how many
// of its GPUs are idle, working or busy-waiting, and the means of their
// figures), and compare it with the other hosts. A host whose GPUs have no
// data (not answering: its series are a gap, never a zero) is not judged at
// all. In a session of one host they never fire.
//
// Where a cross-host rule holds, it names the cause better than the rules
// that look at one GPU: Suppress drops gpu-idle, idle-memory-held,
// low-utilization and gpu-imbalance on the GPUs of a host that is idle or
// late (one host-idle line, not eight gpu-idle ones), and busy-wait on the
// GPUs that wait for a straggler or an idle host. The one-GPU rules
// otherwise go on within each host as before.

// The hosts' thresholds. They are fixed, not Options: they compare
// hosts with each other, and Options' levels (IdleUtil, WaitUtil, ...)
// already decide what each GPU was doing.
const (
	// hostIdleShare: a host is idle in a window where at least this share
	// of its GPUs' known columns are idle (hostIdleStay to go on) while the
	// other hosts' GPUs work (or busy-wait) in at least hostOthersActive of
	// theirs (hostOthersStay to go on).
	hostIdleShare, hostIdleStay       = 0.9, 0.8
	hostOthersActive, hostOthersStay  = 0.5, 0.4
	hostStartShare                    = 0.8 // of the Window after a host's first working column, worked
	stragglerUtil, stragglerUtilStay  = 80.0, 75.0
	stragglerWork, stragglerWorkStay  = 1.25, 1.15 // a straggler's work over the others' median
	stragglerClock, stragglerClkStay  = 0.90, 0.93 // a throttled straggler's clock over the others'
	stragglerClkWork, stragglerCWStay = 1.10, 1.05 // and its work over theirs, at the same time
	stragglerPegged                   = 90.0       // the others' utilisation when the straggler's dips
	stragglerDip, stragglerDipStay    = 15.0, 10.0 // how far the straggler's utilisation dips below theirs
	unevenShare, unevenShareStay      = 0.3, 0.25  // memory per GPU this share off the hosts' median
	unevenBytes, unevenBytesStay      = 8 << 30, 6 << 30
)

// hostLateMin is how long after the others a host must start to be late.
const hostLateMin = 2 * time.Minute

// othersActive is the share of the other judged hosts' known GPU-columns
// that worked or busy-waited; false if no other host is judged.
func othersActive(wins []hostWin, h int) (float64, bool) {
	known, active := 0, 0
	for k, w := range wins {
		if k == h || !w.judged() {
			continue
		}
		known += w.known
		active += w.active + w.waiting
	}
	if known == 0 {
		return 0, false
	}
	return float64(active) / float64(known), true
}

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
			others, ok := othersActive(wins, h)
			return ok && others >= frame.Level(in, hostOthersActive, hostOthersStay)
		}, func(h, i int) bool {
			c := cols[h][i]
			if c.known == 0 || float64(c.idle) < hostIdleStay*float64(c.known) {
				return false
			}
			known, active := 0, 0
			for k := range cols {
				if k != h {
					known += int(cols[k][i].known)
					active += int(cols[k][i].active + cols[k][i].waiting)
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
		l := f.Layout()
		members := hostMembers(f)
		idle := f.Members(g)
		otherNames := l.NamesOf(len(members), func(k int) bool { return k != h && len(members[k]) > 0 })
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

// hostStarts returns the column each host started working in the view
// (-1: not yet): the first column where at least half its GPUs work and
// the Window from there worked in at least 80 % of its columns. Only
// closed columns count, so the view's open one never moves a start.
func hostStarts(f *frame.Frame, cols [][]hostCol) []int {
	st := hostsOf(f)
	width := int(f.Opts.Window / f.Step)
	final := st.final
	out := make([]int, len(cols))
	for h := range cols {
		s := &st.starts[h]
		all := st.cols[h]
		for s.start < 0 {
			for s.end < s.p+width && s.end < final {
				if all[s.end].working() {
					s.cnt++
				}
				s.end++
			}
			if s.end < s.p+width {
				break
			}
			if all[s.p].working() && float64(s.cnt) >= hostStartShare*float64(width) {
				s.start = s.p
				break
			}
			if all[s.p].working() {
				s.cnt--
			}
			s.p++
		}
		out[h] = -1
		if s.start >= 0 && s.start+width <= f.Closed() {
			out[h] = s.start
		}
	}
	return out
}

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
		var started []int
		for _, s := range starts {
			if s >= 0 {
				started = append(started, s)
			}
		}
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
			if w := hostWindowOf(cols[h], hostsOf(f).blocks[h], []frame.Span{sp}); !w.judged() {
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

// workOf is what straggler-host compares: SM activity where every host
// has it, else the draw as a share of the limit (%), else the draw; the
// name of the figure; false where some host has none.
func workOf(wins []hostWin) ([]float64, string, bool) {
	for _, pick := range []struct {
		name string
		of   func(w hostWin) float64
	}{
		{"SM activity", func(w hostWin) float64 { return w.sm }},
		{"power", func(w hostWin) float64 { return 100 * w.ps }},
		{"power", func(w hostWin) float64 { return w.power }},
	} {
		out := make([]float64, len(wins))
		ok := true
		for k, w := range wins {
			out[k] = math.NaN()
			if !w.judged() || w.share(w.active+w.waiting) < 0.5 {
				continue
			}
			out[k] = pick.of(w)
			ok = ok && !math.IsNaN(out[k])
		}
		if ok {
			return out, pick.name, true
		}
	}
	return nil, "", false
}

// medianOthers is the median of xs but for xs[h], over the judged hosts
// that work; NaN if none.
func medianOthers(xs []float64, wins []hostWin, h int) float64 {
	var v []float64
	for k, x := range xs {
		if k != h && wins[k].works() && !math.IsNaN(x) {
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
func straggles(wins []hostWin, h int, in bool) bool {
	w := wins[h]
	if !w.judged() || w.share(w.active+w.waiting) < 0.9 {
		return false
	}
	others := 0
	for k, o := range wins {
		if k == h || !o.judged() || o.share(o.active+o.waiting) < 0.5 {
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
	x, xo := work[h], medianOthers(work, wins, h)
	if !(xo > 0) || !(x >= 10) {
		return false
	}
	utils := make([]float64, len(wins))
	clocks := make([]float64, len(wins))
	for k, o := range wins {
		utils[k], clocks[k] = o.util, o.clock
	}
	uo, co := medianOthers(utils, wins, h), medianOthers(clocks, wins, h)
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
		return perHost(f, timeline.HintStragglerHost, f.Opts.SustainedWindows, func(h int, wins []hostWin, in bool) bool {
			return straggles(wins, h, in)
		}, nil)
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
		x, xo := work[h], medianOthers(work, wins, h)
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
		l := f.Layout()
		members := hostMembers(f)
		wins := hostWindows(f, hostColumns(f), g.Spans...)
		m, med, ok := unevenMemory(wins, h, false)
		if !ok {
			return timeline.Hint{}, false
		}
		names := l.NamesOf(len(members), func(k int) bool { return k != h && len(members[k]) > 0 && wins[k].works() })
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

// Suppress drops the one-GPU candidates a cross-host candidate
// explains (see the top of this file): on the same GPU, for at least half
// of their time, host-idle and host-late explain gpu-idle,
// idle-memory-held, low-utilization and gpu-imbalance; on any GPU,
// straggler-host and host-idle explain busy-wait (the other hosts wait for
// the slow or idle one; host-idle's evidence says they spin).
func Suppress(cands []frame.Cand) []frame.Cand {
	idleOn := map[int][]frame.Span{}
	var waitedFor []frame.Span
	for _, c := range cands {
		switch c.ID {
		case timeline.HintHostIdle, timeline.HintHostLate:
			idleOn[c.GPU] = append(idleOn[c.GPU], c.Hull())
		}
		switch c.ID {
		case timeline.HintHostIdle, timeline.HintStragglerHost:
			waitedFor = append(waitedFor, c.Hull())
		}
	}
	if len(idleOn) == 0 && len(waitedFor) == 0 {
		return cands
	}
	explained := func(c frame.Cand, by []frame.Span) bool {
		for _, sp := range by {
			if frame.Covered(c.Spans, sp) >= 0.5 {
				return true
			}
		}
		return false
	}
	out := cands[:0:0]
	for _, c := range cands {
		switch c.ID {
		case timeline.HintGPUIdle, timeline.HintIdleMemoryHeld, timeline.HintLowUtilization, timeline.HintGPUImbalance:
			if explained(c, idleOn[c.GPU]) {
				continue
			}
		case timeline.HintBusyWait:
			if explained(c, waitedFor) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
