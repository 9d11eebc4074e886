package frame

import (
	"slices"
	"sort"
	"time"
)

// Span is the columns [lo, hi) of a frame.
type Span struct{ Lo, Hi int }

func (s Span) Len() int { return s.Hi - s.Lo }

// ProvisionalMin is the least a provisional reading rests on: until a
// rule's first full window is in, its trailing window judges what there is
// once there are 20 s of it ("so far, 25 s"). A two-second dip is still no
// hint: every rule needs most of its window.
const ProvisionalMin = 20 * time.Second

// Closed is how many of the view's columns are final: all but its last.
// The last may be the one the Engine is still filling, live, and a replay
// that has it whole must say what the live screen said; so it never counts,
// whoever asks. Only windows of closed columns are judged once and for all.
func (f *Frame) Closed() int { return max(0, f.N-1) }

// Windows returns the windows of mult × Window a view judges, in order:
// the grid windows, and the trailing one if there is one (ok). The grid
// slice is the Engine's: it must not be written to. Grid windows step by half their length and start on
// the clock's multiples of the step (12:00:00, 12:00:15, ... for 30 s
// windows), with one more at the frame's first column, so that a window's
// verdict never changes as time goes on; only grid windows of closed
// columns are given. The trailing window, at most one, ends at the view's
// last column. Until the first grid window is in, it is the whole view,
// once that holds ProvisionalMin: a first reading. After that it is a full
// window past the last grid window, and it may only carry a stretch that
// holds on the grid on to now (extendOnly), never start one: a window that
// slides with every sample would say one thing this second and another
// the next.
func (f *Frame) Windows(mult int) (grid []Span, trail Span, ok, extendOnly bool) {
	length := time.Duration(mult) * f.Opts.Window
	width := int((length + f.Step - 1) / f.Step)
	all := f.Kept.grid(mult, width, length)
	closed := f.Closed()
	grid = all[:sort.Search(len(all), func(k int) bool { return all[k].Hi > closed })]
	switch n := len(grid); {
	case n == 0 && time.Duration(f.N)*f.Step >= ProvisionalMin:
		return grid, Span{0, min(f.N, width)}, true, false
	case n > 0 && f.N >= width && f.N-width > grid[n-1].Lo:
		return grid, Span{f.N - width, f.N}, true, true
	}
	return grid, Span{}, false, false
}

// HoldKey names one rule's judgement of one GPU (or the host, -1) at one
// window length, whose verdicts the Engine keeps.
type HoldKey struct {
	Rule string
	GPU  int
	Mult int
}

// Stretch is a run of windows where a rule holds: its columns, and whether
// a grid window is among them (a stretch of the trailing window alone is a
// provisional reading).
type Stretch struct {
	Span Span
	Firm bool
}

