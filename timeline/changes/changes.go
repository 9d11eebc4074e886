package changes

import (
	"slices"
	"sort"
)

// Log is a list as it changed: each entry the time a new list began.
// Its zero value is empty.
type Log[T comparable] struct {
	at   []int64
	vals [][]T
}

// MaxChanges bounds the log; past it, the oldest quarter goes. A list
// that changes every process tick (5 s) for a day is 17,280 entries: a
// churning cluster keeps hours of them, a quiet one its whole session.
const MaxChanges = 4096

// Add notes v read at time at (after every earlier Add). A nil v is no
// reading (the source could not say this time): the last list still
// holds. An empty one is a reading of nothing. v is copied only where it
// differs from the last list, so a caller may reuse its slice.
func (l *Log[T]) Add(at int64, v []T) {
	if v == nil {
		return
	}
	if n := len(l.vals); n > 0 && slices.Equal(l.vals[n-1], v) {
		return
	}
	if len(l.at) >= MaxChanges {
		drop := len(l.at) / 4
		l.at = append(l.at[:0], l.at[drop:]...)
		l.vals = append(l.vals[:0], l.vals[drop:]...)
	}
	l.at = append(l.at, at)
	l.vals = append(l.vals, append(make([]T, 0, len(v)), v...))
}

// At is the list read last at or before t: nil where none had been (or
// it was dropped), empty where the reading was of nothing. The slice is
// the log's.
func (l *Log[T]) At(t int64) []T {
	i := sort.Search(len(l.at), func(i int) bool { return l.at[i] > t })
	if i == 0 {
		return nil
	}
	return l.vals[i-1]
}
