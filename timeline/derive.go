package timeline

import (
	"math"
	"slices"
	"time"
)

// Value is one display value at one instant: a gauge as sampled, or a
// counter turned into a rate or a share.
type Value struct {
	Key   Key
	Value float64
}

// Derive turns raw samples into display values: gauges pass through, counters
// become rates over the time between prev and cur (or shares of another
// counter, for CPU time), and a counter that went down (a driver reload, a
// wrapped 32-bit value) is a gap, NaN, never a negative spike.
//
// Worked example: energy 1000.0 J at 12:00:00 and 1612.5 J at 12:00:01 give
// gpu.power = 612.5 W. Busy 10.0 s and total 40.0 s, then busy 13.0 s and
// total 44.0 s, give host.cpu = 3/4 × 100 = 75 %.
//
// A counter's display value replaces a gauge of the same name when it is a
// number and the samples are far enough apart for its steps not to matter
// (counterRule.trustAfter): the energy counter's power beats GetPowerUsage's
// average over 5 s or more (an import's scrapes); at a live session's 1 s or
// 250 ms the gauge shows, and the counter only fills in where the gauge has
// no number. On the first sample, before there is a difference to take, the
// gauge shows.
// prev may be nil (the first sample): then only gauges have values.
func Derive(cur, prev *Sample) []Value {
	var d Deriver
	if prev != nil {
		d.Next(prev)
	}
	return valuesOf(&d, cur)
}

// valuesOf is d.Next(s), each number with its key.
func valuesOf(d *Deriver, s *Sample) []Value {
	nums := d.Next(s)
	out := make([]Value, len(nums))
	for i, k := range d.Keys() {
		out[i] = Value{Key: k, Value: nums[i]}
	}
	return out
}

// Deriver is Derive for a stream. It keeps, for each counter that makes a
// value (or is another's denominator), its last two readings and the
// samples they came in: a counter's rate is taken against its reading in
// the sample before, whatever else that sample held, so what to do with
// each position of a sample depends on that sample's keys alone (its
// layoutPlan). Next returns the numbers alone, slot by slot: their keys
// (Keys) and series (IDs) are the plan's, shared by every sample of the
// same keys, so a value costs 8 bytes, not a key's 32 more. The slice
// Next returns is reused by the next call.
type Deriver struct {
	// schema names the display series: each plan's values by id (IDs).
	schema *Schema
	// counters are the rated counters met so far, and state their
	// readings, by the id counters gives.
	counters Schema
	state    []counterState
	// n numbers the samples taken, from 2; a counter read
	// in sample n-1 was in the sample before. Reset skips a number.
	n       uint64
	prevAt  int64 // the time of sample n-1, Unix ns
	hasPrev bool  // there is a sample n-1
	// plan is the plan of the newest sample; kept are the plans of the
	// last layouts, most recent first (plan among them).
	plan *layoutPlan
	kept []*layoutPlan
	// plans counts the plans made: each plan's gen (Layout).
	plans int
	out   []float64
	// rejected counts the values left out as outside their metric's
	// physical range (ranges.go): every sink derives, so every sink sees
	// the same gaps.
	rejected rangeCounts
	// counted are the raw counters that display values came from (the
	// energy counter behind a GPU's power), in the order noted, and
	// countedSet the same: a counter alone in its slot is noted with each
	// new plan, one that shares its slot with a gauge once its rate has
	// beaten the gauge.
	counted    []Key
	countedSet map[Key]struct{}
	// checks are the steps' checks, each once (checkOf): a few hundred.
	checks  []stepCheck
	checkAt map[stepCheck]int32
}

// counterState is one counter's last two readings, each with the number
// of the sample it came in, and its denominator (rule.per: -1 for a rate
// over time).
type counterState struct {
	cur, prev   float64
	curN, prevN uint64
	per         int32
}

// layoutPlan is what a Deriver does with each position of samples of one
// list of keys.
type layoutPlan struct {
	cols  *Columns // the columns it was made for
	steps []step
	// outKeys are the keys of the values, slot by slot, and ids their
	// series in the Deriver's Schema.
	outKeys []Key
	ids     []SeriesID
	// counters are the positions of every counter kept (record).
	counters []int32
	gen      int
}

