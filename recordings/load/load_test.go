package load

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// The store's copy of what the Engine derived: the series shared, the
// numbers as float32 of its own, whatever the Engine's next sample
// writes.
func TestCopyDerivedOwnsItsNumbers(t *testing.T) {
	schema := &timeline.Schema{}
	ids := []timeline.SeriesID{schema.Register(timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}),
		schema.Register(timeline.Key{Name: timeline.GPUTemp, Device: "gpu0"})}
	var slot timeline.Derived
	var vals []float32
	for i, nums := range [][]float64{{1, 60}, {2.5, 61}, {3, 62}} {
		src := timeline.Derived{Schema: schema, IDs: ids, Numbers: nums}
		vals = copyDerived(&slot, vals, &src)
		if slot.Schema != schema || &slot.IDs[0] != &ids[0] || len(vals) != 2 || vals[0] != float32(nums[0]) || vals[1] != float32(nums[1]) {
			t.Fatalf("copy %d: %+v, numbers %v; want the series shared and %v", i, slot, vals, nums)
		}
		nums[0] = -1 // the Engine's next sample: the copy keeps its own
		if vals[0] == -1 {
			t.Errorf("copy %d shares the Engine's numbers", i)
		}
	}
}
