package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// A live screen that has let go of its oldest samples (its memory budget)
// says, zoomed out past them, from when it still shows every sample; a
// window within them, and a replay that keeps every sample, say nothing.
func TestHeaderSaysHowFarBackEverySampleReaches(t *testing.T) {
	d := demoSession(t, "training", 10*time.Minute)
	store := timeline.NewStore(timeline.StoreOptions{RawSamples: 120})
	m := New(Options{Source: &sliceSource{info: d.info}, Renderer: testRenderer(), ASCII: true, Plain: true, Store: store})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(samplesMsg{samples: d.samples})
	since := "every sample since " + store.OldestRaw().Local().Format(time.TimeOnly)
	header := func() string { return strings.SplitN(m.View(), "\n", 2)[0] }
	if h := header(); strings.Contains(h, "every sample") {
		t.Errorf("the newest 30 s are all held, yet the header says otherwise:\n%s", h)
	}
	for range 10 {
		press(m, "-")
	}
	if h := header(); !strings.Contains(h, since) {
		t.Errorf("zoomed out over 10 minutes of which the newest 2 are held sample by sample, the header does not say %q:\n%s", since, h)
	}

	whole := New(Options{Source: &sliceSource{info: d.info}, Renderer: testRenderer(), ASCII: true, Plain: true})
	whole.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	whole.Update(samplesMsg{samples: d.samples})
	for range 10 {
		press(whole, "-")
	}
	if h := strings.SplitN(whole.View(), "\n", 2)[0]; strings.Contains(h, "every sample") {
		t.Errorf("a store holding every sample says it does not:\n%s", h)
	}
}
