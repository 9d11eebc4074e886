package hosts

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The hosts of a session of several, as the cross-host rules
// (rules.go and a file each) see them: which GPUs are on which host, each host's
// columns summed over its GPUs (kept for the closed columns, with sums of
// whole blocks of them), and a host's figures over a window.

// hostCol is one host in one column: how many of its GPUs were known, idle,
// working (low or busy) and busy-waiting, and the means of their figures
// over the GPUs with a value (NaN: none).
type hostCol struct {
	gpus, known, idle, active, waiting  uint16
	util, sm, power, clock, mem, pshare float32
}

// hostsState is what the Engine keeps of its hosts: the layout, each
// host's columns (final up to final, the Engine's closed columns), when
// each started working, and the hosts' figures over grid windows.
type hostsState struct {
	layout  *frame.Layout  // the layout they were made for
	members [][]*frame.GPU // the Engine's GPUs of each host
	nGPUs   int            // len(Kept.Master.GPUs) when members were made
	cols    []frame.Col[hostCol]
	blocks  [][]hostAcc // sums of each hostBlock of final columns, per host
	final   int
	// openSamples is how many samples the Engine had when the column after
	// the final ones was last made (-1: not made since they grew).
	openSamples int
	starts      []hostStart
	windows     map[frame.Span][]hostWin
}

// hostStart finds the first column a host works: a column where at least
// half its GPUs work, and the Window from it worked in hostStartShare of
// its columns. [p, end) is the window being counted, cnt its working
// columns; start is -1 until found.
type hostStart struct{ start, p, end, cnt int }

// hostsOf is what the Engine keeps of its hosts, forgotten when their
// layout was made again.
func hostsOf(f *frame.Frame) *hostsState {
	l := f.Layout()
	st := frame.Keep[hostsState](f, "hosts")
	if st.layout != l {
		*st = hostsState{layout: l}
	}
	return st
}

func (c hostCol) working() bool { return c.known > 0 && 2*int(c.active+c.waiting) >= int(c.known) }

// hostColumns returns each host's columns of the view (nil in a session
// of fewer than two hosts): the Engine's closed ones are made once, the
// view's open one afresh.
func hostColumns(f *frame.Frame) []frame.Col[hostCol] {
	if f.Kept == nil || f.N == 0 {
		return nil
	}
	k := f.Kept
	l := f.Layout()
	if len(l.Names) < 2 {
		return nil
	}
	st := hostsOf(f)
	if st.cols == nil {
		st.cols = make([]frame.Col[hostCol], len(l.Names))
		st.blocks = make([][]hostAcc, len(l.Names))
		st.starts = make([]hostStart, len(l.Names))
		for h := range st.cols {
			st.cols[h] = frame.NewCol(0, hostCol{})
			st.starts[h].start = -1
		}
		st.windows = map[frame.Span][]hostWin{}
		st.openSamples = -1
	}
	if len(k.Master.GPUs) != st.nGPUs {
		st.members = hostMembers(k.Master)
		st.nGPUs = len(k.Master.GPUs)
	}
	closed := k.Master.N - 1
	if closed > st.final {
		for h := range st.cols {
			for i := st.final; i < closed; i++ {
				setColumn(&st.cols[h], i, hostColumn(st.members[h], i))
			}
			// What the Engine let go of, its hosts' columns let go of too:
			// their windows' sums stay in the blocks.
			st.cols[h].Release(k.Master.HeldFrom)
			for b := len(st.blocks[h]); (b+1)*hostBlock <= closed; b++ {
				var a hostAcc
				for i := b * hostBlock; i < (b+1)*hostBlock; i++ {
					a.add(st.cols[h].At(i))
				}
				st.blocks[h] = append(st.blocks[h], a)
			}
		}
		st.final, st.openSamples = closed, -1
	}
	// The column being filled is made again only when a sample has come
	// since: the rules ask for the columns several times a tick.
	if f.N > st.final && st.openSamples != k.Samples {
		for h := range st.cols {
			setColumn(&st.cols[h], f.N-1, hostColumn(st.members[h], f.N-1))
		}
		st.openSamples = k.Samples
	}
	out := make([]frame.Col[hostCol], len(st.cols))
	for h := range st.cols {
		out[h] = st.cols[h].Cut(f.N)
	}
	return out
}

// setColumn makes column i of a host's columns c, the column after its
// last or one already made (the open column, made again).
func setColumn(cols *frame.Col[hostCol], i int, c hostCol) {
	for cols.Len() <= i {
		cols.Append(hostCol{})
	}
	cols.Set(i, c)
}

