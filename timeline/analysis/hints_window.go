package analysis

import (
	"slices"
	"time"
)

// hintSpan is the columns [lo, hi) of a frame.
type hintSpan struct{ lo, hi int }

func (s hintSpan) len() int { return s.hi - s.lo }

// ProvisionalMin is the least a provisional reading rests on: until a
// rule's first full window is in, its trailing window judges what there is
// once there are 20 s of it ("so far, 25 s"). A two-second dip is still no
// hint: every rule needs most of its window.
const ProvisionalMin = 20 * time.Second

// closed is how many of the view's columns are final: all but its last.
// The last may be the one the Engine is still filling, live, and a replay
// that has it whole must say what the live screen said; so it never counts,
// whoever asks. Only windows of closed columns are judged once and for all.
func (f *hintFrame) closed() int { return max(0, f.n-1) }

// windows returns the windows of mult × Window a view judges, in order:
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
func (f *hintFrame) windows(mult int) (grid []hintSpan, trail hintSpan, ok, extendOnly bool) {
	length := time.Duration(mult) * f.opts.Window
	width := int((length + f.step - 1) / f.step)
	all := f.kept.grid(mult, width, length)
	closed := f.closed()
	grid = all[:sortSearch(len(all), func(k int) bool { return all[k].hi > closed })]
	switch n := len(grid); {
	case n == 0 && time.Duration(f.n)*f.step >= ProvisionalMin:
		return grid, hintSpan{0, min(f.n, width)}, true, false
	case n > 0 && f.n >= width && f.n-width > grid[n-1].lo:
		return grid, hintSpan{f.n - width, f.n}, true, true
	}
	return grid, hintSpan{}, false, false
}

