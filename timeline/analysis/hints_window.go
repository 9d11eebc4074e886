package analysis

import (
	"slices"
	"time"
)

// hintSpan is the columns [lo, hi) of a frame.
type hintSpan struct{ lo, hi int }

func (s hintSpan) len() int { return s.hi - s.lo }

// windows returns the windows of mult × Window the frame holds, in order.
// They step by half their length and start on the clock's multiples of the
// step (12:00:00, 12:00:15, ... for 30 s windows), so that re-evaluating a
// sliding live view gives the same windows each time; one more window
// starts at the frame's first column and one ends at its last, so nothing
// at either edge goes unjudged.
func (f *hintFrame) windows(mult int) []hintSpan {
	if ws, ok := f.wcache[mult]; ok {
		return ws
	}
	length := time.Duration(mult) * f.opts.Window
	width := int((length + f.step - 1) / f.step)
	var ws []hintSpan
	if width > 0 && width <= f.n {
		ws = append(ws, hintSpan{0, width})
		stride := length / 2
		first := f.from.Truncate(stride)
		if first.Before(f.from) {
			first = first.Add(stride)
		}
		for t := first; ; t = t.Add(stride) {
			lo := f.col(t)
			if lo+width > f.n {
				break
			}
			if lo > ws[len(ws)-1].lo {
				ws = append(ws, hintSpan{lo, lo + width})
			}
		}
		if last := (hintSpan{f.n - width, f.n}); last.lo > ws[len(ws)-1].lo {
			ws = append(ws, last)
		}
	}
	f.wcache[mult] = ws
	return ws
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
func (f *hintFrame) holds(mult int, judge func(w hintSpan, in bool) bool, edge func(i int) bool) []hintSpan {
	var out []hintSpan
	in := false
	var cur hintSpan
	minLen := int(max(f.opts.Window, time.Duration(mult)*f.opts.Window/2) / f.step)
	flush := func() {
		if sp, ok := f.edges(cur, edge); ok && (edge == nil || sp.len() >= minLen) {
			out = append(out, sp)
		}
		in = false
	}
	for _, w := range f.windows(mult) {
		if in {
			if judge(w, true) {
				cur.hi = max(cur.hi, w.hi)
				continue
			}
			flush()
		}
		if judge(w, false) {
			cur, in = w, true
		}
	}
	if in {
		flush()
	}
	return out
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
// stretches (the GPUs of one imbalance).
type hintCand struct {
	id    string
	gpu   int
	key   string
	whole bool
	spans []hintSpan
}

func (c *hintCand) hull() hintSpan { return hintSpan{c.spans[0].lo, c.spans[len(c.spans)-1].hi} }

// cands turns stretches into candidates: stretches less than MergeGap apart
// are one candidate.
func (f *hintFrame) cands(id string, gpu int, stretches []hintSpan) []hintCand {
	gap := int(f.opts.MergeGap / f.step)
	var out []hintCand
	for _, sp := range stretches {
		if n := len(out); n > 0 {
			last := &out[n-1]
			prev := &last.spans[len(last.spans)-1]
			switch {
			case sp.lo <= prev.hi: // grown into each other (f.edges)
				prev.hi = max(prev.hi, sp.hi)
				continue
			case sp.lo-prev.hi <= gap:
				last.spans = append(last.spans, sp)
				continue
			}
		}
		out = append(out, hintCand{id: id, gpu: gpu, spans: []hintSpan{sp}})
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
		eps := f.holds(mult, func(w hintSpan, in bool) bool { return judge(g, w, in) }, e)
		out = append(out, f.cands(id, g.index, eps)...)
	}
	return out
}

// hintSuppress drops every candidate that yields (hintRule.yieldsTo) to a
// candidate of another rule on the same GPU whose stretch covers at least
// half of its own: that rule names the cause.
func hintSuppress(cands []hintCand) []hintCand {
	yields := map[string][]string{}
	for _, r := range hintRules {
		yields[r.id] = r.yieldsTo
	}
	out := cands[:0:0]
	for _, c := range cands {
		covered := false
		for _, d := range cands {
			if d.gpu == c.gpu && slices.Contains(yields[c.id], d.id) && hintCovered(c.spans, d.hull()) >= 0.5 {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, c)
		}
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

// hintGroup is the candidates of one rule that make one hint.
type hintGroup struct {
	gpus  []int // sorted; empty for the host
	cands []*hintCand
	spans []hintSpan // the union of the candidates' stretches
	hull  hintSpan
}

// hintGroups gathers the candidates of rule id into hints: GPUs whose
// hulls overlap by at least 60 % of their union (GPU1-7 busy-waiting
// together is one hint, not seven), or by key alone (hintCand.whole).
func hintGroups(f *hintFrame, id string, cands []hintCand) []*hintGroup {
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
