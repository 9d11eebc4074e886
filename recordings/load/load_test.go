package load

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// The store's copy of what the Engine derived: the keys where the slot
// holds values of another layout, and the numbers as float32 always.
func TestCopyDerivedKeepsKeysOfTheSameLayout(t *testing.T) {
	util, temp := timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, timeline.Key{Name: timeline.GPUTemp, Device: "gpu0"}
	a, b := timeline.NewLayout(), timeline.NewLayout()
	var slot timeline.Derived
	var vals []float32
	for i, src := range []timeline.Derived{
		{Layout: a, Values: []timeline.Value{{Key: util, Value: 1}}},
		{Layout: a, Values: []timeline.Value{{Key: util, Value: 2.5}}},
		{Layout: b, Values: []timeline.Value{{Key: temp, Value: 60}, {Key: util, Value: 3}}},
		{Layout: 0, Values: []timeline.Value{{Key: util, Value: 4}, {Key: temp, Value: 61}}},
		{Layout: 0, Values: []timeline.Value{{Key: temp, Value: 62}, {Key: util, Value: 5}}},
	} {
		vals = copyDerived(&slot, vals, &src)
		if slot.Layout != src.Layout || len(slot.Values) != len(src.Values) || len(vals) != len(src.Values) {
			t.Fatalf("copy %d: layout %d, %d values, %d numbers; want %d, %d", i, slot.Layout, len(slot.Values), len(vals), src.Layout, len(src.Values))
		}
		for j := range src.Values {
			if slot.Values[j].Key != src.Values[j].Key || vals[j] != float32(src.Values[j].Value) {
				t.Errorf("copy %d: value %d is %v %v, want %v", i, j, slot.Values[j].Key, vals[j], src.Values[j])
			}
		}
		src.Values[0].Value = -1 // the Engine's next sample: the copy keeps its own
		if vals[0] == -1 {
			t.Errorf("copy %d shares the Engine's values", i)
		}
	}
}