// sortSearch is sort.Search, kept local for brevity in the window code.
func sortSearch(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// holdKey names one rule's judgement of one GPU (or the host, -1) at one
// window length, whose verdicts the Engine keeps.
type holdKey struct {
	rule string
	gpu  int
	mult int
}

// stretch is a run of windows where a rule holds: its columns, and whether
// a grid window is among them (a stretch of the trailing window alone is a
// provisional reading).
type stretch struct {
	span hintSpan
	firm bool
}

// holds finds where a rule holds: a stretch starts at a window judge
// accepts with in false (the rule's stricter "enter" thresholds) and goes
// on over every following window judge accepts with in true (its looser
// "stay" thresholds): hysteresis, so a hint does not flicker at its
// threshold. If edge is not nil, the column condition behind the rule,
// each stretch is moved to the condition's own edges (see f.edges) and
// kept only if it still lasts a Window and half the rule's window: a
// stretch whose windows passed on a few columns of it is not evidence, and
// no hint is shorter than a Window.
//
// The grid windows' verdicts and the stretches they make are kept under
// key (holdState), so judging again a moment later costs only the windows
// closed since; the trailing window is judged afresh each time.
func (f *hintFrame) holds(key holdKey, judge func(w hintSpan, in bool) bool, edge func(i int) bool) []stretch {
	grid, trail, hasTrail, extendOnly := f.windows(key.mult)
	st := f.kept.holdState(key, len(grid))
	for k := st.done; k < len(grid); k++ {
		w := grid[k]
		st.step(w, true, func(in bool) bool { return st.judged(k, in, func() bool { return judge(w, in) }) })
	}
	st.done = len(grid)
	var raw []stretch
	if hasTrail && (st.in || !extendOnly) {
		// A copy: the trailing window's verdict is for this view alone.
		t := *st
		t.out = slices.Clone(st.out)
		t.step(trail, false, func(in bool) bool { return judge(trail, in) })
		raw = t.finish()
	} else {
		raw = st.clone().finish()
	}
	minLen := int(max(f.opts.Window, time.Duration(key.mult)*f.opts.Window/2) / f.step)
	if hasTrail && !extendOnly {
		minLen = min(minLen, trail.len()) // early on, the reading rests on what there is
	}
	// The stretches closed on the grid keep their edges once those stop
	// short of the view's open column: cut them once, not every tick (a
	// day of checkpoints is hundreds of stretches).
	closed := f.closed()
	var edged []edgedStretch
	if st.live {
		edged = st.edged
	}
	out := make([]stretch, 0, len(raw))
	for i, r := range raw {
		// A kept cut is this view's too if it ends before the view's open
		// column (the cursor may be a little earlier than when it was kept).
		if i < len(edged) && edged[i].sp.hi < closed {
			if e := edged[i]; e.ok && (edge == nil || e.sp.len() >= minLen) {
				out = append(out, stretch{e.sp, r.firm})
			}
			continue
		}
		sp, ok := f.edges(r.span, edge)
		if st.live && i < len(st.out) && i == len(st.edged) && sp.hi < closed {
			st.edged = append(st.edged, edgedStretch{sp, ok})
		}
		if ok && (edge == nil || sp.len() >= minLen) {
			out = append(out, stretch{sp, r.firm})
		}
	}
	return out
}

// edgedStretch is a closed stretch cut to its edges (ok false: the edge
// holds nowhere in it).
type edgedStretch struct {
	sp hintSpan
	ok bool
}

// holdState is how far holds has judged one key over the grid windows:
// the stretches closed so far, and the one open, if any.
type holdState struct {
	verdicts []uint8 // per grid window: bit 0/1 judged/true for in false, bit 2/3 for in true
	done     int     // grid windows judged into out and cur
	in       bool
	cur      stretch
	out      []stretch
	// live says this is the Engine's own state, not a fresh one for a view
	// of an earlier moment; only it keeps edged, the first of out cut to
	// their edges.
	live  bool
	edged []edgedStretch
}

// judged is a grid window's verdict, judged once and kept: a grid window
// covers closed columns only, so its verdict cannot change.
func (h *holdState) judged(k int, in bool, judge func() bool) bool {
	for len(h.verdicts) <= k {
		h.verdicts = append(h.verdicts, 0)
	}
	shift := 0
	if in {
		shift = 2
	}
	b := h.verdicts[k]
	if b&(1<<shift) == 0 {
		b |= 1 << shift
		if judge() {
			b |= 2 << shift
		}
		h.verdicts[k] = b
	}
	return b&(2<<shift) != 0
}

// step takes the next window w, on the grid or not, with ok its verdict.
func (h *holdState) step(w hintSpan, grid bool, ok func(in bool) bool) {
	if h.in {
		if ok(true) {
			h.cur.span.hi = max(h.cur.span.hi, w.hi)
			h.cur.firm = h.cur.firm || grid
			return
		}
		h.out = append(h.out, h.cur)
		h.in = false
	}
	if ok(false) {
		h.cur, h.in = stretch{w, grid}, true
	}
}

// finish is every stretch, the open one included.
func (h *holdState) finish() []stretch {
	if h.in {
		return append(h.out, h.cur)
	}
	return h.out
}

func (h *holdState) clone() *holdState {
	c := *h
	c.out = slices.Clone(h.out)
	c.live, c.edged = false, nil
	return &c
}

// edges cuts a stretch to the first and last columns where edge holds,
// then grows it over the columns just outside where edge still holds, so
// its start and end are the condition's, not the windows' (an idle tail
// starts at the job's last kernel, not at the next window's start). False
// if edge holds nowhere in it; a nil edge keeps the stretch as it is.
func (f *hintFrame) edges(sp hintSpan, edge func(i int) bool) (hintSpan, bool) {
	if edge == nil {
		return sp, true
	}
	lo, hi := sp.lo, sp.hi
	for lo < hi && !edge(lo) {
		lo++
	}
	for hi > lo && !edge(hi-1) {
		hi--
	}
	if hi == lo {
		return sp, false
	}
	for lo > 0 && edge(lo-1) {
		lo--
	}
	for hi < f.n && edge(hi) {
		hi++
	}
	return hintSpan{lo, hi}, true
}

// hintCand is one rule holding on one GPU (gpu -1: the host) over some
// stretches, each no more than MergeGap from the next. Candidates group
// into hints by how much their stretches coincide, only with candidates of
// the same key (a power cap inferred is not grouped with one on record);
// with whole set, all candidates of the key are one hint whatever their
// stretches (the GPUs of one imbalance). firm says a grid window is among
// its stretches' (see stretch).
type hintCand struct {
	id    string
	gpu   int
	key   string
	whole bool
	firm  bool
	spans []hintSpan
	// grace is how long after its last stretch the rule still counts as
	// holding (columns; 0: two Windows): a periodic stall holds between
	// its stalls.
	grace int
}

func (c *hintCand) hull() hintSpan { return hintSpan{c.spans[0].lo, c.spans[len(c.spans)-1].hi} }

// cands turns stretches into candidates: stretches less than MergeGap apart
// are one candidate.
func (f *hintFrame) cands(id string, gpu int, stretches []stretch) []hintCand {
	gap := int(f.opts.MergeGap / f.step)
	var out []hintCand
	for _, st := range stretches {
		sp := st.span
		if n := len(out); n > 0 {
			last := &out[n-1]
			prev := &last.spans[len(last.spans)-1]
			switch {
			case sp.lo <= prev.hi: // grown into each other (f.edges)
				prev.hi = max(prev.hi, sp.hi)
				last.firm = last.firm || st.firm
				continue
			case sp.lo-prev.hi <= gap:
				last.spans = append(last.spans, sp)
				last.firm = last.firm || st.firm
				continue
			}
		}
		out = append(out, hintCand{id: id, gpu: gpu, firm: st.firm, spans: []hintSpan{sp}})
	}
	return out
}

// perGPU runs holds for every GPU and returns the candidates.
func (f *hintFrame) perGPU(id string, mult int, judge func(g *hintGPU, w hintSpan, in bool) bool,
	edge func(g *hintGPU, i int) bool) []hintCand {
	var out []hintCand
	for _, g := range f.gpus {
		var e func(int) bool
		if edge != nil {
			e = func(i int) bool { return edge(g, i) }
		}
		eps := f.holds(holdKey{id, g.index, mult}, func(w hintSpan, in bool) bool { return judge(g, w, in) }, e)
		out = append(out, f.cands(id, g.index, eps)...)
	}
	return out
}

// hintCovered is the share of the columns of spans inside by.
func hintCovered(spans []hintSpan, by hintSpan) float64 {
	total, in := 0, 0
	for _, sp := range spans {
		total += sp.len()
		in += max(0, min(sp.hi, by.hi)-max(sp.lo, by.lo))
	}
	if total == 0 {
		return 0
	}
	return float64(in) / float64(total)
}

// hintGroup is the candidates of one rule that make one episode: GPUs that
// held together.
type hintGroup struct {
	gpus  []int // sorted; empty for the host
	cands []*hintCand
	spans []hintSpan // the union of the candidates' stretches
	hull  hintSpan
	firm  bool
	grace int // the longest of its candidates'
}

// hintGroups gathers the candidates of rule id into episodes: GPUs whose
// hulls overlap by at least 60 % of their union (GPU1-7 busy-waiting
// together is one episode, not seven), or by key alone (hintCand.whole).
func hintGroups(id string, cands []hintCand) []*hintGroup {
	var groups []*hintGroup
	byKey := map[string]*hintGroup{}
	for i := range cands {
		c := &cands[i]
		if c.id != id {
			continue
		}
		var g *hintGroup
		if c.whole {
			g = byKey[c.key]
		} else {
			for _, cand := range groups {
				if cand.cands[0].key == c.key && hintJaccard(cand.hull, c.hull()) >= 0.6 {
					g = cand
					break
				}
			}
		}
		if g == nil {
			g = &hintGroup{hull: c.hull()}
			groups = append(groups, g)
			if c.whole {
				byKey[c.key] = g
			}
		}
		g.cands = append(g.cands, c)
		g.hull = hintSpan{min(g.hull.lo, c.hull().lo), max(g.hull.hi, c.hull().hi)}
	}
	for _, g := range groups {
		var all []hintSpan
		for _, c := range g.cands {
			if c.gpu >= 0 {
				g.gpus = append(g.gpus, c.gpu)
			}
			all = append(all, c.spans...)
			g.firm = g.firm || c.firm
			g.grace = max(g.grace, c.grace)
		}
		slices.Sort(g.gpus)
		g.gpus = slices.Compact(g.gpus)
		g.spans = hintUnion(all)
	}
	slices.SortStableFunc(groups, func(a, b *hintGroup) int { return a.hull.lo - b.hull.lo })
	return groups
}

func hintJaccard(a, b hintSpan) float64 {
	in := min(a.hi, b.hi) - max(a.lo, b.lo)
	if in <= 0 {
		return 0
	}
	return float64(in) / float64(max(a.hi, b.hi)-min(a.lo, b.lo))
}

// hintUnion merges overlapping or touching spans, in order.
func hintUnion(spans []hintSpan) []hintSpan {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b hintSpan) int { return a.lo - b.lo })
	var out []hintSpan
	for _, sp := range s {
		if n := len(out); n > 0 && sp.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, sp.hi)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// gpu returns the frame's GPU with NVML index idx.
func (f *hintFrame) gpu(idx int) *hintGPU {
	for _, g := range f.gpus {
		if g.index == idx {
			return g
		}
	}
	return nil
}

// members returns the frame's GPUs of a group.
func (f *hintFrame) members(g *hintGroup) []*hintGPU {
	var out []*hintGPU
	for _, idx := range g.gpus {
		if gpu := f.gpu(idx); gpu != nil {
			out = append(out, gpu)
		}
	}
	return out
}
