package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "left":
			msg = tea.KeyMsg{Type: tea.KeyLeft}
		case "right":
			msg = tea.KeyMsg{Type: tea.KeyRight}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case " ":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m.Update(msg)
	}
}

func headerOf(m *Model) string { return strings.SplitN(screen(m), "\n", 2)[0] }

func TestPauseFreezesTheViewWhileSamplesArrive(t *testing.T) {
	all := fixtureSamples(120)
	m := newTestModel(t, timeline.Live, all[:60], 120, 40, Options{})
	press(m, " ")
	frozen := m.View()
	if !strings.Contains(headerOf(m), "09:00:59") {
		t.Fatalf("paused header should show the cursor time 09:00:59: %q", headerOf(m))
	}
	for i := 60; i < 70; i++ {
		m.Update(samplesMsg{samples: all[i : i+1]})
		if m.View() != frozen {
			t.Fatalf("the paused screen changed when sample %d arrived", i)
		}
	}
	if m.store.Len() != 70 {
		t.Fatalf("sampling should go on while paused: %d samples", m.store.Len())
	}
	press(m, " ")
	if !strings.Contains(headerOf(m), "09:01:09") {
		t.Fatalf("resuming a live view jumps to the newest sample: %q", headerOf(m))
	}
}

func TestScrollWhilePausedAndBackToLive(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	press(m, "left")
	h := headerOf(m)
	if !strings.Contains(h, "09:01:58") || !strings.Contains(h, "⏸") {
		t.Fatalf("left pauses and steps back one column (1 s): %q", h)
	}
	press(m, "g")
	if !strings.Contains(headerOf(m), "09:01:00") {
		t.Fatalf("g shows the start: the window of 1m ending a minute in: %q", headerOf(m))
	}
	press(m, "G")
	if h := headerOf(m); !strings.Contains(h, "09:01:59") || !strings.Contains(h, "●") {
		t.Fatalf("G follows live again: %q", h)
	}
}

func TestZoomSteps(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	if !strings.Contains(headerOf(m), "[1m]") {
		t.Fatalf("default zoom at 120 wide is 1m: %q", headerOf(m))
	}
	press(m, "+")
	if !strings.Contains(headerOf(m), "[30s]") {
		t.Fatalf("+ zooms in to 30s: %q", headerOf(m))
	}
	press(m, "+")
	if !strings.Contains(headerOf(m), "[30s]") {
		t.Fatalf("30s is the closest zoom: %q", headerOf(m))
	}
	press(m, "-", "-", "-")
	if !strings.Contains(headerOf(m), "[all 1m59s]") {
		t.Fatalf("zooming out past the session shows all of it: %q", headerOf(m))
	}
}

func TestSelectAndTabChangeTheDetailGraph(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	press(m, "down", "down")
	if !strings.Contains(screen(m), "▸GPU2") || !strings.Contains(screen(m), " GPU2 util") {
		t.Fatalf("down twice selects GPU2 for the detail graph:\n%s", screen(m))
	}
	press(m, "tab")
	if !strings.Contains(screen(m), " GPU2 SM active") {
		t.Fatalf("tab shows SM activity next:\n%s", screen(m))
	}
	press(m, "down", "down", "down", "down", "down", "down", "down")
	if !strings.Contains(screen(m), "▸GPU7") {
		t.Fatal("selection stops at the last GPU")
	}
	press(m, "tab")
	if strings.Contains(screen(m), "GPU7 tensor") {
		t.Fatal("tab skips metrics the GPU does not have (GPU7 has no tensor numbers)")
	}
}

func TestHelpOpensAndAnyKeyClosesIt(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 80, 24, Options{})
	press(m, "?")
	if !strings.Contains(screen(m), "gputop help") || !strings.Contains(screen(m), "any other key closes") {
		t.Fatalf("help screen:\n%s", screen(m))
	}
	for i := 0; i < 30; i++ {
		press(m, "down")
	}
	if !strings.Contains(screen(m), "never shows an unknown") || !strings.Contains(screen(m), "gputop itself") {
		t.Fatalf("help scrolled to its end:\n%s", screen(m))
	}
	checkScreenFits(t, screen(m), 80, 24)
	press(m, "x")
	if strings.Contains(screen(m), "gputop help") {
		t.Fatal("any key closes help")
	}
}

func TestResizeFollowsAndSaysWhenTooSmall(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 80, 24, Options{})
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 10})
	if got := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(got, "terminal too small: 50x10, gputop needs at least 60x15") {
		t.Fatalf("too small:\n%s", got)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	checkScreenFits(t, screen(m), 100, 30)
}

func TestQuitCancelsTheSource(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(3), 80, 24, Options{})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q quits")
	}
	if m.ctx.Err() == nil {
		t.Fatal("quitting stops the pull from the source")
	}
}

func TestReplayPlaysFromTheStartAtItsSpeed(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{Speed: 2})
	if h := headerOf(m); !strings.Contains(h, "REPLAY run.gtr") || !strings.Contains(h, "09:00:00") || !strings.Contains(h, "2x") {
		t.Fatalf("a replay starts at its beginning, playing at 2x: %q", h)
	}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // tick times are the terminal's, not the recording's
	m.Update(tickMsg{at: base})
	m.Update(tickMsg{at: base.Add(5 * time.Second)})
	if h := headerOf(m); !strings.Contains(h, "09:00:10") {
		t.Fatalf("5 s of ticks at 2x move the cursor 10 s: %q", h)
	}
	press(m, " ")
	m.Update(tickMsg{at: base.Add(10 * time.Second)})
	if h := headerOf(m); !strings.Contains(h, "09:00:10") {
		t.Fatalf("paused replay does not move: %q", h)
	}
	press(m, ">", ">")
	if h := headerOf(m); !strings.Contains(h, "8x") {
		t.Fatalf("> twice: 8x: %q", h)
	}
	press(m, "right")
	if h := headerOf(m); !strings.Contains(h, "09:00:11") {
		t.Fatalf("right steps one sample: %q", h)
	}
	m.Update(sourceDoneMsg{})
	press(m, "G", " ")
	m.Update(tickMsg{at: base.Add(20 * time.Second)})
	if h := headerOf(m); !strings.Contains(h, "09:01:59") {
		t.Fatalf("at the end a replay stays there: %q", h)
	}
}

func TestKeysTypedAheadEachCount(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("gG")})
	if h := headerOf(m); !strings.Contains(h, "09:01:59") || !strings.Contains(h, "●") {
		t.Fatalf("g then G arriving together: back at the live edge: %q", h)
	}
}
