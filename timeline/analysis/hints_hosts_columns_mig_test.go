package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// A MIG instance, a GPU of its own in the session, is named by its parent
// and profile wherever hints name GPUs.
func TestGPUNamesOfMIG(t *testing.T) {
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{
		{Index: 0, MIG: true}, {Index: 1},
		{Index: 2, MIG: true, MIGProfile: "1g.10gb", MIGParent: 0, MIGGPUInstance: 9},
	}}
	if got := GPUNamesOf(info).Of([]int{2, 1}); got != "GPU1, GPU0 MIG 1g.10gb" {
		t.Errorf("names %q", got)
	}
}
