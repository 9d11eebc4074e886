package tiers

import (
	"math"
	"testing"
)

// The coarsest tier, full, merges its buckets and doubles their width
// rather than drop any: every value filed is still counted, from the
// first.
func TestBucketCompactionKeepsEverything(t *testing.T) {
	b := NewBucket(10, 4, true)
	b.AddSeries()
	for i := int64(0); i < 200; i++ {
		b.File(i, []uint32{math.Float32bits(1)})
	}
	if b.Len() > 4 {
		t.Fatalf("%d buckets, capacity 4", b.Len())
	}
	var n uint32
	for i := 0; i < b.Len(); i++ {
		n += b.At(0, b.Phys(i)).N
	}
	if n != 200 || b.Time(0) != 0 {
		t.Fatalf("after compaction: %d values from %d, want 200 from 0 (width %d)", n, b.Time(0), b.Width)
	}
}
