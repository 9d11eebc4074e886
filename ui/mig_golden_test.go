package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestGoldenMIG pins the mig demo at 2m30s, at 80x24 and 200x50: GPU0's
// three MIG slices listed under it by profile, the starved 1g.10gb slice
// selected (three rows down), the detail pane naming it, and the hints
// naming slices by parent and profile.
func TestGoldenMIG(t *testing.T) {
	mig := demoSession(t, "mig", 3*time.Minute)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		name := fmt.Sprintf("mig_2m30s_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := replayAt(t, mig, 2*time.Minute+30*time.Second, size[0], size[1])
			press(m, "down")
			press(m, "down")
			press(m, "down")
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
			for _, want := range []string{"└3g.40gb", "└1g.10gb", "GPU0 MIG 1g.10gb"} {
				if !strings.Contains(got, want) {
					t.Errorf("%q not on the screen:\n%s", want, got)
				}
			}
		})
	}
}

// Each MIG instance follows its parent on the screen, whatever its index.
func TestMIGUnderParents(t *testing.T) {
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{
		{Index: 0, MIG: true}, {Index: 1, MIG: true}, {Index: 2},
		{Index: 3, MIGProfile: "3g.40gb", MIGParent: 1},
		{Index: 4, MIGProfile: "1g.10gb", MIGParent: 0},
		{Index: 5, MIGProfile: "2g.20gb", MIGParent: 1},
	}}
	var order []int
	for _, g := range migUnderParents(info).GPUs {
		order = append(order, g.Index)
	}
	if fmt.Sprint(order) != "[0 4 1 3 5 2]" {
		t.Errorf("order %v", order)
	}
	if info.GPUs[1].Index != 1 {
		t.Error("the caller's slice was reordered")
	}
}
