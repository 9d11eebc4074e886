package timeline

import "sync"

// SeriesID numbers one display series of a Schema, and so of the Store
// that files by it: looked up once by its key (Store.ID), then read by
// place (Moment.Value). A schema only ever adds series, so an id stays its
// series' for the session; a key a store does not have yet is worth
// asking again once Store.Keys has grown.
type SeriesID int

// Schema is a session's catalogue of display series: each key is given
// an id once, the first time a Deriver plans for it, and the id names that
// key for the rest of the session. What the pipeline's Deriver makes
// travels by id (Derived.IDs), so a Store files each value at its id
// without reading keys, as a Prometheus appender appends by a series'
// reference. It is safe for concurrent use: the Judge registers on the
// source's goroutine while the screen's store reads on its own.
type Schema struct {
	mu    sync.RWMutex
	index map[Key]SeriesID
	keys  []Key
}

// Register returns k's id, giving it the next one on first sight.
func (s *Schema) Register(k Key) SeriesID {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.index[k]; ok {
		return id
	}
	if s.index == nil {
		s.index = map[Key]SeriesID{}
	}
	id := SeriesID(len(s.keys))
	s.index[k] = id
	s.keys = append(s.keys, k)
	return id
}

// Lookup returns k's id, if it has one.
func (s *Schema) Lookup(k Key) (SeriesID, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.index[k]
	return id, ok
}

// Len is how many series the schema has.
func (s *Schema) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.keys)
}

// AppendKeys appends the keys of ids from up to to dst.
func (s *Schema) AppendKeys(dst []Key, from, to SeriesID) []Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append(dst, s.keys[from:to]...)
}

// Key is the key of id, which s gave.
func (s *Schema) Key(id SeriesID) Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys[id]
}

// KeysOf appends the keys of ids to dst.
func (s *Schema) KeysOf(dst []Key, ids []SeriesID) []Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, id := range ids {
		dst = append(dst, s.keys[id])
	}
	return dst
}
