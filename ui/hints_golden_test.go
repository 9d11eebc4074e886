package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// TestGoldenHints pins the hints panel and the h detail where they are
// hardest to fit: 80x24 and 200x50. The checkpoint demo at 3m10s has a
// busy-wait that ended a minute ago (dimmed) after two stalls, at 7m a
// periodic stall that holds between its stalls; the input-bound demo at
// 25s has a first, provisional reading.
func TestGoldenHints(t *testing.T) {
	checkpoint := demoSession(t, "checkpoint", 8*time.Minute)
	inputBound := demoSession(t, "input-bound", 26*time.Second)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, c := range []struct {
			name string
			d    sessionData
			at   time.Duration
		}{
			{"checkpoint_3m10s", checkpoint, 3*time.Minute + 10*time.Second},
			{"checkpoint_7m", checkpoint, 7 * time.Minute},
			{"input-bound_25s", inputBound, 25 * time.Second},
		} {
			name := fmt.Sprintf("hints_%s_%dx%d", c.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := replayAt(t, c.d, c.at, size[0], size[1])
				got := screen(m)
				checkScreenFits(t, got, size[0], size[1])
				checkGolden(t, name, got)
				if len(m.an.shown) == 0 {
					t.Fatalf("no hints at %v:\n%s", c.at, got)
				}
				press(m, "h")
				got = screen(m)
				checkScreenFits(t, got, size[0], size[1])
				checkGolden(t, name+"_h", got)
				if !strings.Contains(got, "next step:") {
					t.Errorf("h does not show the next step:\n%s", got)
				}
			})
		}
	}
}

// replayAt is a replay of a session paused at off after its start.
func replayAt(t *testing.T, d sessionData, off time.Duration, w, h int) *Model {
	t.Helper()
	src := &sliceSource{info: d.info}
	src.info.Kind = timeline.Replay
	m := New(Options{Source: src, Renderer: testRenderer()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: d.samples})
	m.Update(sourceDoneMsg{})
	press(m, "t")
	for _, r := range "+" + off.String() {
		press(m, string(r))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	return m
}

// The h detail scrolls where it is longer than its pane, and says so.
func TestHintDetailScrollsAt80x24(t *testing.T) {
	m := replayAt(t, demoSession(t, "checkpoint", 8*time.Minute), 7*time.Minute, 80, 24)
	press(m, "h")
	first := screen(m)
	if !strings.Contains(first, "scroll (lines 1-") {
		t.Fatalf("a long hint at 80x24 says nothing of scrolling:\n%s", first)
	}
	gpu := m.list.GPU
	press(m, "down", "down")
	scrolled := screen(m)
	if scrolled == first || !strings.Contains(scrolled, "scroll (lines 3-") {
		t.Fatalf("down does not scroll the hint:\n%s", scrolled)
	}
	if m.list.GPU != gpu {
		t.Errorf("down chose GPU %d while scrolling the hint", m.list.GPU)
	}
	for range 50 {
		press(m, "down")
	}
	if !strings.Contains(screen(m), "next step:") && !strings.Contains(screen(m), "episode") {
		t.Errorf("scrolled to the end, neither the next step nor the episodes show:\n%s", screen(m))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if strings.Contains(screen(m), "scroll (lines") {
		t.Errorf("esc leaves the hint open:\n%s", screen(m))
	}
}

// ] and [ step through every marker, every episode of every hint and
// every stall inside one: the checkpoint demo's periodic stall is one
// episode of several stalls, and ] stops at each of them, where the
// screen shows a hint holding on its GPUs: within a window of the stall's
// start, which is on screen.
func TestBracketsStepThroughEveryStall(t *testing.T) {
	d := demoSession(t, "checkpoint", 10*time.Minute)
	m := replayAt(t, d, 10*time.Second, 120, 40)
	var stalls []time.Time
	for _, p := range m.an.engine.Phases(m.an.engine.First(), m.an.engine.Last()) {
		if p.Kind == timeline.PhaseStalled {
			stalls = append(stalls, p.Start)
		}
	}
	if len(stalls) < 4 {
		t.Fatalf("the checkpoint demo should stall at least 4 times in 10 minutes: %v", stalls)
	}
	span := m.play.Span(m.store.First(), m.store.Last())
	var stops []time.Time
	for range 40 {
		before := m.play.Cursor
		press(m, "]")
		if m.play.Cursor.Equal(before) {
			break
		}
		stops = append(stops, m.play.Cursor)
		if !showsHolding(m) {
			t.Errorf("] stopped at %s, where no hint is shown holding:\n%s", m.play.Cursor.Format(time.TimeOnly), screen(m))
		}
	}
	if !strings.Contains(footerOf(m), "no more markers or hints that way") {
		t.Errorf("] past the last stop says so: %q", footerOf(m))
	}
	periodic := 0
	for _, h := range m.an.engine.Hints(m.an.engine.Last()) {
		if h.ID != timeline.HintPeriodicStall {
			continue
		}
		for _, ep := range h.Episodes {
			for _, s := range stalls {
				if !s.Before(ep.Start) && s.Before(ep.End) {
					periodic++
					if !slices.ContainsFunc(stops, func(at time.Time) bool { return !at.Before(s) && at.Before(s.Add(span)) }) {
						t.Errorf("] never stopped within a window after the stall at %s; it stopped at %v", s.Format(time.TimeOnly), stops)
					}
				}
			}
		}
	}
	if periodic < 3 {
		t.Fatalf("a periodic stall of at least 3 stalls, not %d", periodic)
	}
	for i := len(stops) - 2; i >= 0; i-- {
		press(m, "[")
		if !m.play.Cursor.Equal(stops[i]) {
			t.Fatalf("[ steps back through the same stops: at %v, want %v", m.play.Cursor, stops[i])
		}
	}
}

// showsHolding says whether the hints panel lists a hint that holds at
// the cursor: its first hint's row does not say it ended.
func showsHolding(m *Model) bool {
	holding := false
	for _, h := range m.an.shown {
		holding = holding || h.Ongoing
	}
	for _, row := range strings.Split(screen(m), "\n") {
		if strings.Contains(row, "WARNING") || strings.Contains(row, "CRITICAL") || strings.Contains(row, "INFO") {
			return holding && !strings.Contains(row, " ended ")
		}
	}
	return false
}