// Holds finds where a rule holds: a stretch starts at a window judge
// accepts with in false (the rule's stricter "enter" thresholds) and goes
// on over every following window judge accepts with in true (its looser
// "stay" thresholds): hysteresis, so a hint does not flicker at its
// threshold. If edge is not nil, the column condition behind the rule,
// each stretch is moved to the condition's own edges (see Edges) and
// kept only if it still lasts a Window and half the rule's window: a
// stretch whose windows passed on a few columns of it is not evidence, and
// no hint is shorter than a Window.
//
// The grid windows' verdicts and the stretches they make are kept under
// key (holdState), so judging again a moment later costs only the windows
// closed since; the trailing window is judged afresh each time.
func (f *Frame) Holds(key HoldKey, judge func(w Span, in bool) bool, edge func(i int) bool) []Stretch {
	grid, trail, hasTrail, extendOnly := f.Windows(key.Mult)
	st := f.Kept.holdState(key, len(grid))
	for k := st.done; k < len(grid); k++ {
		w := grid[k]
		st.step(w, true, func(in bool) bool { return st.judged(k, in, func() bool { return judge(w, in) }) })
	}
	st.done = len(grid)
	if st.live && f.HeldFrom > 0 {
		st.forget(grid, f.HeldFrom)
	}
	var raw []Stretch
	if hasTrail && (st.in || !extendOnly) {
		// A copy: the trailing window's verdict is for this view alone (a
		// stretch it closes is appended to a copy of out).
		t := *st
		t.out = st.out[:len(st.out):len(st.out)]
		t.step(trail, false, func(in bool) bool { return judge(trail, in) })
		raw = t.finish()
	} else {
		raw = st.finish()
	}
	minLen := int(max(f.Opts.Window, time.Duration(key.Mult)*f.Opts.Window/2) / f.Step)
	if hasTrail && !extendOnly {
		minLen = min(minLen, trail.Len()) // early on, the reading rests on what there is
	}
	// The stretches closed on the grid keep their edges once those stop
	// short of the view's open column: cut them once, not every tick (a
	// day of checkpoints is hundreds of stretches). Only the Engine's own
	// state keeps them (live); a fresh one has none.
	closed := f.Closed()
	out := make([]Stretch, 0, len(raw))
	for i, r := range raw {
		// A kept cut is this view's too if it ends before the view's open
		// column (the cursor may be a little earlier than when it was kept).
		if i < len(st.edged) && int(st.edged[i].hi) < closed {
			if e := st.edged[i]; e.flag && (edge == nil || e.span().Len() >= minLen) {
				out = append(out, Stretch{e.span(), r.Firm})
			}
			continue
		}
		// The open stretch, once on the grid, keeps its ends: it may go on
		// for longer than the columns held. A closed one is edged next.
		var ends *Ends
		if st.live && r.Firm && i == len(raw)-1 {
			ends = &st.open
		}
		sp, ok := f.Edges(ends, r.Span, edge)
		if st.live && i < len(st.out) && i == len(st.edged) && sp.Hi < closed {
			st.edged = append(st.edged, holdOf(sp, ok))
		}
		if ok && (edge == nil || sp.Len() >= minLen) {
			out = append(out, Stretch{sp, r.Firm})
		}
	}
	return out
}

// heldStretch is a stretch as a holdState keeps it, in half a Stretch's
// bytes: a day of 512 GPUs' rules keeps hundreds of thousands. flag is
// Firm in out; in edged, whether the edge holds anywhere in it.
type heldStretch struct {
	lo, hi int32
	flag   bool
}

func holdOf(sp Span, flag bool) heldStretch {
	return heldStretch{int32(sp.Lo), int32(sp.Hi), flag}
}

func (s heldStretch) span() Span { return Span{int(s.lo), int(s.hi)} }

// holdState is how far holds has judged one key over the grid windows:
// the stretches closed so far, and the one open, if any.
type holdState struct {
	verdicts []uint8 // per grid window: bit 0/1 judged/true for in false, bit 2/3 for in true
	done     int     // grid windows judged into out and cur
	in       bool
	cur      Stretch
	out      []heldStretch
	// live says this is the Engine's own state, not a fresh one for a view
	// of an earlier moment; only it keeps edged, the first of out cut to
	// their edges.
	live  bool
	edged []heldStretch
	// open is what Edges kept of the last stretch, the open one.
	open Ends
	// vbase is the grid window verdicts[0] is of: those before it were let
	// go of with the columns they judged (forget).
	vbase int
}

// judged is a grid window's verdict, judged once and kept: a grid window
// covers closed columns only, so its verdict cannot change. One let go of
// is judged again, on what is held of it.
func (h *holdState) judged(k int, in bool, judge func() bool) bool {
	if k < h.vbase {
		return judge()
	}
	for len(h.verdicts) <= k-h.vbase {
		h.verdicts = append(h.verdicts, 0)
	}
	shift := 0
	if in {
		shift = 2
	}
	b := h.verdicts[k-h.vbase]
	if b&(1<<shift) == 0 {
		b |= 1 << shift
		if judge() {
			b |= 2 << shift
		}
		h.verdicts[k-h.vbase] = b
	}
	return b&(2<<shift) != 0
}

