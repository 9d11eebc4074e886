package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	terminal "github.com/gputop-dev/gputop/ui/screen"
)

// BenchmarkView draws the live screen of 8 GPUs with ten minutes of
// history, as after a new sample: every panel again, no cached frame. The
// goal is at most 1 ms at 200x50 (docs/performance.md).
func BenchmarkView(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			m := newTestModel(b, timeline.Live, fixtureSamples(600), size[0], size[1], Options{})
			b.ReportAllocs()
			for b.Loop() {
				m.render()
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
		m.play.goTo(targets[i%len(targets)], m.store)
		m.render()
	}
}

// BenchmarkFrame is one second of the live screen: a new sample, the view
// drawn, and the renderer sending the difference to the terminal. It
// reports the bytes a frame costs with the sparklines full.
func BenchmarkFrame(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			samples := fixtureSamples(4000)
			m := newTestModel(b, timeline.Live, samples[:600], size[0], size[1], Options{})
			out := &countingWriter{}
			r := terminal.NewRenderer(out)
			r.Resize(size[0], size[1])
			r.Render(m.View())
			before := out.Len()
			b.ReportAllocs()
			fresh := samples[600:]
			for i := 0; b.Loop(); i++ {
				// Past the end, the same samples again, later.
				s := fresh[i%len(fresh)]
				s.At = s.At.Add(time.Duration(i/len(fresh)*len(fresh)) * time.Second)
				m.Update(samplesMsg{samples: []timeline.Sample{s}})
				r.Render(m.View())
			}
			b.ReportMetric(float64(out.Len()-before)/float64(b.N), "bytes/frame")
		})
	}
}
