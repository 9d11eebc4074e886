package timeline

import (
	"math"
	"time"
)

// LastAt is the last value that is a number among those EachAt gives of key
// from `from` to `to`, NaN if none: a count's last reading (errors, retired
// pages) without reading a day of it. It reads from `to` back, so it stops
// at the first number it meets.
func (s *Store) LastAt(key Key, from, to time.Time) float64 {
	id, ok := s.ID(key)
	if !ok || s.added == 0 {
		return math.NaN()
	}
	b, blo, bhi, lo, hi := s.within(from.UnixNano(), to.UnixNano())
	r := &s.raw
	for i := hi - 1; i >= lo; i-- {
		if v := float64(r.Value(int(id), r.Phys(i))); !math.IsNaN(v) {
			return v
		}
	}
	for i := bhi - 1; i >= blo; i-- {
		if v := b.At(int(id), b.Phys(i)).Mean(); !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}
