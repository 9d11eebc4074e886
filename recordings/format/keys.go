package format

import "github.com/gputop-dev/gputop/timeline"

// KeyCount is how many keys the segment being decoded has defined so far:
// a reader that bounds a file's keys in all looks at those past the count
// it last saw (KeyAt), not at every metric of every sample.
func (d *Decoder) KeyCount() int { return len(d.keys) }

// KeyAt is the segment's key number i.
func (d *Decoder) KeyAt(i int) timeline.Key { return d.keys[i].key }
