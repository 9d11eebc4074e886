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

// G then space plays in the window a live view shows: the zoom the person
// had (the live view's, from the opening view), ending at the cursor as
// it moves, never the whole file's.
func TestEndThenPlayIsTheLiveWindow(t *testing.T) {
	d := demoSession(t, "checkpoint", 8*time.Minute)
	for _, c := range []struct {
		name string
		keys func(m *Model)
		want string
	}{
		{"from the opening view", func(m *Model) {}, "[1m]"},
		{"zoomed in first", func(m *Model) { press(m, "+") }, "[5m]"},
		{"zoomed out at 1m40s", func(m *Model) { press(m, "+"); goTo(m, "+1m40s"); press(m, "-") }, "[5m]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := openReplay(t, d, 120, 40)
			c.keys(m)
			press(m, "G")
			if got := zoomLabel(t, m); got != c.want {
				t.Errorf("G shows the end in %s, want %s", got, c.want)
			}
			if !m.play.Cursor.Equal(m.store.Last()) {
				t.Errorf("G: the cursor is at %v, not the end", m.play.Cursor)
			}
			press(m, " ")
			at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range 20 {
				m.Update(tickMsg{at: at.Add(time.Duration(i) * time.Second)})
			}
			if got := zoomLabel(t, m); got != c.want {
				t.Errorf("G then space plays in %s, want %s", got, c.want)
			}
			from, to := m.play.Window(m.store.First(), m.store.Last())
			if !to.Equal(m.play.Cursor) || to.Sub(from) >= m.store.Last().Sub(m.store.First()) {
				t.Errorf("playing, the window %v-%v is not the live view's, ending at the cursor %v",
					from.Format(time.TimeOnly), to.Format(time.TimeOnly), m.play.Cursor.Format(time.TimeOnly))
			}
			if !strings.Contains(headerOf(m), "09:00:19") {
				t.Errorf("space at the end plays from the start: %q", headerOf(m))
			}
		})
	}
}
