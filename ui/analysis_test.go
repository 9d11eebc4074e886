package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// A session of many GPUs followed live is judged every bigSessionEvery of
// sample time, not at every sample; a cursor moved by a key is answered at
// once.
func TestABigSessionIsJudgedEveryFewSeconds(t *testing.T) {
	info := timeline.SourceInfo{Kind: timeline.Live, Interval: time.Second}
	for i := range BigSession {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: i, Name: "H100"})
	}
	m := New(Options{Source: &sliceSource{info: info}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	var asked []time.Time
	for i := range 12 {
		s := timeline.Sample{At: fixtureStart.Add(time.Duration(i) * time.Second)}
		for g := range BigSession {
			s.Metrics = append(s.Metrics, timeline.Metric{Key: timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(g)}, Value: 90})
		}
		m.Update(samplesMsg{samples: []timeline.Sample{s}})
		if len(asked) == 0 || !m.an.at.Equal(asked[len(asked)-1]) {
			asked = append(asked, m.an.at)
		}
	}
	want := []time.Time{fixtureStart, fixtureStart.Add(5 * time.Second), fixtureStart.Add(10 * time.Second)}
	if len(asked) != len(want) || !asked[1].Equal(want[1]) || !asked[2].Equal(want[2]) {
		t.Fatalf("judged at %v, want %v", asked, want)
	}
	press(m, "left") // scrolled back: paused, and judged where the cursor is
	if !m.an.at.Equal(m.play.Cursor) {
		t.Errorf("after a key the screen holds the hints of %v, its cursor is at %v", m.an.at, m.play.Cursor)
	}
}