// step is what to do with one position of a sample. Every sample reads
// the whole plan (574 steps for 8 GPUs with NVLink, 37,000 for 64 hosts,
// in up to keptPlans plans), so it is kept small: what it shares with
// every position of the same metric is in its check.
type step struct {
	slot    int32 // output index, -1 for none (a denominator counter)
	counter int32 // its index in Deriver.state, -1 for a gauge or a counter no rule reads
	check   int32 // its index in Deriver.checks
	// override marks a position whose output slot is shared: a counter's
	// and a gauge's of the same display name.
	override bool
}

// stepCheck is what the steps of one metric share: the rate's scale, the
// range its values are checked against, and in a shared slot when the
// counter wins.
type stepCheck struct {
	scale float64
	// trustAfter is, in a shared slot, the time between samples from which
	// the counter's value wins (counterRule.trustAfter); below it the
	// gauge's does.
	trustAfter float64
	// lo and hi are the bounds of the display value's physical range with
	// their slack (Range.Contains), looked up once.
	lo, hi float64
	name   string // the display name, for the tally of values left out
}

// keptPlans is how many plans a Deriver keeps: a session's whole list of
// keys and a few absences of a host or two (probes/remote gives a merged
// sample of the same hosts the same keys again).
const keptPlans = 6

// Next derives s against the samples given before it: its display values,
// named by Keys and IDs position by position.
func (d *Deriver) Next(s *Sample) []float64 {
	dt := d.advance(s)
	p := d.planOf(s)
	d.record(s, p)
	return d.derive(s, p, dt)
}

// Layout names the layout of the values Next returns: while it stays the
// same, so do their keys, position by position, and whoever files them
// can keep where each one went.
func (d *Deriver) Layout() int {
	if d.plan == nil {
		return 0
	}
	return d.plan.gen
}

// Keys are the keys of the values Next returns, position by position:
// shared by every sample of the same keys, never to be written.
func (d *Deriver) Keys() []Key {
	if d.plan == nil {
		return nil
	}
	return d.plan.outKeys
}

// IDs are the series of the values Next returns, in the Deriver's Schema,
// position by position: shared by every sample of the same keys, never to
// be written.
func (d *Deriver) IDs() []SeriesID {
	if d.plan == nil {
		return nil
	}
	return d.plan.ids
}

// Schema is the catalogue of the series IDs names. A Deriver makes its own
// unless given one (UseSchema).
func (d *Deriver) Schema() *Schema {
	if d.schema == nil {
		d.schema = &Schema{}
	}
	return d.schema
}

// UseSchema names the values in s, which a Store files by: before the
// first sample.
func (d *Deriver) UseSchema(s *Schema) { d.schema = s }

// advance numbers s and returns the seconds since the sample before (0
// for none).
func (d *Deriver) advance(s *Sample) float64 {
	d.n = max(d.n, 1) + 1
	t := s.At.UnixNano()
	var dt float64
	if d.hasPrev {
		dt = time.Duration(t - d.prevAt).Seconds() // as Derive's callers take it
	}
	d.prevAt, d.hasPrev = t, true
	return dt
}

// record notes the readings of s's counters.
func (d *Deriver) record(s *Sample, p *layoutPlan) {
	for _, i := range p.counters {
		st := &d.state[p.steps[i].counter]
		if st.curN != d.n {
			st.prev, st.prevN = st.cur, st.curN
		}
		st.cur, st.curN = s.Values[i], d.n
	}
}

func (d *Deriver) derive(s *Sample, p *layoutPlan, dt float64) []float64 {
	out := slices.Grow(d.out[:0], len(p.outKeys))[:len(p.outKeys)]
	nan := math.NaN()
	for i := range out {
		out[i] = nan
	}
	checks := d.checks
	for i := range p.steps {
		st := &p.steps[i]
		if st.slot < 0 {
			continue
		}
		slot, ck := &out[st.slot], &checks[st.check]
		if st.counter < 0 {
			v := d.checked(ck, s.Values[i])
			// In a shared slot the gauge wins below trustAfter, and fills
			// in where the counter has no number.
			if !st.override || math.IsNaN(*slot) || dt < ck.trustAfter && !math.IsNaN(v) {
				*slot = v
			}
			continue
		}
		v := d.checked(ck, d.rate(st.counter, ck.scale, s.Values[i], dt))
		switch {
		case !st.override:
			*slot = v
		case math.IsNaN(v):
		case dt >= ck.trustAfter:
			*slot = v
			d.noteCounter(p.cols.Key(i))
		case math.IsNaN(*slot):
			*slot = v
		}
	}
	d.out = out
	return out
}

