package timeline

import "sync"

// SeriesID names one display series of a Schema for the whole session,
// and so of a Store that files by it (Store.ID, Moment.Value); a key a
// store lacks is worth asking again once Store.Keys has grown.
type SeriesID int

// Schema is a session's catalogue of display series, append-only: a key
// gets its id when a Deriver first plans for it, and values travel by id
// (Derived.IDs), as a Prometheus appender appends by a series' reference.
// The Judge registers on the source's goroutine while the screen's store
// reads on its own.
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

// Key is the key of id, which s gave.
func (s *Schema) Key(id SeriesID) Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys[id]
}
