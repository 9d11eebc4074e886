package timeline

import (
	"math"
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
		smp := Sample{At: t0.Add(time.Duration(i) * time.Second), Metrics: []Metric{g(GPUUtil, "gpu0", float64(i))}}
		if i < 300 && i%37 == 0 || i == 570 {
			smp.Metrics = append(smp.Metrics, g(GPUUtil, "gpu1", float64(1000+i)))
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
