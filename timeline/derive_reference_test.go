package timeline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// refStep is one position of referenceDerive's plan.
type refStep struct {
	slot, prevAt, perCur, perPrev int
	counter, override             bool
	scale, trustAfter             float64
	name                          string
}

// referenceDerive is Derive as it was first written, of cur against prev
// alone, with maps of every key and every earlier step read for a shared
// slot: the Deriver must give what it gives. A counter's value and its
// denominator are looked up among counters only: a gauge of the same key
// (a gap of a file of earlier builds) is not one.
func referenceDerive(cur, prev *Sample) []Value {
	curAt, prevAt := map[Key]int{}, map[Key]int{}
	for i, m := range cur.Metrics() {
		if m.Kind == Counter {
			curAt[m.Key] = i
		}
	}
	if prev != nil {
		for i, m := range prev.Metrics() {
			if m.Kind == Counter {
				prevAt[m.Key] = i
			}
		}
	}
	find := func(m map[Key]int, k Key) int {
		if i, ok := m[k]; ok {
			return i
		}
		return -1
	}
	slots := map[Key]int{}
	var out []Value
	plan := make([]refStep, cur.Len())
	for i, m := range cur.Metrics() {
		st := refStep{slot: -1, prevAt: find(prevAt, m.Key), perCur: -1, perPrev: -1, name: m.Key.Name}
		key := m.Key
		if m.Kind == Counter {
			rule, ok := counterRules[m.Key.Name]
			if !ok {
				plan[i] = st
				continue
			}
			st.counter, st.scale, st.trustAfter, st.name = true, rule.scale, rule.trustAfter, rule.out
			key = Key{Name: rule.out, Device: m.Key.Device}
			if rule.per != "" {
				per := Key{Name: rule.per, Device: m.Key.Device}
				st.perCur, st.perPrev = find(curAt, per), find(prevAt, per)
				if st.perCur < 0 {
					plan[i] = refStep{slot: -1}
					continue
				}
			}
		}
		if slot, ok := slots[key]; ok {
			st.slot, st.override = slot, true
			for j := 0; j < i; j++ {
				if plan[j].slot == slot {
					plan[j].override = true
					st.trustAfter = max(st.trustAfter, plan[j].trustAfter)
					plan[j].trustAfter = st.trustAfter
				}
			}
		} else {
			st.slot = len(out)
			slots[key] = st.slot
			out = append(out, Value{Key: key, Value: math.NaN()})
		}
		plan[i] = st
	}
	var dt float64
	if prev != nil {
		dt = cur.At.Sub(prev.At).Seconds()
	}
	inRange := func(name string, v float64) float64 {
		if valid, _ := RangeOf(name); math.IsNaN(v) || valid.Contains(v) {
			return v
		}
		return math.NaN()
	}
	for i, st := range plan {
		if st.slot < 0 {
			continue
		}
		slot := &out[st.slot].Value
		if !st.counter {
			v := inRange(st.name, cur.Values[i])
			if !st.override || math.IsNaN(*slot) || dt < st.trustAfter && !math.IsNaN(v) {
				*slot = v
			}
			continue
		}
		v := math.NaN()
		if prev != nil && st.prevAt >= 0 {
			delta := cur.Values[i] - prev.Values[st.prevAt]
			per := dt
			if st.perCur >= 0 {
				per = math.NaN()
				if st.perPrev >= 0 {
					per = cur.Values[st.perCur] - prev.Values[st.perPrev]
				}
			}
			if delta >= 0 && per > 0 {
				v = inRange(st.name, delta/per*st.scale)
			}
		}
		switch {
		case !st.override:
			*slot = v
		case math.IsNaN(v):
		case dt >= st.trustAfter:
			*slot = v
		case math.IsNaN(*slot):
			*slot = v
		}
	}
	return out
}

// TestDeriverIsTheReference derives streams of random samples of counters
// and gauges, with duplicate keys, shared slots of several holders, a
// denominator missing, a key a gauge in one sample and a counter in the
// next, names in strings of their own, Layouts given and not, and a reset
// now and then: each sample's values are the reference's against the
// sample before.
func TestDeriverIsTheReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	names := []string{GPUEnergy, GPUPower, GPUUtil, GPUTemp, HostCPUBusySecs, HostCPUTotSecs, HostCPU,
		CoreBusySecs, CoreTotalSecs, CoreBusy, GPUPCIeTxBytes, GPUPCIeTx, "unknown_metric"}
	devices := []string{"gpu0", "gpu1", HostDevice, CoreDevice(0), CoreDevice(1)}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	// A few layouts, each sample one of them with random readings: the
	// Deriver keeps plans, and counters find their readings before.
	var layouts [][]Metric
	for range 8 {
		var ms []Metric
		for range r.IntN(30) {
			// A name in bytes of its own now and then: the memo of names
			// must not take it for another.
			name := names[r.IntN(len(names))]
			if r.IntN(4) == 0 {
				name = fmt.Sprint(name)
			}
			kind := Gauge
			if r.IntN(2) == 0 {
				kind = Counter
			}
			ms = append(ms, Metric{Key: Key{name, devices[r.IntN(len(devices))]}, Kind: kind})
		}
		layouts = append(layouts, ms)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for run := range 40 {
		var d Deriver
		var prev *Sample
		for n := range 200 {
			l := r.IntN(len(layouts))
			at = at.Add(time.Duration(1+r.IntN(8000)) * time.Millisecond)
			cur := new(Sample{At: at}.WithMetrics(append([]Metric(nil), layouts[l]...)))
			for i := range cur.Metrics() {
				cur.Values[i] = float64(n*10 + r.IntN(30))
				if r.IntN(20) == 0 {
					cur.Values[i] = math.NaN()
				}
			}
			if r.IntN(50) == 0 {
				d.Reset()
				prev = nil
			}
			got := valuesOf(&d, cur)
			want := referenceDerive(cur, prev)
			if len(got) != len(want) {
				t.Fatalf("run %d, sample %d: %d values, want %d", run, n, len(got), len(want))
			}
			for i := range want {
				if got[i].Key != want[i].Key || !same(got[i].Value, want[i].Value) {
					t.Fatalf("run %d, sample %d, value %d: %v, want %v", run, n, i, got[i], want[i])
				}
			}
			prev = cur
		}
	}
}

// Reset forgets the samples before, so the next one starts afresh (after a
// seek, say).
func (d *Deriver) Reset() { d.n, d.hasPrev = d.n+1, false }