// rate is a counter's value at this sample, reading v: its rise since the
// sample before, over the time between them or over its denominator's.
func (d *Deriver) rate(counter int32, scale, v, dt float64) float64 {
	c := &d.state[counter]
	if c.prevN != d.n-1 {
		return math.NaN()
	}
	delta := v - c.prev
	if delta < 0 || math.IsNaN(delta) {
		return math.NaN()
	}
	per := dt
	if c.per >= 0 {
		p := &d.state[c.per]
		if p.prevN != d.n-1 {
			return math.NaN()
		}
		per = p.cur - p.prev
	}
	if !(per > 0) {
		return math.NaN()
	}
	return delta / per * scale
}

// checked is v, or a gap where v is outside its display metric's range
// (counted). Small enough to be inlined: it runs for every value.
func (d *Deriver) checked(ck *stepCheck, v float64) float64 {
	if v >= ck.lo && v <= ck.hi || v != v { // RangeOf(name).Contains(v), or NaN
		return v
	}
	return d.reject(ck.name, v)
}

// checkOf is the index of ck in d.checks, added the first time.
func (d *Deriver) checkOf(ck stepCheck) int32 {
	if i, ok := d.checkAt[ck]; ok {
		return i
	}
	if d.checkAt == nil {
		d.checkAt = map[stepCheck]int32{}
	}
	d.checkAt[ck] = int32(len(d.checks))
	d.checks = append(d.checks, ck)
	return int32(len(d.checks) - 1)
}

// reject counts v as outside name's range and returns the gap it leaves.
func (d *Deriver) reject(name string, v float64) float64 {
	valid, _ := RangeOf(name)
	d.rejected.note(name, valid, v)
	return math.NaN()
}

// OutOfRange lists, by display metric, the values Next has left out as
// outside their physical range (RangeOf), for a note: "412 power readings
// above 10 kW left out".
func (d *Deriver) OutOfRange() []OutOfRange { return d.rejected.list() }

func (d *Deriver) noteCounter(k Key) {
	if _, ok := d.countedSet[k]; ok {
		return
	}
	if d.countedSet == nil {
		d.countedSet = map[Key]struct{}{}
	}
	d.countedSet[k] = struct{}{}
	d.counted = append(d.counted, k)
}

// Counted says whether a raw counter k has been derived: a GPU's power
// came from its energy counter, not from the driver's power gauge.
func (d *Deriver) Counted(k Key) bool {
	_, ok := d.countedSet[k]
	return ok
}

// CountedKeys are the raw counters Counted says of, so far: a list only
// ever added to, so one handed on with a sample (Derived.Counted) may be
// read in another goroutine while this Deriver goes on.
func (d *Deriver) CountedKeys() []Key { return slices.Clip(d.counted) }

// planOf finds the plan for s's columns: the last one's or a kept one;
// else it makes one. A source gives the samples of one list of keys the
// same Columns, so finding the plan is mostly one pointer check; columns
// made anew for a list a plan was made for (a recording's next segment,
// which decodes its names afresh) are compared key by key once, and the
// plan then reads them.
func (d *Deriver) planOf(s *Sample) *layoutPlan {
	if d.plan != nil && d.plan.cols == s.Columns {
		return d.plan
	}
	at := slices.IndexFunc(d.kept, func(p *layoutPlan) bool { return p.cols == s.Columns })
	if at < 0 {
		at = slices.IndexFunc(d.kept, func(p *layoutPlan) bool { return p.cols.Same(s.Columns) })
	}
	var p *layoutPlan
	if at >= 0 {
		p = d.kept[at]
		p.cols = s.Columns
		copy(d.kept[1:at+1], d.kept[:at])
	} else {
		p = d.makePlan(s)
		if len(d.kept) < keptPlans {
			d.kept = append(d.kept, nil)
		}
		copy(d.kept[1:], d.kept)
	}
	d.kept[0], d.plan = p, p
	return p
}

// counterOf is the index of the rated counter k in d.state, made on first
// sight with its denominator's, the counter of name per ("" for none).
func (d *Deriver) counterOf(k Key, per string) int32 {
	c := d.counters.Register(k)
	if int(c) < len(d.state) {
		return int32(c)
	}
	d.state = append(d.state, counterState{per: -1})
	if per != "" {
		d.state[c].per = d.counterOf(Key{Name: per, Device: k.Device}, counterRules[per].per)
	}
	return int32(c)
}

