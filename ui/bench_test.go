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

// BenchmarkReplaySeek is t +12h in a replay of a day of 8 GPUs: moving the
// cursor and drawing the new frame. The goal is 100 ms.
func BenchmarkReplaySeek(b *testing.B) {
	samples := fixtureSamples(86400)
	opts := Options{Store: timeline.NewStore(timeline.StoreOptions{Reserve: len(samples)})}
	m := newTestModel(b, timeline.Replay, samples, 120, 40, opts)
	m.Update(sourceDoneMsg{})
	targets := []string{"+12h", "+1h", "-5m", "+23h"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.jumpTo(targets[i%len(targets)])
		m.dirty = true
		_ = m.View()
	}
}
