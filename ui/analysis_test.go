package ui

import (
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// A session of many GPUs followed live is judged every few seconds of
// sample time (judgeEvery), not at every sample: 5 s from BigSession GPUs,
// 10 s from four times as many; a cursor moved by a key is answered at
// once.
func TestABigSessionIsJudgedEveryFewSeconds(t *testing.T) {
	for _, c := range []struct {
		gpus  int
		every time.Duration
	}{{BigSession, 5 * time.Second}, {4 * BigSession, 10 * time.Second}} {
		info := timeline.SourceInfo{Kind: timeline.Live, Interval: time.Second}
		for i := range c.gpus {
			info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: i, Name: "H100"})
		}
		m := New(Options{Source: &sliceSource{info: info}})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		var asked []time.Time
		for i := range 22 {
			var ms []timeline.Metric
			for g := range c.gpus {
				ms = append(ms, timeline.Metric{Key: timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(g)}, Value: 90})
			}
			s := timeline.Sample{At: fixtureStart.Add(time.Duration(i) * time.Second)}.WithMetrics(ms)
			m.Update(samplesMsg{samples: []timeline.Sample{s}})
			if len(asked) == 0 || !m.an.at.Equal(asked[len(asked)-1]) {
				asked = append(asked, m.an.at)
			}
		}
		var want []time.Time
		for at := time.Duration(0); at < 22*time.Second; at += c.every {
			want = append(want, fixtureStart.Add(at))
		}
		if !slices.EqualFunc(asked, want, time.Time.Equal) {
			t.Fatalf("%d GPUs: judged at %v, want %v", c.gpus, asked, want)
		}
		press(m, "left") // scrolled back: paused, and judged where the cursor is
		if !m.an.at.Equal(m.play.Cursor) {
			t.Errorf("%d GPUs: after a key the screen holds the hints of %v, its cursor is at %v", c.gpus, m.an.at, m.play.Cursor)
		}
	}
}
