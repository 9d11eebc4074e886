package timeline

import "slices"

// Columns are the keys and kinds of a sample's values, position by
// position. A source makes them once for each list of keys it gives, and
// every sample of that list shares them, as a recording's samples share
// their segment's layout: a value is 8 bytes in memory, not a key's 40
// more, and a stage that planned for a sample's columns (a Deriver, the
// merge of hosts, a recording's encoder) knows the next sample's by one
// pointer check. Never written once made.
type Columns struct {
	keys  []Key
	kinds []Kind
}

// NewColumns are columns of keys and kinds, which must be as long; the
// columns keep both, which the caller must not write again.
func NewColumns(keys []Key, kinds []Kind) *Columns {
	if len(keys) != len(kinds) {
		panic("timeline: columns of unequal keys and kinds")
	}
	return &Columns{keys: keys, kinds: kinds}
}

// ColumnsOf are columns of the keys and kinds of ms.
func ColumnsOf(ms []Metric) *Columns {
	c := &Columns{keys: make([]Key, len(ms)), kinds: make([]Kind, len(ms))}
	for i := range ms {
		c.keys[i], c.kinds[i] = ms[i].Key, ms[i].Kind
	}
	return c
}

// Len is how many columns c has; none for nil.
func (c *Columns) Len() int {
	if c == nil {
		return 0
	}
	return len(c.keys)
}

// Key is the key of column i.
func (c *Columns) Key(i int) Key { return c.keys[i] }

// Kind is the kind of column i.
func (c *Columns) Kind(i int) Kind { return c.kinds[i] }

// Keys are the columns' keys, shared: never to be written.
func (c *Columns) Keys() []Key {
	if c == nil {
		return nil
	}
	return c.keys
}

// Kinds are the columns' kinds, shared: never to be written.
func (c *Columns) Kinds() []Kind {
	if c == nil {
		return nil
	}
	return c.kinds
}

// Index is the column of k, or -1.
func (c *Columns) Index(k Key) int { return slices.Index(c.Keys(), k) }

// Match says whether ms have c's keys and kinds, in c's order.
func (c *Columns) Match(ms []Metric) bool {
	if c.Len() != len(ms) {
		return false
	}
	for i := range ms {
		if c.kinds[i] != ms[i].Kind || c.keys[i] != ms[i].Key {
			return false
		}
	}
	return true
}

// Same says whether c and o have the same keys and kinds in the same
// order: the same columns, or two a source made for the same list.
func (c *Columns) Same(o *Columns) bool {
	return c == o || slices.Equal(c.Keys(), o.Keys()) && slices.Equal(c.Kinds(), o.Kinds())
}

// Select are the columns of c that rename keeps, as it renames them, and
// the positions of those kept, nil where it keeps all: a host's columns
// as the session of several names them, or a file's within its bounds.
func (c *Columns) Select(rename func(Key) (Key, bool)) (*Columns, []int) {
	var keys []Key
	var kinds []Kind
	kept := []int{} // none kept is not nil, which is all
	for i, k := range c.Keys() {
		if k, ok := rename(k); ok {
			keys, kinds, kept = append(keys, k), append(kinds, c.kinds[i]), append(kept, i)
		}
	}
	if len(kept) == c.Len() {
		kept = nil
	}
	return NewColumns(keys, kinds), kept
}

// AppendKept appends to dst the values at the positions kept, all of them
// where kept is nil (Select). dst may be values[:0].
func AppendKept(dst, values []float64, kept []int) []float64 {
	if kept == nil {
		return append(dst, values...)
	}
	for _, i := range kept {
		dst = append(dst, values[i])
	}
	return dst
}
