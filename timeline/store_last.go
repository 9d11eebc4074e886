package timeline

import (
	"math"
	"sort"
	"time"
)

// LastAt is the last value that is a number among those EachAt gives of key
// from `from` to `to`, NaN if none: a count's last reading (errors, retired
// pages) without reading a day of it. It reads from `to` back, so it stops
// at the first number it meets.
func (s *Store) LastAt(key Key, from, to time.Time) float64 {
	id, ok := s.idOf(key)
	if !ok || s.added == 0 {
		return math.NaN()
	}
	f, t := from.UnixNano(), to.UnixNano()
	r := &s.raw
	lo := r.search(f)
	for i := r.search(t+1) - 1; i >= lo; i-- {
		if v := float64(r.value(id, r.phys(i))); !math.IsNaN(v) {
			return v
		}
	}
	oldest := r.oldest()
	if f >= oldest {
		return math.NaN()
	}
	// Older than the raw tier: the buckets EachAt reads, their means.
	b := s.tiers[len(s.tiers)-1]
	for _, tier := range s.tiers {
		if tier.oldest() <= f {
			b = tier
			break
		}
	}
	lo = b.search(f)
	hi := lo + sort.Search(b.len()-lo, func(j int) bool { at := b.start(lo + j); return at >= oldest || at > t })
	for i := hi - 1; i >= lo; i-- {
		a := b.at(id, b.phys(i))
		if a.n == 0 {
			continue
		}
		if v := float64(a.sum) / float64(a.n); !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}
