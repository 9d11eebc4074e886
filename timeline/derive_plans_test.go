package timeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// referencePlan is makePlan as it was before it was made quick for 37,000
// keys (maps of every key, every earlier step read for a shared slot): the
// plans must not differ but in the prevAt of steps that never read it.
// A counter's value and its denominator are looked up among counters only:
// a gauge of the same key (a gap of a file of earlier builds) is not one.
func referencePlan(cur, prev *Sample) []step {
	curAt, prevAt := map[Key]int{}, map[Key]int{}
	for i := range cur.Metrics {
		if cur.Metrics[i].Kind == Counter {
			curAt[cur.Metrics[i].Key] = i
		}
	}
	if prev != nil {
		for i := range prev.Metrics {
			if prev.Metrics[i].Kind == Counter {
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
	slots := map[Key]int32{}
	plan := make([]step, len(cur.Metrics))
	for i, m := range cur.Metrics {
		st := step{slot: -1, prevAt: find(prevAt, m.Key), perCur: -1, perPrev: -1}
		out := m.Key
		valid, _ := RangeOf(m.Key.Name)
		if m.Kind == Counter {
			rule, ok := counterRules[m.Key.Name]
			if !ok {
				plan[i] = st
				continue
			}
			st.counter, st.scale, st.out, st.trustAfter = true, rule.scale, rule.out, rule.trustAfter
			valid, _ = RangeOf(rule.out)
			out = Key{Name: rule.out, Device: m.Key.Device}
			if rule.per != "" {
				per := Key{Name: rule.per, Device: m.Key.Device}
				st.perCur, st.perPrev = find(curAt, per), find(prevAt, per)
				if st.perCur < 0 {
					plan[i] = step{slot: -1}
					continue
				}
			}
		}
		st.lo, st.hi = valid.Min-slack(valid.Min), valid.Max+slack(valid.Max)
		if slot, ok := slots[out]; ok {
			st.slot, st.override = slot, true
			for j := 0; j < i; j++ {
				if plan[j].slot == slot {
					plan[j].override = true
					st.trustAfter = max(st.trustAfter, plan[j].trustAfter)
					plan[j].trustAfter = st.trustAfter
				}
			}
		} else {
			st.slot = int32(len(slots))
			slots[out] = st.slot
		}
		plan[i] = st
	}
	return plan
}

// TestPlansAreTheReferences makes plans for random samples of counters and
// gauges, with duplicate keys, shared slots of several holders, a
// denominator missing, a key a gauge in one sample and a counter in the
// next, and names in strings of their own: each step is the reference's.
func TestPlansAreTheReferences(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	names := []string{GPUEnergy, GPUPower, GPUUtil, GPUTemp, HostCPUBusySecs, HostCPUTotSecs, HostCPU,
		CoreBusySecs, CoreTotalSecs, CoreBusy, GPUPCIeTxBytes, GPUPCIeTx, "unknown_metric"}
	devices := []string{"gpu0", "gpu1", HostDevice, CoreDevice(0), CoreDevice(1)}
	random := func() *Sample {
		s := &Sample{}
		for range r.IntN(40) {
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
			s.Metrics = append(s.Metrics, Metric{Key: Key{name, devices[r.IntN(len(devices))]}, Kind: kind, Value: 1})
		}
		return s
	}
	for n := range 3000 {
		cur, prev := random(), random()
		if n%10 == 0 {
			prev = nil
		}
		var d Deriver
		d.makePlan(cur, prev)
		want := referencePlan(cur, prev)
		for i := range want {
			got := d.plan[i]
			if !isRated(cur.Metrics[i].Key.Name) {
				got.prevAt = want[i].prevAt // never read: a gauge's, or a counter's without a rule
			}
			if got != want[i] {
				t.Fatalf("case %d, step %d (%v): %+v, want %+v", n, i, cur.Metrics[i].Key, got, want[i])
			}
		}
	}
}