// makePlan makes the plan for s's keys: each position's slot, in the
// order the display keys first come, and where a gauge and a counter
// share one, the time from which the counter wins.
func (d *Deriver) makePlan(s *Sample) *layoutPlan {
	d.plans++
	cols := s.Columns
	n := cols.Len()
	p := &layoutPlan{cols: cols, steps: make([]step, n), gen: d.plans}
	names := nameMemo{}
	// inSample are the counters of s that are others' denominators: a
	// share whose denominator s lacks makes no value.
	inSample := map[int32]bool{}
	for i := range n {
		key := cols.Key(i)
		p.steps[i] = step{slot: -1, counter: -1}
		if facts := names.of(key.Name); cols.Kind(i) == Counter && facts.rated {
			p.steps[i].counter = d.counterOf(key, facts.rule.per)
			p.counters = append(p.counters, int32(i))
			inSample[p.steps[i].counter] = true
		}
	}
	slots := make(map[Key]int32, n)
	var trust []float64 // by slot: the most trustAfter of its holders
	var holders []int32 // by slot: how many positions write it
	checks := make([]stepCheck, n)
	for i := range n {
		key := cols.Key(i)
		st, ck := &p.steps[i], &checks[i]
		facts := names.of(key.Name)
		out, valid := key, facts.valid
		if cols.Kind(i) == Counter {
			// A counter without a rule is read only as a denominator; one
			// whose denominator s lacks makes no value. Both are recorded.
			if !facts.ruled || d.state[st.counter].per >= 0 && !inSample[d.state[st.counter].per] {
				continue
			}
			ck.scale, ck.trustAfter = facts.rule.scale, facts.rule.trustAfter
			out, valid = Key{Name: facts.rule.out, Device: key.Device}, facts.ruleValid
		}
		ck.lo, ck.hi, ck.name = valid.Min-slack(valid.Min), valid.Max+slack(valid.Max), out.Name
		slot, ok := slots[out]
		if !ok {
			slot = int32(len(p.outKeys))
			slots[out] = slot
			p.outKeys = append(p.outKeys, out)
			p.ids = append(p.ids, d.Schema().Register(out))
			trust, holders = append(trust, 0), append(holders, 0)
		}
		st.slot = slot
		trust[slot] = max(trust[slot], ck.trustAfter)
		holders[slot]++
	}
	for i := range p.steps {
		st := &p.steps[i]
		if st.slot < 0 {
			continue
		}
		if holders[st.slot] > 1 {
			// Both holders of a shared slot weigh it: the counter's
			// trustAfter decides for both.
			st.override, checks[i].trustAfter = true, trust[st.slot]
		}
		st.check = d.checkOf(checks[i])
		if st.counter >= 0 && !st.override {
			d.noteCounter(cols.Key(i)) // alone in its slot: always behind it
		}
	}
	return p
}

// isRated says whether name is a counter's that makes a value (a rule's)
// or a denominator's (one a rule's counter is a share of, rule.per): the
// counters whose readings a Deriver keeps.
func isRated(name string) bool {
	for n, r := range counterRules {
		if n == name || r.per == name {
			return true
		}
	}
	return false
}

// nameFacts is what a plan needs to know of a metric's name.
type nameFacts struct {
	rated bool  // a counter's that makes a value, or a denominator's (isRated)
	valid Range // RangeOf the name
	// rule is the name's counterRule where ruled; ruleValid is RangeOf the
	// value it makes.
	rule      counterRule
	ruled     bool
	ruleValid Range
}

func factsOf(name string) nameFacts {
	f := nameFacts{rated: isRated(name)}
	f.valid, _ = RangeOf(name)
	if f.rule, f.ruled = counterRules[name]; f.ruled {
		f.ruleValid, _ = RangeOf(f.rule.out)
	}
	return f
}

// nameMemo is the facts of the names a plan has met: a session's 37,000
// keys have a few dozen names.
type nameMemo map[string]nameFacts

func (m nameMemo) of(name string) nameFacts {
	f, ok := m[name]
	if !ok {
		f = factsOf(name)
		m[name] = f
	}
	return f
}
