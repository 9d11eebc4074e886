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
	lo := r.Search(f)
	for i := r.Search(t+1) - 1; i >= lo; i-- {
		if v := float64(r.Value(id, r.Phys(i))); !math.IsNaN(v) {
			return v
		}
	}
	oldest := r.Oldest()
	if f >= oldest {
		return math.NaN()
	}
	// Older than the raw tier: the buckets EachAt reads, their means.
	b := s.tiers[s.olderTier(f)]
	lo = b.Search(f)
	hi := lo + sort.Search(b.Len()-lo, func(j int) bool { at := b.Time(lo + j); return at >= oldest || at > t })
	for i := hi - 1; i >= lo; i-- {
		if v := b.At(id, b.Phys(i)).Mean(); !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}
