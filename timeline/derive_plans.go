package timeline

import (
	"slices"
	"unsafe"
)

// keptPlan is a Deriver's plan as made for samples of two Layouts, kept
// for when they come again. A session of 64 hosts whose one host misses a
// tick goes from layout A to B (without that host's keys) and back: plans
// for (B after A), (A after B) and (A after A) again, each from maps of
// 37,000 keys, twice (the Judge's Deriver and the store's). Kept, the
// last of those is found, and a host missing the same way again finds the
// other two (probes/remote gives a merged sample of the same hosts the
// same Layout again).
type keptPlan struct {
	plan                  []step
	cur, prev             []keyKind
	sharing               []int
	curLayout, prevLayout uint64
	values                uint64
	gen                   int
}

// keptPlans is how many plans a Deriver keeps: (A after A) and the two of
// an absence, for a host or two.
const keptPlans = 6

// replan gives d the plan for cur after prev: one kept, or a new one.
func (d *Deriver) replan(cur, prev *Sample) {
	if !d.restore(cur, prev) {
		d.makePlan(cur, prev)
	}
}

// keep notes the plan just made as the most recent, where it can be found
// again: samples with Layouts, and a previous one (a first sample's plan is
// made once).
func (d *Deriver) keep() {
	if d.curLayout == 0 || d.prevLayout == 0 {
		return
	}
	p := keptPlan{plan: d.plan, cur: d.planCur, prev: d.planPrev, sharing: d.sharing,
		curLayout: d.curLayout, prevLayout: d.prevLayout, values: d.valuesLayout, gen: d.gen}
	if len(d.recent) < keptPlans {
		d.recent = append(d.recent, keptPlan{})
	}
	copy(d.recent[1:], d.recent)
	d.recent[0] = p
}

// restore takes the kept plan for cur after prev, by their Layouts, and
// makes it the most recent. The keys the plan was made for are d.planCur
// and d.planPrev again, so that planFits answers as it did.
func (d *Deriver) restore(cur, prev *Sample) bool {
	if prev == nil || cur.Layout == 0 || prev.Layout == 0 {
		return false
	}
	for i, p := range d.recent {
		if p.curLayout != cur.Layout || p.prevLayout != prev.Layout || len(p.cur) != len(cur.Metrics) || len(p.prev) != len(prev.Metrics) {
			continue
		}
		copy(d.recent[1:i+1], d.recent[:i])
		d.recent[0] = p
		d.plan, d.planCur, d.planPrev, d.sharing = p.plan, p.cur, p.prev, p.sharing
		d.curLayout, d.prevLayout, d.valuesLayout, d.gen = p.curLayout, p.prevLayout, p.values, p.gen
		return true
	}
	return false
}

// planFits says whether cur and prev have the keys the plan was made for.
// Where both have the Layout of the samples it last fitted, they do
// (Sample.Layout): a day's 86,400 samples of 574 metrics are not compared
// key by key, twice for each Deriver.
func (d *Deriver) planFits(cur, prev *Sample) bool {
	if prev != nil && cur.Layout != 0 && prev.Layout != 0 && cur.Layout == d.curLayout && prev.Layout == d.prevLayout &&
		len(cur.Metrics) == len(d.planCur) && len(prev.Metrics) == len(d.planPrev) {
		return true
	}
	if !sameLayout(d.planCur, cur) || !sameLayout(d.planPrev, prev) {
		return false
	}
	d.curLayout, d.prevLayout = layoutID(cur), layoutID(prev)
	return true
}

// layoutID is s's Layout, 0 for no sample.
func layoutID(s *Sample) uint64 {
	if s == nil {
		return 0
	}
	return s.Layout
}

// keyKind is a metric as a plan reads it: its key and whether it is a
// counter. A series that comes as a gauge (a gap, in a file of earlier
// builds) and then as a counter under the same key needs a new plan.
type keyKind struct {
	Key
	kind Kind
}

// sameLayout says whether s has the metrics keys names, of the same kinds,
// in their order. Where it does with strings of its own (a reader's next segment, which
// decodes its names afresh), keys takes s's strings: comparing a string
// with itself is a pointer check, comparing equal copies reads both, and
// it is done for every metric of every sample, twice.
func sameLayout(keys []keyKind, s *Sample) bool {
	if s == nil {
		return keys == nil
	}
	if len(keys) != len(s.Metrics) {
		return false
	}
	for i := range keys {
		m := &s.Metrics[i]
		if keys[i].kind != m.Kind {
			return false
		}
		if sameStrings(keys[i].Key, m.Key) {
			continue
		}
		if keys[i].Key != m.Key {
			return false
		}
		keys[i].Key = m.Key
	}
	return true
}

// sameStrings says whether a and b share their strings' bytes.
func sameStrings(a, b Key) bool {
	return unsafe.StringData(a.Name) == unsafe.StringData(b.Name) &&
		unsafe.StringData(a.Device) == unsafe.StringData(b.Device)
}

func layoutOf(s *Sample) []keyKind {
	if s == nil {
		return nil
	}
	keys := make([]keyKind, len(s.Metrics))
	for i := range s.Metrics {
		keys[i] = keyKind{s.Metrics[i].Key, s.Metrics[i].Kind}
	}
	return keys
}