// forget lets go of the verdicts of the grid windows that end before
// column held, the first the Engine still holds, a thousand or more at a
// time: the Engine's own state has judged past them, and a view of an
// earlier moment judges them again on what is held.
func (h *holdState) forget(grid []Span, held int) {
	k := sort.Search(len(grid), func(k int) bool { return grid[k].Hi > held })
	if k-h.vbase >= 1024 && k-h.vbase <= len(h.verdicts) {
		h.verdicts = slices.Clone(h.verdicts[k-h.vbase:])
		h.vbase = k
	}
}

// step takes the next window w, on the grid or not, with ok its verdict.
func (h *holdState) step(w Span, grid bool, ok func(in bool) bool) {
	if h.in {
		if ok(true) {
			h.cur.Span.Hi = max(h.cur.Span.Hi, w.Hi)
			h.cur.Firm = h.cur.Firm || grid
			return
		}
		h.out = append(h.out, holdOf(h.cur.Span, h.cur.Firm))
		h.in = false
	}
	if ok(false) {
		h.cur, h.in = Stretch{w, grid}, true
	}
}

// finish is every stretch, the open one included, in a slice of its own.
func (h *holdState) finish() []Stretch {
	out := make([]Stretch, len(h.out), len(h.out)+1)
	for i, s := range h.out {
		out[i] = Stretch{s.span(), s.flag}
	}
	if h.in {
		out = append(out, h.cur)
	}
	return out
}

// Edges cuts a stretch to the first and last columns where edge holds,
// then grows it over the columns just outside where edge still holds, so
// its start and end are the condition's, not the windows' (an idle tail
// starts at the job's last kernel, not at the next window's start). False
// if edge holds nowhere in it; a nil edge keeps the stretch as it is.
//
// Among the columns let go of (HeldFrom) what the condition was is no
// longer known, and an end there stays where the windows put it, unless
// it was found before and kept in ends (nil: none kept). The Engine's own
// view (Now) keeps there an end it finds on closed columns held all the
// way, and finds it there again while the stretch's windows start (or
// end) where they did.
func (f *Frame) Edges(ends *Ends, sp Span, edge func(i int) bool) (Span, bool) {
	if edge == nil {
		return sp, true
	}
	var kept Ends
	if !f.Now() {
		ends = nil
	} else if ends != nil {
		kept = *ends
	}
	lo, keptLo := kept.lo.from(sp.Lo)
	hi, keptHi := kept.hi.from(sp.Hi)
	if !keptLo {
		for lo = sp.Lo; lo < sp.Hi && lo >= f.HeldFrom && !edge(lo); lo++ {
		}
	}
	if !keptHi {
		for hi = sp.Hi; hi > lo && hi > f.HeldFrom && !edge(hi-1); hi-- {
		}
	}
	if hi <= lo {
		return sp, false
	}
	if !keptLo {
		for lo > f.HeldFrom && edge(lo-1) {
			lo--
		}
		// Kept if found on closed columns, held all the way: it stops where
		// the condition does, not where the columns held do.
		if ends != nil && sp.Lo >= f.HeldFrom && (lo == 0 || lo > f.HeldFrom) && lo < f.Closed() {
			ends.lo = keptEnd{int32(sp.Lo), int32(lo), true}
		}
	}
	if !keptHi {
		for hi < f.N && edge(hi) {
			hi++
		}
		if ends != nil && sp.Hi <= f.Closed() && hi > f.HeldFrom && hi < f.Closed() {
			ends.hi = keptEnd{int32(sp.Hi), int32(hi), true}
		}
	}
	return Span{lo, hi}, true
}

