package timeline

import (
	"math"
	"slices"
	"testing"
	"time"
)

// LastAt is the last number Each gives, for every stretch: in the raw
// samples, in the buckets before them, and across both, of a series that
// is absent from most samples (its gaps are NaN).
func TestLastAtIsEachsLastNumber(t *testing.T) {
	s := NewStore(StoreOptions{RawSamples: 60})
	sparse := Key{Name: GPUUtil, Device: "gpu1"}
	for i := range 600 {
		smp := Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", float64(i))})
		if i < 300 && i%37 == 0 || i == 570 {
			smp.SetMetrics(append(smp.Metrics(), g(GPUUtil, "gpu1", float64(1000+i))))
		}
		s.Add(&smp)
	}
	for _, k := range []Key{util0, sparse, {Name: GPUUtil, Device: "gpu9"}} {
		for from := -5; from < 610; from += 7 {
			for to := from; to < 615; to += 11 {
				f, e := t0.Add(time.Duration(from)*time.Second), t0.Add(time.Duration(to)*time.Second)
				want := math.NaN()
				s.Each(k, f, e, func(_ time.Time, v float64) bool {
					if !math.IsNaN(v) {
						want = v
					}
					return true
				})
				if got := s.LastAt(k, f, e); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("%v from %d s to %d s: LastAt %v, Each's last %v", k, from, to, got, want)
				}
			}
		}
	}
}

// AddFloat32 files what Add files of the same derived samples, the
// numbers given as float32 beside values whose own numbers are stale.
func TestAddFloat32FilesAsAdd(t *testing.T) {
	a, b := NewStore(StoreOptions{RawSamples: 60}), NewStore(StoreOptions{RawSamples: 60})
	schema := &Schema{}
	stale := derivedIn(schema, []Value{{Key: util0, Value: -1}, {Key: Key{Name: GPUPower, Device: "gpu0"}, Value: -1}})
	for i := range 300 {
		at := t0.Add(time.Duration(i) * time.Second)
		vals := []Value{{Key: util0, Value: float64(i % 7)}, {Key: Key{Name: GPUPower, Device: "gpu0"}, Value: 100.25 + float64(i)}}
		a.Add(&Sample{At: at, Derived: derivedIn(schema, vals)})
		b.AddFloat32(&Sample{At: at, Derived: stale}, []float32{float32(i % 7), float32(100.25 + float64(i))})
	}
	for _, k := range a.Keys() {
		x, y := make([]Agg, 37), make([]Agg, 37)
		a.Series(k, a.First(), a.Last(), x)
		b.Series(k, b.First(), b.Last(), y)
		if !slices.Equal(x, y) {
			t.Errorf("%v: AddFloat32 filed %v, Add %v", k, y, x)
		}
	}
}
