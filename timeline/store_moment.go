package timeline

import (
	"math"
	"time"
)

// NoSeries is the id of a series a store does not have: its values are NaN.
const NoSeries SeriesID = -1

// ID is key's series id in s; NoSeries and false if s has no such series
// (yet).
func (s *Store) ID(key Key) (SeriesID, bool) {
	if s.schema != nil {
		if id, ok := s.schema.Lookup(key); ok && int(id) < len(s.keys) {
			return id, true
		}
	}
	return NoSeries, false
}

// Moment is where a Store keeps its values current at one time, found once
// for every series read at it: a screen reads 1,536 values of 64 hosts at
// its cursor, and ValueAt searched the samples' times and hashed a key for
// each. It holds until the store's next Add.
type Moment struct {
	s *Store
	// tier is the raw tier (-1), a bucket tier's index, or none (-2: every
	// value NaN); p the physical index of the sample or bucket there.
	tier, p int
}

// MomentAt is s's moment at `at`: the latest sample at or before it,
// unless that is older than the hold (a gap); where raw samples are gone,
// the bucket that holds it.
func (s *Store) MomentAt(at time.Time) Moment {
	none := Moment{s: s, tier: -2}
	if s.added == 0 {
		return none
	}
	t := at.UnixNano()
	r := &s.raw
	if r.Len() > 0 && r.Oldest() <= t {
		i := r.Search(t + 1)
		if i == 0 || r.Time(i-1)+s.rawHold() < t {
			return none
		}
		return Moment{s: s, tier: -1, p: r.Phys(i - 1)}
	}
	if src := s.fineFor(t, t); src != nil && src != s {
		return src.MomentAt(at)
	}
	k := s.olderTier(t)
	b := s.tiers[k]
	i := b.Search(t + 1)
	if i == 0 || b.Time(i-1)+b.Width*2 < t {
		return none
	}
	return Moment{s: s, tier: k, p: b.Phys(i - 1)}
}

// Value is series id's value at the moment: NaN in a gap or for NoSeries,
// a bucket's mean where raw samples are gone.
func (m Moment) Value(id SeriesID) float64 {
	switch {
	case id < 0:
		return math.NaN()
	case m.tier == -1:
		return float64(m.s.raw.Value(int(id), m.p))
	case m.tier >= 0:
		return m.s.tiers[m.tier].At(int(id), m.p).Mean()
	}
	return math.NaN()
}

// ValueAt is key's value current at t: the latest sample at or before t,
// unless it is older than the hold (then NaN: a gap). Where raw samples are
// gone, it is the mean of the bucket that holds t. Reading many series at
// one time, MomentAt and ID find the time and the series once.
func (s *Store) ValueAt(key Key, at time.Time) float64 {
	id, ok := s.ID(key)
	if !ok {
		return math.NaN()
	}
	return s.MomentAt(at).Value(id)
}
