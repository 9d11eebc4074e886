package timeline

import (
	"math"
	"testing"
	"time"
)

// A series id looked up once reads the same values as its key, after
// series have come and gone around it; a key the store lacks reads NaN.
func TestMomentReadsByID(t *testing.T) {
	s := NewStore(StoreOptions{RawSamples: 50})
	util1 := Key{GPUUtil, "gpu1"}
	for i := range 200 {
		ms := []Metric{g(GPUUtil, "gpu0", float64(i%90))}
		if i >= 120 && i%3 != 0 { // gpu1 comes late and misses ticks
			ms = append(ms, g(GPUUtil, "gpu1", float64(i%70)))
		}
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(ms)))
	}
	id0, ok0 := s.ID(util0)
	id1, ok1 := s.ID(util1)
	if !ok0 || !ok1 {
		t.Fatalf("ID: %v %v", ok0, ok1)
	}
	if id, ok := s.ID(Key{GPUUtil, "gpu9"}); ok || id != NoSeries {
		t.Fatalf("ID of a missing key = %v, %v", id, ok)
	}
	// Before the first sample, in the buckets (raw keeps the last 50), in
	// the raw tier, and past the hold.
	for sec := -5.0; sec < 210; sec += 0.5 {
		at := t0.Add(time.Duration(sec * float64(time.Second)))
		mo := s.MomentAt(at)
		for _, c := range []struct {
			key Key
			id  SeriesID
		}{{util0, id0}, {util1, id1}} {
			if got, want := mo.Value(c.id), s.ValueAt(c.key, at); !same([]float64{got}, []float64{want}) {
				t.Fatalf("%v at %vs: by id %v, by key %v", c.key, sec, got, want)
			}
		}
		if v := mo.Value(NoSeries); !math.IsNaN(v) {
			t.Fatalf("NoSeries at %vs = %v", sec, v)
		}
	}
	if v := s.MomentAt(t0.Add(199 * time.Second)).Value(id0); v != 199%90 {
		t.Fatalf("newest by id = %v", v)
	}
}