// hostColumn sums column i of a host's GPUs.
func hostColumn(gs []*frame.GPU, i int) hostCol {
	c := hostCol{gpus: uint16(len(gs))}
	var sums [5]float64
	var ns [5]int
	shares := 0 // the GPUs with both a draw and a limit
	for _, g := range gs {
		switch g.State.At(i) {
		case frame.Unknown:
			continue
		case frame.Idle:
			c.idle++
		case frame.Low, frame.Busy:
			c.active++
		case frame.Waiting:
			c.waiting++
		}
		c.known++
		p := frame.At(&g.Power, i)
		for k, v := range [5]float64{frame.At(&g.Util, i), frame.At(&g.SM, i), p, frame.At(&g.Clock, i), frame.At(&g.Mem, i)} {
			if v == v {
				sums[k] += v
				ns[k]++
			}
		}
		if l := g.LimitAt.Get(i); l > 0 && p == p {
			c.pshare += float32(p / l)
			shares++
		}
	}
	mean := func(k int) float32 {
		if ns[k] == 0 {
			return float32(math.NaN())
		}
		return float32(sums[k] / float64(ns[k]))
	}
	c.util, c.sm, c.power, c.clock, c.mem = mean(0), mean(1), mean(2), mean(3), mean(4)
	// pshare is a mean over the GPUs with both a draw and a limit.
	if shares > 0 {
		c.pshare /= float32(shares)
	} else {
		c.pshare = float32(math.NaN())
	}
	return c
}

// hostWin is one host over a window: its GPU-columns known, idle, working
// and waiting, and the means of its columns' figures (NaN: none).
type hostWin struct {
	cols, known, idle, active, waiting int
	util, sm, power, clock, mem, ps    float64
}

// judged says whether at least half the host's GPU-columns have data: a
// host that did not answer is not judged.
func (w hostWin) judged() bool { return w.known > 0 && 2*w.known >= w.cols }

func (w hostWin) share(n int) float64 { return float64(n) / float64(w.known) }

// works says the host worked (or busy-waited) at least half of a window
// it is judged in.
func (w hostWin) works() bool { return w.judged() && w.share(w.active+w.waiting) >= 0.5 }

// hostWindows is every host over spans; for one closed grid window it is
// kept.
func hostWindows(f *frame.Frame, cols []frame.Col[hostCol], spans ...frame.Span) []hostWin {
	st := hostsOf(f)
	// One window is kept: by the Engine once its columns are closed, by
	// this view while it reaches the open column (a rule judged host by
	// host asks for every host's window once per host: 64 hosts judged
	// the trailing window 4,096 times a tick).
	var memo map[frame.Span][]hostWin
	if len(spans) == 1 {
		if spans[0].Hi <= f.Closed() {
			memo = st.windows
		} else {
			open, _ := f.InView.(map[frame.Span][]hostWin)
			if open == nil {
				open = map[frame.Span][]hostWin{}
				f.InView = open
			}
			memo = open
		}
		if w, ok := memo[spans[0]]; ok {
			return w
		}
	}
	out := make([]hostWin, len(cols))
	for h := range cols {
		out[h] = hostWindowOf(&cols[h], st.blocks[h], spans)
	}
	if memo != nil {
		// A bound, of at most about 11 MB whatever the hosts (a day of 64
		// held 900 windows, 5 MB): forgotten windows are judged again when
		// asked, and the rules keep the verdicts of closed windows.
		if len(memo) >= min(1<<14, 1<<17/max(1, len(cols))) {
			clear(memo)
		}
		memo[spans[0]] = out
	}
	return out
}

// hostBlock is how many columns a block of kept sums holds: a host over an
// hour's episode is 57 blocks and some columns, not 3,600 columns.
const hostBlock = 64

// hostAcc sums a host's columns.
type hostAcc struct {
	cols, known, idle, active, waiting int
	sums                               [6]float64
	ns                                 [6]int
}

func (a *hostAcc) add(c hostCol) {
	a.cols += int(c.gpus)
	if c.known == 0 {
		return
	}
	a.known += int(c.known)
	a.idle += int(c.idle)
	a.active += int(c.active)
	a.waiting += int(c.waiting)
	for k, v := range [6]float32{c.util, c.sm, c.power, c.clock, c.mem, c.pshare} {
		if v == v {
			a.sums[k] += float64(v)
			a.ns[k]++
		}
	}
}

func (a *hostAcc) merge(b hostAcc) {
	a.cols, a.known, a.idle, a.active, a.waiting = a.cols+b.cols, a.known+b.known, a.idle+b.idle, a.active+b.active,
		a.waiting+b.waiting
	for k := range a.sums {
		a.sums[k] += b.sums[k]
		a.ns[k] += b.ns[k]
	}
}

// hostWindowOf is one host over spans, from its columns cs and the kept
// sums of their whole blocks.
func hostWindowOf(cs *frame.Col[hostCol], blocks []hostAcc, spans []frame.Span) hostWin {
	var a hostAcc
	for _, sp := range spans {
		for i := sp.Lo; i < sp.Hi; {
			if b := i / hostBlock; i%hostBlock == 0 && i+hostBlock <= sp.Hi && b < len(blocks) {
				a.merge(blocks[b])
				i += hostBlock
				continue
			}
			a.add(cs.At(i))
			i++
		}
	}
	w := hostWin{cols: a.cols, known: a.known, idle: a.idle, active: a.active, waiting: a.waiting}
	w.setMeans(a.sums, a.ns)
	return w
}

