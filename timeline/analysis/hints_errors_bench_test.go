package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// BenchmarkHealthPCIe512 is what the Engine's take of a sample of 64 hosts
// of 8 GPUs pays for the PCIe link rule: 2,048 link values logged.
func BenchmarkHealthPCIe512(b *testing.B) {
	var keys []timeline.Key
	var values []float64
	for g := range 512 {
		dev := timeline.GPUDevice(g)
		for _, n := range []string{timeline.GPUPCIeGen, timeline.GPUPCIeWidth, timeline.GPUPCIeGenMax, timeline.GPUPCIeWidthMax} {
			keys, values = append(keys, timeline.Key{Name: n, Device: dev}), append(values, 4)
		}
		keys, values = append(keys, timeline.Key{Name: timeline.GPUUtil, Device: dev}), append(values, 90)
	}
	var h healthLog
	var s timeline.Sample
	h.places(keys)
	b.ReportAllocs()
	col := 0
	for b.Loop() {
		h.add(&s, values, col)
		col++
	}
}