// Ends is what Edges keeps of one stretch: its start and its end, each
// with the windows' start (or end) it was found from.
type Ends struct{ lo, hi keptEnd }

type keptEnd struct {
	col, at int32
	ok      bool
}

// from is the end kept, if it was found from the windows' start (or
// end) col.
func (k keptEnd) from(col int) (int, bool) {
	if !k.ok || int(k.col) != col {
		return 0, false
	}
	return int(k.at), true
}

// Cand is one rule holding on one GPU (gpu -1: the host) over some
// stretches, each no more than MergeGap from the next. Candidates group
// into hints by how much their stretches coincide, only with candidates of
// the same key (a power cap inferred is not grouped with one on record);
// with whole set, all candidates of the key are one hint whatever their
// stretches (the GPUs of one imbalance). firm says a grid window is among
// its stretches' (see stretch).
type Cand struct {
	ID    string
	GPU   int
	Key   string
	Whole bool
	Firm  bool
	Spans []Span
	// Grace is how long after its last stretch the rule still counts as
	// holding (columns; 0: two Windows): a periodic stall holds between
	// its stalls.
	Grace int
}

func (c *Cand) Hull() Span { return Span{c.Spans[0].Lo, c.Spans[len(c.Spans)-1].Hi} }

// Cands turns stretches into candidates of key: stretches less than
// MergeGap apart are one candidate.
func (f *Frame) Cands(id string, gpu int, key string, stretches []Stretch) []Cand {
	gap := int(f.Opts.MergeGap / f.Step)
	var out []Cand
	for _, st := range stretches {
		sp := st.Span
		if n := len(out); n > 0 {
			last := &out[n-1]
			if prev := &last.Spans[len(last.Spans)-1]; sp.Lo-prev.Hi <= gap {
				if sp.Lo <= prev.Hi { // grown into each other (Edges)
					prev.Hi = max(prev.Hi, sp.Hi)
				} else {
					last.Spans = append(last.Spans, sp)
				}
				last.Firm = last.Firm || st.Firm
				continue
			}
		}
		out = append(out, Cand{ID: id, GPU: gpu, Key: key, Firm: st.Firm, Spans: []Span{sp}})
	}
	return out
}

// PerGPU runs holds for every GPU and returns the candidates.
func (f *Frame) PerGPU(id string, mult int, judge func(g *GPU, w Span, in bool) bool,
	edge func(g *GPU, i int) bool) []Cand {
	var out []Cand
	for _, g := range f.GPUs {
		var e func(int) bool
		if edge != nil {
			e = func(i int) bool { return edge(g, i) }
		}
		eps := f.Holds(HoldKey{id, g.Index, mult}, func(w Span, in bool) bool { return judge(g, w, in) }, e)
		// A GPU's candidates are keyed by its host: an episode never
		// groups GPUs of two hosts, whose figures and CPUs differ.
		out = append(out, f.Cands(id, g.Index, f.HostOf(g).Name, eps)...)
	}
	return out
}

// PerGPUShare is PerGPU for a rule of one column condition: a window
// holds where cond holds in at least enter of its known columns (stay to
// go on; see ShareIn), on a GPU signs accepts (any, if nil), and each
// stretch is cut to cond's edges.
func (f *Frame) PerGPUShare(id string, mult int, enter, stay float64, signs func(g *GPU) bool,
	cond func(g *GPU, i int) bool) []Cand {
	return f.PerGPU(id, mult, func(g *GPU, w Span, in bool) bool {
		if signs != nil && !signs(g) {
			return false
		}
		share, ok := g.ShareIn(w, func(i int) bool { return cond(g, i) })
		return ok && share >= Level(in, enter, stay)
	}, cond)
}

// Covered is the share of the columns of spans inside by.
func Covered(spans []Span, by Span) float64 {
	total, in := 0, 0
	for _, sp := range spans {
		total += sp.Len()
		in += max(0, min(sp.Hi, by.Hi)-max(sp.Lo, by.Lo))
	}
	return ratio(in, total)
}

