package ui

import (
	"fmt"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// BenchmarkView draws the live screen of 8 GPUs with two minutes of
// history. The goal is at most 1 ms at 200x50 (docs/performance.md).
func BenchmarkView(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			m := newTestModel(b, timeline.Live, fixtureSamples(600), size[0], size[1], Options{})
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}
