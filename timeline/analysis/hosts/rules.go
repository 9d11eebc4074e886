package hosts

import (
	"slices"

	"github.com/gputop-dev/gputop/timeline"
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

// hostStarts returns the column each host started working in the view
// (-1: not yet): the first column where at least half its GPUs work and
// the Window from there worked in at least 80 % of its columns. Only
// closed columns count, so the view's open one never moves a start.
func hostStarts(f *frame.Frame, cols []frame.Col[hostCol]) []int {
	st := hostsOf(f)
	width := int(f.Opts.Window / f.Step)
	final := st.final
	out := make([]int, len(cols))
	for h := range cols {
		s := &st.starts[h]
		all := &st.cols[h]
		for s.start < 0 {
			for s.end < s.p+width && s.end < final {
				if all.At(s.end).working() {
					s.cnt++
				}
				s.end++
			}
			if s.end < s.p+width {
				break
			}
			if all.At(s.p).working() && float64(s.cnt) >= hostStartShare*float64(width) {
				s.start = s.p
				break
			}
			if all.At(s.p).working() {
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

// Suppress drops the one-GPU candidates a cross-host candidate
// explains (see the top of this file): on the same GPU, for at least half
// of their time, host-idle and host-late explain gpu-idle,
// idle-memory-held, low-utilization and gpu-imbalance; on any GPU,
// straggler-host and host-idle explain busy-wait (the other hosts wait for
// the slow or idle one; host-idle's evidence says they spin). Memory held
// on GPUs whose own host's CPU is busy is not explained: that job computes
// on the CPU, which idle-memory-held says (critical) as it would of the
// node alone, and host-idle cannot.
func Suppress(f *frame.Frame, cands []frame.Cand) []frame.Cand {
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
		return slices.ContainsFunc(by, func(sp frame.Span) bool { return frame.Covered(c.Spans, sp) >= 0.5 })
	}
	return slices.DeleteFunc(slices.Clone(cands), func(c frame.Cand) bool {
		switch c.ID {
		case timeline.HintIdleMemoryHeld:
			if !explained(c, idleOn[c.GPU]) {
				return false
			}
			working, _, _ := f.HostWorking(c.GPU, c.Spans)
			return !working
		case timeline.HintGPUIdle, timeline.HintLowUtilization, timeline.HintGPUImbalance:
			return explained(c, idleOn[c.GPU])
		case timeline.HintBusyWait:
			return explained(c, waitedFor)
		}
		return false
	})
}