func (d *Deriver) makePlan(cur, prev *Sample) {
	d.plans++
	// cur's keys are looked up only as the denominators of counters
	// (rule.per): the map holds those alone, not a session's 37,000 keys.
	// Only counters are looked up, so only counters are listed: a
	// recording of --hosts whose host held its place with gaps written as
	// gauges of a counter's key (as earlier builds wrote them) would
	// otherwise hide the counter behind its gap for good.
	curAt := map[Key]int{}
	for i := range cur.Metrics {
		if cur.Metrics[i].Kind == Counter && isDenominator(cur.Metrics[i].Key.Name) {
			curAt[cur.Metrics[i].Key] = i
		}
	}
	// prev's keys are looked up only for counters that make values (a
	// rule's, their denominators): a gauge's value is not taken against
	// the one before, so its step's prevAt is -1.
	prevAt := map[Key]int{}
	if prev != nil {
		var names nameMemo
		for i := range prev.Metrics {
			if prev.Metrics[i].Kind == Counter && names.of(prev.Metrics[i].Key.Name).rated {
				prevAt[prev.Metrics[i].Key] = i
			}
		}
	}
	find := func(m map[Key]int, k Key) int32 {
		if i, ok := m[k]; ok {
			return int32(i)
		}
		return -1
	}
	slots := make(map[Key]int32, len(cur.Metrics))
	// lastHolder is, by slot, the last step that writes it, and
	// heldBefore, by step, the one before it in the same slot (-1): a
	// shared slot's holders are found without reading every step before
	// (a GPU's power gauge and energy counter, 512 times in a session of
	// 64 hosts).
	var lastHolder []int32
	heldBefore := make([]int32, len(cur.Metrics))
	var holders []int32
	d.plan = make([]step, len(cur.Metrics))
	var names nameMemo
	for i := range cur.Metrics {
		m := cur.Metrics[i]
		st := step{slot: -1, prevAt: -1, perCur: -1, perPrev: -1}
		facts := names.of(m.Key.Name)
		if facts.rated {
			st.prevAt = find(prevAt, m.Key)
		}
		out := m.Key
		valid := facts.valid
		if m.Kind == Counter {
			rule, ok := facts.rule, facts.ruled
			if !ok {
				d.plan[i] = st
				continue
			}
			st.counter, st.scale, st.out, st.trustAfter = true, rule.scale, rule.out, rule.trustAfter
			valid = facts.ruleValid
			out = Key{Name: rule.out, Device: m.Key.Device}
			if rule.per != "" {
				per := Key{Name: rule.per, Device: m.Key.Device}
				st.perCur, st.perPrev = find(curAt, per), find(prevAt, per)
				if st.perCur < 0 {
					d.plan[i] = step{slot: -1}
					continue
				}
			}
		}
		st.lo, st.hi = valid.Min-slack(valid.Min), valid.Max+slack(valid.Max)
		if slot, ok := slots[out]; ok {
			st.slot, st.override = slot, true
			// Both holders of a shared slot weigh it, the earlier first:
			// the counter's trustAfter decides for both.
			holders = holders[:0]
			for j := lastHolder[slot]; j >= 0; j = heldBefore[j] {
				holders = append(holders, j)
			}
			for k := len(holders) - 1; k >= 0; k-- {
				j := holders[k]
				d.plan[j].override = true
				st.trustAfter = max(st.trustAfter, d.plan[j].trustAfter)
				d.plan[j].trustAfter = st.trustAfter
			}
			heldBefore[i], lastHolder[slot] = lastHolder[slot], int32(i)
		} else {
			st.slot = int32(len(slots))
			slots[out] = st.slot
			heldBefore[i] = -1
			lastHolder = append(lastHolder, int32(i))
		}
		d.plan[i] = st
	}
	d.sharing = nil // a kept plan may hold the last one's
	for i := range d.plan {
		st := &d.plan[i]
		switch {
		case st.counter && st.override:
			d.sharing = append(d.sharing, i)
		case st.counter && st.slot >= 0:
			d.noteCounter(cur.Metrics[i].Key) // alone in its slot: always behind it
		}
	}
	d.planCur, d.planPrev = layoutOf(cur), layoutOf(prev)
	d.curLayout, d.prevLayout = layoutID(cur), layoutID(prev)
	d.valuesLayout = NewLayout()
	d.gen = d.plans
	d.keep()
}

// denominators are the counters other counters are shares of (rule.per).
var denominators = func() []string {
	var out []string
	for _, r := range counterRules {
		if r.per != "" && !slices.Contains(out, r.per) {
			out = append(out, r.per)
		}
	}
	return out
}()

// isDenominator says whether name is one of denominators: a few string
// comparisons, most of them told apart by length.
func isDenominator(name string) bool {
	for _, d := range denominators {
		if name == d {
			return true
		}
	}
	return false
}

// isRated says whether name is a counter's that makes a value (a rule's)
// or a denominator's: the keys a plan looks up in the sample before.
func isRated(name string) bool {
	_, ok := counterRules[name]
	return ok || isDenominator(name)
}
