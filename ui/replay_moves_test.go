package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// openReplay is a replay of d as it opens: paused at its end, the whole
// file on screen.
func openReplay(t *testing.T, d sessionData, w, h int) *Model {
	t.Helper()
	src := &sliceSource{info: d.info}
	src.info.Kind = timeline.Replay
	m := New(Options{Source: src, Renderer: testRenderer()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: d.samples})
	m.Update(sourceDoneMsg{})
	return m
}

// goTo answers t with s, as typed.
func goTo(m *Model, s string) {
	press(m, "t")
	for _, r := range s {
		press(m, string(r))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
}

// zoomLabel is the window the header names: "[5m]", "[all 1m40s]".
func zoomLabel(t *testing.T, m *Model) string {
	t.Helper()
	h := strings.TrimRight(headerOf(m), " ")
	i := strings.LastIndex(h, "[")
	if i < 0 {
		t.Fatalf("no window in the header: %q", h)
	}
	return h[i:]
}

// windowOf is the span of time the screen shows.
func windowOf(m *Model) time.Duration {
	from, to := m.play.Window(m.store.First(), m.store.Last())
	return to.Sub(from)
}

// - at 1m40s into a replay zoomed to 5m showed [all 1m40s]: the session
// up to the cursor, shorter than the window it zoomed out of. Zooming out
// never narrows the window, zooming in never widens it, wherever the
// cursor is.
func TestZoomOutNeverNarrowsTheWindow(t *testing.T) {
	m := openReplay(t, demoSession(t, "checkpoint", 8*time.Minute), 120, 40)
	press(m, "+")
	goTo(m, "+1m40s")
	if got := zoomLabel(t, m); got != "[5m]" {
		t.Fatalf("+ from the opening view, then t +1m40s: want [5m], got %s", got)
	}
	press(m, "-")
	if got := zoomLabel(t, m); got != "[5m]" {
		t.Errorf("- at 1m40s zoomed to 5m: the 5m window stays, got %s", got)
	}
	if !strings.Contains(footerOf(m), "shows all 1m40s of the session up to the cursor") {
		t.Errorf("- that keeps the window says why: %q", footerOf(m))
	}
	// From the shortest window, - widens it at every press up to all of
	// the session before the cursor, and + narrows it back.
	for _, at := range []string{"+1m40s", "+25s", "+6m", "-0s"} {
		goTo(m, at)
		for range 3 {
			press(m, "+")
		}
		var labels []string
		last := windowOf(m)
		for range 15 {
			press(m, "-")
			labels = append(labels, zoomLabel(t, m))
			if w := windowOf(m); w < last {
				t.Fatalf("t %s: - narrowed the window from %s to %s: %v", at, last, w, labels)
			} else {
				last = w
			}
		}
		if !strings.HasPrefix(labels[len(labels)-1], "[all ") {
			t.Errorf("t %s: - reaches all of the session: %v", at, labels)
		}
		for range 15 {
			press(m, "+")
			if w := windowOf(m); w > last {
				t.Fatalf("t %s: + widened the window from %s to %s", at, last, w)
			} else {
				last = w
			}
		}
	}
}
