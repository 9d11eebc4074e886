package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// A MIG instance, a GPU of its own in the session, is named by its parent
// and profile wherever hints name GPUs.
func TestGPUNamesOfMIG(t *testing.T) {
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{
		{Index: 0, MIG: true}, {Index: 1},
		{Index: 2, MIG: true, MIGProfile: "1g.10gb", MIGParent: 0, MIGGPUInstance: 9},
	}}
	if got := frame.GPUNamesOf(info).Of([]int{2, 1}); got != "GPU1, GPU0 MIG 1g.10gb" {
		t.Errorf("names %q", got)
	}
}

// A GPU split by MIG is judged through its slices: when one slice starves
// beside a busy one, gpu-imbalance names the slice, and the parent (whose
// power and memory are its slices', summed) is never among the busy.
func TestImbalanceJudgesSlicesNotTheirGPU(t *testing.T) {
	info := timeline.SourceInfo{Interval: time.Second, GPUs: []timeline.GPUInfo{
		{Index: 0, MIG: true}, {Index: 1},
		{Index: 2, MIG: true, MIGProfile: "3g.40gb", MIGParent: 0},
		{Index: 3, MIG: true, MIGProfile: "1g.10gb", MIGParent: 0},
	}}
	e := NewEngine(info)
	for sec := range 300 {
		tk := &htTick{sec: sec}
		tk.gpu(0, timeline.GPUPower, 380)
		tk.gpu(0, timeline.GPUPowerLimit, 700)
		tk.h100(1, 97, 85, 650, 60*htGiB)
		tk.gpu(2, timeline.GPUSMActive, 88)
		tk.gpu(3, timeline.GPUSMActive, 2)
		tk.gpu(3, timeline.GPUMemUsed, 9*htGiB)
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(tk.m)))
	}
	hs := htFind(e.Hints(e.Last()), timeline.HintGPUImbalance)
	if len(hs) != 1 || !slices.Equal(hs[0].GPUs, []int{3}) {
		t.Fatalf("gpu-imbalance %+v", hs)
	}
	if ev := hs[0].Evidence; !strings.HasPrefix(ev, "GPU1, GPU0 MIG 3g.40gb busy") {
		t.Errorf("evidence %q", ev)
	}
}