// setMeans sets w's figures (util, sm, power, clock, mem, ps, in that
// order) to sums over ns; NaN where ns is 0.
func (w *hostWin) setMeans(sums [6]float64, ns [6]int) {
	var m [6]float64
	for k := range m {
		m[k] = math.NaN()
		if ns[k] > 0 {
			m[k] = sums[k] / float64(ns[k])
		}
	}
	w.util, w.sm, w.power, w.clock, w.mem, w.ps = m[0], m[1], m[2], m[3], m[4], m[5]
}

// hostsTogether is the hosts include accepts over a window as one: their
// GPU-columns summed, their figures averaged over their known GPU-columns.
func hostsTogether(wins []hostWin, include func(k int) bool) hostWin {
	var out hostWin
	var sums [6]float64
	var ws [6]int
	for k, w := range wins {
		if !include(k) {
			continue
		}
		out.cols, out.known, out.idle = out.cols+w.cols, out.known+w.known, out.idle+w.idle
		out.active, out.waiting = out.active+w.active, out.waiting+w.waiting
		for m, v := range [6]float64{w.util, w.sm, w.power, w.clock, w.mem, w.ps} {
			if !math.IsNaN(v) && w.known > 0 {
				sums[m] += v * float64(w.known)
				ws[m] += w.known
			}
		}
	}
	out.setMeans(sums, ws)
	return out
}

// figures describes hosts' GPUs by their means: "99% util, SM activity
// 55%", with their draw and clock per GPU if asked.
func (w hostWin) figures(powerAndClock bool) string {
	var parts []string
	if !math.IsNaN(w.util) {
		parts = append(parts, units.Percent(w.util)+" util")
	}
	if !math.IsNaN(w.sm) {
		parts = append(parts, "SM activity "+units.Percent(w.sm))
	}
	if powerAndClock || len(parts) == 0 {
		if !math.IsNaN(w.power) {
			parts = append(parts, units.Watts(w.power))
		}
		if !math.IsNaN(w.clock) {
			parts = append(parts, units.MHz(w.clock))
		}
	}
	if len(parts) == 0 {
		return units.NA
	}
	return strings.Join(parts, ", ")
}

// hostMembers returns the view's GPUs of each host.
func hostMembers(f *frame.Frame) [][]*frame.GPU {
	l := f.Layout()
	out := make([][]*frame.GPU, len(l.Names))
	for _, g := range f.GPUs {
		if h, ok := l.Of[g.Index]; ok {
			out[h] = append(out[h], g)
		}
	}
	return out
}

// hostOf is the host of a group's GPUs (-1: none); a group of these rules
// always has GPUs, its candidates being on each GPU of a host.
func hostOf(f *frame.Frame, g *frame.Group) int {
	if h, ok := f.Layout().Of[g.GPUs[0]]; ok {
		return h
	}
	return -1
}

// perHost runs holds for every host with GPUs in the view and returns one
// candidate per GPU of each stretch, all of a host's grouped by key.
func perHost(f *frame.Frame, id string, mult int, judge func(h int, wins []hostWin, in bool) bool,
	edge func(h, i int) bool) []frame.Cand {
	cols := hostColumns(f)
	if cols == nil {
		return nil
	}
	members := hostMembers(f)
	var out []frame.Cand
	for h := range cols {
		if len(members[h]) == 0 {
			continue
		}
		var e func(int) bool
		if edge != nil {
			e = func(i int) bool { return edge(h, i) }
		}
		// A host's holds are keyed below the host's -1.
		stretches := f.Holds(frame.HoldKey{Rule: id, GPU: -100 - h, Mult: mult}, func(w frame.Span, in bool) bool {
			return judge(h, hostWindows(f, cols, w), in)
		}, e)
		out = append(out, hostCands(f, id, h, members[h], stretches, 0)...)
	}
	return out
}

// hostCands makes a host's stretches candidates on each of its GPUs, one
// episode per merged stretch.
func hostCands(f *frame.Frame, id string, h int, gs []*frame.GPU, stretches []frame.Stretch, grace int) []frame.Cand {
	var out []frame.Cand
	for k, c := range f.Cands(id, -1, "", stretches) {
		c.Key, c.Whole, c.Grace = id+" "+strconv.Itoa(h)+" "+strconv.Itoa(k), true, grace
		for _, g := range gs {
			// Each GPU's candidate has spans of its own.
			c.GPU, c.Spans = g.Index, slices.Clone(c.Spans)
			out = append(out, c)
		}
	}
	return out
}
