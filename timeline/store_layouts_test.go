package timeline

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// A layout that comes back (a host missed a tick, then answered) finds its
// series ids kept, not looked up again; every value lands in its series
// whichever layout brought it: the last, a kept one, an evicted one.
func TestStoreKeepsRecentLayouts(t *testing.T) {
	s := NewStore(StoreOptions{})
	var keys []Key
	for _, d := range []string{"gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6"} {
		keys = append(keys, Key{GPUUtil, d})
	}
	// Layout 0 has every key; layout l>0 all but keys[l-1].
	var layouts [8]uint64
	for i := range layouts {
		layouts[i] = NewLayout()
	}
	values := func(l, tick int) []Value {
		var vs []Value
		for i, k := range keys {
			if l == 0 || i != l-1 {
				vs = append(vs, Value{Key: k, Value: float64(tick*10 + i)})
			}
		}
		return vs
	}
	var ids0 *int // where layout 0's ids are kept
	// Layout 0 and another in turn; then five others in a row, which
	// evict layout 0 (4 kept besides the last).
	order := []int{0, 1, 0, 2, 0, 1, 0, 3, 4, 5, 6, 7, 0, 7, 6, 0}
	for tick, l := range order {
		at := t0.Add(time.Duration(tick) * time.Second)
		if !s.Add(&Sample{At: at, Derived: &Derived{Values: values(l, tick), Layout: layouts[l]}}) {
			t.Fatalf("tick %d not added", tick)
		}
		if l == 0 {
			if kept := &s.layout.ids[0]; tick > 0 && tick != 12 && kept != ids0 {
				t.Errorf("tick %d: layout 0's ids were made again", tick)
			} else {
				ids0 = kept
			}
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
	if len(s.recent) != keptLayouts {
		t.Errorf("%d layouts kept, want %d", len(s.recent), keptLayouts)
	}
}

// BenchmarkStoreAbsence64Hosts is the store's share of a host missing a
// tick in a session of 64 hosts of 574 values each (36,736), a different
// host each time: the tick without it, the tick it is back (the Deriver's
// plan for it has a Layout of its own, the keys of every host), and the
// tick after.
func BenchmarkStoreAbsence64Hosts(b *testing.B) {
	const hosts, perHost = 64, 574
	all := make([]Value, 0, hosts*perHost)
	for h := range hosts {
		for i := range perHost {
			all = append(all, Value{Key: Key{fmt.Sprintf("m%d", i), fmt.Sprintf("gpu%d", h)}, Value: 1})
		}
	}
	full := NewLayout()
	without := make([][]Value, hosts)
	withoutLayout, backLayout := make([]uint64, hosts), make([]uint64, hosts)
	for h := range hosts {
		without[h] = append(append([]Value(nil), all[:h*perHost]...), all[(h+1)*perHost:]...)
		withoutLayout[h], backLayout[h] = NewLayout(), NewLayout()
	}
	s := NewStore(StoreOptions{RawSamples: 60})
	at := t0
	add := func(vs []Value, l uint64) {
		at = at.Add(time.Second)
		s.Add(&Sample{At: at, Derived: &Derived{Values: vs, Layout: l}})
	}
	add(all, full)
	b.ReportAllocs()
	h := 0
	for b.Loop() {
		add(without[h%hosts], withoutLayout[h%hosts])
		add(all, backLayout[h%hosts])
		add(all, full)
		h++
	}
}
