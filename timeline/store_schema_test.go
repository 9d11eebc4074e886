package timeline

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// derivedIn is values as a Deriver with schema would hand them on.
func derivedIn(schema *Schema, values []Value) *Derived {
	d := &Derived{Schema: schema}
	for _, v := range values {
		d.IDs = append(d.IDs, schema.Register(v.Key))
		d.Numbers = append(d.Numbers, v.Value)
	}
	return d
}

// Values filed by id land in their series whichever list of keys brought
// them (a host missing a tick, then back), and so do those of samples
// derived under another schema than the first one's.
func TestStoreFilesBySchemaIDs(t *testing.T) {
	s := NewStore(StoreOptions{})
	var keys []Key
	for _, d := range []string{"gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6"} {
		keys = append(keys, Key{GPUUtil, d})
	}
	// Layout 0 has every key; layout l>0 all but keys[l-1], and comes
	// under a schema of its own where l is odd.
	values := func(l, tick int) []Value {
		var vs []Value
		for i, k := range keys {
			if l == 0 || i != l-1 {
				vs = append(vs, Value{Key: k, Value: float64(tick*10 + i)})
			}
		}
		return vs
	}
	pipeline, other := &Schema{}, &Schema{}
	other.Register(Key{GPUTemp, "gpu9"}) // its ids are not the pipeline's
	for tick, l := range []int{0, 1, 0, 2, 0, 1, 0, 3, 4, 5, 6, 7, 0, 7, 6, 0} {
		at := t0.Add(time.Duration(tick) * time.Second)
		schema := pipeline
		if l%2 == 1 {
			schema = other
		}
		if !s.Add(&Sample{At: at, Derived: derivedIn(schema, values(l, tick))}) {
			t.Fatalf("tick %d not added", tick)
		}
		for i, k := range keys {
			want := float64(tick*10 + i)
			if l > 0 && i == l-1 {
				want = math.NaN()
			}
			if got := s.ValueAt(k, at); !same([]float64{got}, []float64{want}) {
				t.Fatalf("tick %d (layout %d): %v = %v, want %v", tick, l, k, got, want)
			}
		}
	}
	if got := len(s.Keys()); got != len(keys) {
		t.Errorf("%d series, want %d", got, len(keys))
	}
}

// BenchmarkStoreAbsence64Hosts is the store's share of a host missing a
// tick in a session of 64 hosts of 574 values each (36,736), a different
// host each time: the tick without it, the tick it is back, and the tick
// after.
func BenchmarkStoreAbsence64Hosts(b *testing.B) {
	const hosts, perHost = 64, 574
	schema := &Schema{}
	var all []Value
	for h := range hosts {
		for i := range perHost {
			all = append(all, Value{Key: Key{fmt.Sprintf("m%d", i), fmt.Sprintf("gpu%d", h)}, Value: 1})
		}
	}
	full := derivedIn(schema, all)
	without := make([]*Derived, hosts)
	for h := range hosts {
		without[h] = derivedIn(schema, append(append([]Value(nil), all[:h*perHost]...), all[(h+1)*perHost:]...))
	}
	s := NewStore(StoreOptions{RawSamples: 60})
	at := t0
	add := func(d *Derived) {
		at = at.Add(time.Second)
		s.Add(&Sample{At: at, Derived: d})
	}
	add(full)
	b.ReportAllocs()
	h := 0
	for b.Loop() {
		add(without[h%hosts])
		add(full)
		add(full)
		h++
	}
}
