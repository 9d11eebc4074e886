package timeline

import "math"

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
	return append([]Value(nil), d.derive(cur, prev)...)
}

// Deriver is Derive for a stream: it remembers the layout of the last sample
// so that a stream whose probes write the same metrics in the same order
// (every real one) derives without hashing keys. The slice it returns is
// reused by the next call.
type Deriver struct {
	prev     *Sample
	plan     []step
	planCur  []keyKind
	planPrev []keyKind
	out      []Value
	// slots is how many values the plan makes: while out holds them all,
	// their keys are the plan's.
	slots int
	// plans counts the plans made: while it stays, every sample has the
	// layout of the one before (Layout).
	plans int
	// rejected counts the values left out as outside their metric's
	// physical range (ranges.go): every sink derives, so every sink sees
	// the same gaps.
	rejected rangeCounts
	// counted are the raw counters that display values came from (the
	// energy counter behind a GPU's power): a counter alone in its slot is
	// noted with each new layout, one that shares its slot with a gauge
	// once its rate has beaten the gauge.
	counted map[Key]struct{}
	// sharing are the plan's indexes of counters that share their slot
	// with a gauge, for Follow to note.
	sharing []int
	// curLayout and prevLayout are the Sample.Layout of the samples the
	// plan was last found to fit (0: none or unknown).
	curLayout, prevLayout uint64
	// valuesLayout is ValuesLayout: the plan's, from NewLayout.
	valuesLayout uint64
	// gen is Layout: the number of the plan in use, which a plan kept
	// (recent) brings back with it.
	gen int
	// recent are the last plans used, most recent first (derive_plans.go).
	recent []keptPlan
}

func (d *Deriver) noteCounter(k Key) {
	if d.counted == nil {
		d.counted = map[Key]struct{}{}
	}
	d.counted[k] = struct{}{}
}

// Counted says whether a raw counter k has been derived: a GPU's power
// came from its energy counter, not from the driver's power gauge.
func (d *Deriver) Counted(k Key) bool {
	_, ok := d.counted[k]
	return ok
}

// step is what to do with one metric of cur. Every sample reads the whole
// plan (574 steps for 8 GPUs with NVLink), so a step is kept small: 72
// bytes, where ints and the range beside its bounds made it 120.
type step struct {
	slot    int32 // output index, -1 to drop (a denominator counter)
	prevAt  int32 // index of the same key in prev, -1 if absent
	perCur  int32 // index of the denominator in cur, -1 for a rate over time
	perPrev int32
	counter bool
	// override marks a metric whose output slot is shared: a counter's
	// and a gauge's of the same display name.
	override bool
	scale    float64
	// trustAfter is, in a shared slot, the time between samples from which
	// the counter's value wins (counterRule.trustAfter); below it the
	// gauge's does.
	trustAfter float64
	// lo and hi are the bounds of the display value's physical range with
	// their slack (Range.Contains), looked up once.
	lo, hi float64
	out    string // a counter's display name (its rule's), looked up once
}

// Next derives s against the sample given to the previous call.
func (d *Deriver) Next(s *Sample) []Value {
	out := d.derive(s, d.prev)
	d.prev = s
	return out
}

// Layout names the layout of the values Next returns: while it stays the
// same, so do their keys, position by position, and whoever files them
// can keep where each one went.
func (d *Deriver) Layout() int { return d.gen }

// ValuesLayout is Layout as a Sample.Layout, unique in the process: what
// Derived.Layout carries with the values to a Store.
func (d *Deriver) ValuesLayout() uint64 { return d.valuesLayout }

// Follow takes s as derived elsewhere (Sample.Derived): the next call
// derives against it. Its plan is kept as Next would keep it (made again
// only when the layout changes), so that Counted and Layout answer alike.
func (d *Deriver) Follow(s *Sample) {
	if !d.planFits(s, d.prev) {
		d.replan(s, d.prev)
		d.slots = -1 // the keys of the last output are not this plan's
	}
	if d.prev != nil {
		dt := s.At.Sub(d.prev.At).Seconds()
		for _, i := range d.sharing {
			st := &d.plan[i]
			if dt >= st.trustAfter && st.prevAt >= 0 && !math.IsNaN(s.Metrics[i].Value) && !math.IsNaN(d.prev.Metrics[st.prevAt].Value) {
				d.noteCounter(s.Metrics[i].Key)
			}
		}
	}
	d.prev = s
}

// Reset forgets the previous sample, so the next one starts afresh (after a
// seek, say).
func (d *Deriver) Reset() { d.prev = nil }

func (d *Deriver) derive(cur, prev *Sample) []Value {
	// Under the same plan the keys are those of the last call, where they
	// still are: only the values are written (a key is two strings).
	keep := len(d.out) == d.slots
	if !d.planFits(cur, prev) {
		d.replan(cur, prev)
		keep = false
	}
	out := d.out[:0]
	// The time between the samples, for every rate over time.
	var dt float64
	if prev != nil {
		dt = cur.At.Sub(prev.At).Seconds()
	}
	for i := range d.plan {
		st := &d.plan[i]
		if st.slot < 0 {
			continue
		}
		m := &cur.Metrics[i]
		if int(st.slot) == len(out) {
			if keep {
				out = out[:len(out)+1]
				out[st.slot].Value = math.NaN()
			} else {
				out = append(out, Value{Key: displayKey(m.Key, st), Value: math.NaN()})
			}
		}
		slot := &out[st.slot].Value
		if !st.counter {
			v := d.checked(m.Key.Name, st, m.Value)
			// In a shared slot the gauge wins below trustAfter, and fills
			// in where the counter has no number.
			if !st.override || math.IsNaN(*slot) || dt < st.trustAfter && !math.IsNaN(v) {
				*slot = v
			}
			continue
		}
		v := d.checked(st.out, st, d.counterValue(cur, prev, i, st, dt))
		switch {
		case !st.override:
			*slot = v
		case math.IsNaN(v):
		case dt >= st.trustAfter:
			*slot = v
			d.noteCounter(m.Key)
		case math.IsNaN(*slot):
			*slot = v
		}
	}
	d.out, d.slots = out, len(out)
	return out
}

// checked is v, or a gap where v is outside its metric's range, RangeOf
// name (counted). Small enough to be inlined: it runs for every value.
func (d *Deriver) checked(name string, st *step, v float64) float64 {
	if v >= st.lo && v <= st.hi || v != v { // RangeOf(name).Contains(v), or NaN
		return v
	}
	return d.reject(name, v)
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

func displayKey(k Key, st *step) Key {
	if st.counter {
		return Key{Name: st.out, Device: k.Device}
	}
	return k
}

func (d *Deriver) counterValue(cur, prev *Sample, i int, st *step, dt float64) float64 {
	if prev == nil || st.prevAt < 0 {
		return math.NaN()
	}
	delta := cur.Metrics[i].Value - prev.Metrics[st.prevAt].Value
	if delta < 0 || math.IsNaN(delta) {
		return math.NaN()
	}
	var per float64
	if st.perCur >= 0 {
		if st.perPrev < 0 {
			return math.NaN()
		}
		per = cur.Metrics[st.perCur].Value - prev.Metrics[st.perPrev].Value
	} else {
		per = dt
	}
	if !(per > 0) {
		return math.NaN()
	}
	return delta / per * st.scale
}