// Group is the candidates of one rule that make one episode: GPUs that
// held together.
type Group struct {
	GPUs  []int // sorted; empty for the host
	Cands []*Cand
	Spans []Span // the union of the candidates' stretches
	Hull  Span
	Firm  bool
	Grace int // the longest of its candidates'
}

// Groups gathers the candidates of rule id into episodes: GPUs whose
// hulls overlap by at least 60 % of their union (GPU1-7 busy-waiting
// together is one episode, not seven), or by key alone (Cand.Whole).
func Groups(id string, cands []Cand) []*Group {
	var groups []*Group
	byKey := map[string]*Group{}
	for i := range cands {
		c := &cands[i]
		if c.ID != id {
			continue
		}
		var g *Group
		if c.Whole {
			g = byKey[c.Key]
		} else {
			for _, cand := range groups {
				if cand.Cands[0].Key == c.Key && Jaccard(cand.Hull, c.Hull()) >= 0.6 {
					g = cand
					break
				}
			}
		}
		if g == nil {
			g = &Group{Hull: c.Hull()}
			groups = append(groups, g)
			if c.Whole {
				byKey[c.Key] = g
			}
		}
		g.Cands = append(g.Cands, c)
		g.Hull = Span{min(g.Hull.Lo, c.Hull().Lo), max(g.Hull.Hi, c.Hull().Hi)}
		if c.GPU >= 0 {
			g.GPUs = append(g.GPUs, c.GPU)
		}
		g.Spans = append(g.Spans, c.Spans...) // united once all are in
		g.Firm = g.Firm || c.Firm
		g.Grace = max(g.Grace, c.Grace)
	}
	for _, g := range groups {
		slices.Sort(g.GPUs)
		g.GPUs = slices.Compact(g.GPUs)
		g.Spans = Union(g.Spans)
	}
	slices.SortStableFunc(groups, func(a, b *Group) int { return a.Hull.Lo - b.Hull.Lo })
	return groups
}

func Jaccard(a, b Span) float64 {
	in := min(a.Hi, b.Hi) - max(a.Lo, b.Lo)
	if in <= 0 {
		return 0
	}
	return float64(in) / float64(max(a.Hi, b.Hi)-min(a.Lo, b.Lo))
}

// Union merges overlapping or touching spans, in order.
func Union(spans []Span) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return a.Lo - b.Lo })
	var out []Span
	for _, sp := range s {
		if n := len(out); n > 0 && sp.Lo <= out[n-1].Hi {
			out[n-1].Hi = max(out[n-1].Hi, sp.Hi)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// gpu returns the frame's GPU with NVML index idx.
func (f *Frame) gpu(idx int) *GPU {
	if i := slices.IndexFunc(f.GPUs, func(g *GPU) bool { return g.Index == idx }); i >= 0 {
		return f.GPUs[i]
	}
	return nil
}

// HostWorking says whether the host of the GPU of NVML index idx was
// working in at least half the known columns of spans: busy (hostBusy),
// or one core pegged (hostSingle, single); known says whether either was
// recorded there at all.
func (f *Frame) HostWorking(idx int, spans []Span) (working, single, known bool) {
	g := f.gpu(idx)
	if g == nil {
		return false, false, false
	}
	h := f.HostOf(g)
	busy, busyKnown := HostShare(&h.Busy, spans)
	one, oneKnown := HostShare(&h.Single, spans)
	return busy >= 0.5 || one >= 0.5, one >= 0.5, busyKnown || oneKnown
}

// Members returns the frame's GPUs of a group.
func (f *Frame) Members(g *Group) []*GPU {
	var out []*GPU
	for _, idx := range g.GPUs {
		if gpu := f.gpu(idx); gpu != nil {
			out = append(out, gpu)
		}
	}
	return out
}
