package timeline

// storeLayout is where one layout of derived values goes: each value's
// series id, by the values' keys.
type storeLayout struct {
	// of is the values' Derived.Layout (0: not known): values with the
	// same one have keys.
	of   uint64
	keys []Key
	ids  []int
}

// keptLayouts is how many layouts a Store keeps besides the last one: a
// host of 64 that misses a tick brings a layout without it, and the one
// with it comes back the tick after (the merge gives the same hosts the
// same Layout again, remembering 4), where the store looked each of 36,736
// keys up again both times.
const keptLayouts = 4

// ids maps derived values to series ids, creating series on first sight.
// Values of the layout (Derived.Layout) of the last ones, or of one of the
// few before, have their keys.
func (s *Store) ids(values []Value, layout uint64) []int {
	if layout != 0 && layout == s.layout.of && len(values) == len(s.layout.keys) {
		return s.layout.ids
	}
	if layout != 0 {
		for i := range s.recent {
			if r := &s.recent[i]; r.of == layout && len(values) == len(r.keys) {
				s.layout, *r = *r, s.layout
				return s.layout.ids
			}
		}
	}
	// The Deriver's plan for the tick after a host's return has a Layout
	// of its own, with the keys of the one before the absence.
	fits := s.layout.fits(values)
	for i := 0; !fits && i < len(s.recent); i++ {
		if fits = s.recent[i].fits(values); fits {
			s.layout, s.recent[i] = s.recent[i], s.layout
		}
	}
	if fits {
		s.layout.of = layout
		return s.layout.ids
	}
	s.keepLayout()
	// The raw tier is fitted to the budget once for all the series this
	// layout brings: fitted once per series, a first sample of 533 series
	// moved every column at each one past the budget (17 GB allocated for
	// a day of 8 GPUs). Fitting to fewer samples in steps keeps what one
	// fit to the last step keeps.
	if s.rawValues > 0 {
		var fresh map[Key]bool
		for _, v := range values {
			if _, ok := s.index[v.Key]; !ok {
				if fresh == nil {
					fresh = map[Key]bool{}
				}
				fresh[v.Key] = true
			}
		}
		if len(fresh) > 0 {
			s.raw.fit(max(1, s.rawValues/(len(s.keys)+len(fresh))))
		}
	}
	l := &s.layout
	l.of = layout
	l.keys = l.keys[:0]
	l.ids = l.ids[:0]
	for _, v := range values {
		id, ok := s.index[v.Key]
		if !ok {
			id = s.addSeries(v.Key)
		}
		l.keys = append(l.keys, v.Key)
		l.ids = append(l.ids, id)
	}
	return l.ids
}

// fits says whether values have l's keys, in order. Equal keys in strings
// of their own (a reader's next segment) are taken, so that the next
// sample compares pointers (as sameLayout does).
func (l *storeLayout) fits(values []Value) bool {
	if len(values) != len(l.keys) {
		return false
	}
	for i := range values {
		if k := values[i].Key; !sameStrings(k, l.keys[i]) {
			if k != l.keys[i] {
				return false
			}
			l.keys[i] = k
		}
	}
	return true
}

// keepLayout keeps the last layout among the recent ones, where a Layout
// can find it again, before a new one takes its place. The new one gets
// the slices of the oldest kept (or none). Series ids never change, so a
// kept layout stays true.
func (s *Store) keepLayout() {
	if s.layout.of == 0 {
		return
	}
	var oldest storeLayout
	if len(s.recent) < keptLayouts {
		s.recent = append(s.recent, storeLayout{})
	} else {
		oldest = s.recent[len(s.recent)-1]
	}
	copy(s.recent[1:], s.recent)
	s.recent[0] = s.layout
	s.layout = storeLayout{keys: oldest.keys[:0], ids: oldest.ids[:0]}
}
