package timeline

import (
	"math"
	"slices"
	"testing"
)

func TestLinkIDs(t *testing.T) {
	eighteen := make([]int, 18)
	for i := range eighteen {
		eighteen[i] = i
	}
	for _, tc := range []struct {
		mask float64
		want []int
	}{
		{math.NaN(), nil},
		{math.Inf(1), nil},
		{-1, nil},
		{0, []int{}},
		{0b101, []int{0, 2}},
		{1<<18 - 1, eighteen},
		{1 << 35, []int{35}},
		{1 << 40, []int{}}, // beyond the links NVML can name
	} {
		if got := LinkIDs(tc.mask); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("LinkIDs(%v) = %v, want %v", tc.mask, got, tc.want)
		}
	}
}

// Each link's names are registered: the data counter derives a rate, the
// display names have their units.
func TestNVLinkNames(t *testing.T) {
	k := NVLinks[7]
	if k.CRC != "gpu.nvlink_l7_crc" || k.DataGiB != "gpu.nvlink_l7_data_gib" || k.Data != "gpu.nvlink_l7_data" {
		t.Errorf("link 7's names: %+v", k)
	}
	if r, ok := counterRules[k.DataGiB]; !ok || r.out != k.Data || r.scale != 1<<30 {
		t.Errorf("link 7's data rule: %+v", r)
	}
	if d, ok := Lookup(NVLinks[17].Data); !ok || d.Unit != BytesPerSec {
		t.Errorf("link 17's data: %+v", d)
	}
	if d, ok := Lookup(GPUNVLinkDown); !ok || d.Unit != Bits {
		t.Errorf("links down: %+v", d)
	}
}
