package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/playback"
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
		case "pgup":
			msg = tea.KeyMsg{Type: tea.KeyPgUp}
		case "pgdown":
			msg = tea.KeyMsg{Type: tea.KeyPgDown}
		case "home":
			msg = tea.KeyMsg{Type: tea.KeyHome}
		case "end":
			msg = tea.KeyMsg{Type: tea.KeyEnd}
		case "shift+left":
			msg = tea.KeyMsg{Type: tea.KeyShiftLeft}
		case "shift+right":
			msg = tea.KeyMsg{Type: tea.KeyShiftRight}
		case " ":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		case "f6":
			msg = tea.KeyMsg{Type: tea.KeyF6}
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
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	if !strings.Contains(screen(m), "gputop itself") || !strings.Contains(screen(m), "gputop itself") {
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
	if got := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(got, "terminal 50x10 is too small: gputop needs 60x12; enlarge it or press q") {
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

// A replay opens on the whole recording, paused at its end, where the
// hints are the whole file's (a postmortem starts from its verdict); space
// plays it from the start at its speed.
func TestReplayOpensOnTheWholeFileAndPlaysFromTheStart(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{Speed: 2})
	m.Update(sourceDoneMsg{})
	h := headerOf(m)
	if !strings.Contains(h, "REPLAY run.gtr") || !strings.Contains(h, "09:01:59") || !strings.Contains(h, "⏸ 2x") ||
		!strings.Contains(h, "[all 1m59s]") {
		t.Fatalf("a replay opens paused at its end, on the whole file: %q", h)
	}
	if !m.an.at.Equal(m.store.Last()) || len(m.an.shown) == 0 {
		t.Fatalf("the hints are the whole file's: asked at %v, %d shown", m.an.at, len(m.an.shown))
	}
	rows := strings.Split(screen(m), "\n")
	if transport := rows[len(rows)-2]; !strings.Contains(transport, "space plays from the start") {
		t.Fatalf("the transport says how to play: %q", transport)
	}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // tick times are the terminal's, not the recording's
	m.Update(tickMsg{at: base})
	if h := headerOf(m); !strings.Contains(h, "09:01:59") {
		t.Fatalf("paused, a tick does not move it: %q", h)
	}
	press(m, " ")
	m.Update(tickMsg{at: base})
	m.Update(tickMsg{at: base.Add(5 * time.Second)})
	if h := headerOf(m); !strings.Contains(h, "09:00:10") || !strings.Contains(h, "▶ 2x") {
		t.Fatalf("space plays from the start; 5 s of ticks at 2x move the cursor 10 s: %q", h)
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
	press(m, " ")
	m.Update(tickMsg{at: base.Add(20 * time.Second)})
	m.Update(tickMsg{at: base.Add(40 * time.Second)})
	if h := headerOf(m); !strings.Contains(h, "09:01:59") || !strings.Contains(h, "⏸") {
		t.Fatalf("played to the end, a replay stops there: %q", h)
	}
}

// With --start a replay plays from there, as before.
func TestReplayWithStartPlaysFromIt(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{Start: fixtureStart.Add(time.Minute)})
	if h := headerOf(m); !strings.Contains(h, "09:01:00") || !strings.Contains(h, "▶ 1x") {
		t.Fatalf("--start: playing from it: %q", h)
	}
}

// g goes to the start even zoomed out to the whole session (whose window
// always starts there): it zooms in to a window shorter than the session.
func TestStartKeyWorksZoomedOut(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(600), 120, 40, Options{})
	m.Update(sourceDoneMsg{})
	press(m, "g")
	if m.play.Zoom >= len(playback.ZoomLevels) || !m.play.Cursor.Equal(fixtureStart.Add(playback.ZoomLevels[m.play.Zoom])) {
		t.Fatalf("g zoomed out: zoom %d, cursor %v", m.play.Zoom, m.play.Cursor)
	}
}

func TestKeysTypedAheadEachCount(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("gG")})
	if h := headerOf(m); !strings.Contains(h, "09:01:59") || !strings.Contains(h, "●") {
		t.Fatalf("g then G arriving together: back at the live edge: %q", h)
	}
}

// fakeRecorder records nothing; it says what it was told.
type fakeRecorder struct {
	on     bool
	failed error
}

func (r *fakeRecorder) Start() (string, error) { r.on = true; return "gputop-test.gtr", nil }
func (r *fakeRecorder) Stop() (string, error) {
	r.on = false
	return "recorded 3 samples over 2s to gputop-test.gtr (1.2 kB)", nil
}
func (r *fakeRecorder) State() (string, bool, error) {
	return "gputop-test.gtr", r.on, r.failed
}

// markSource is a live source that takes markers.
type markSource struct {
	sliceSource
	marks []string
}

func (s *markSource) Mark(text string) { s.marks = append(s.marks, text) }

func footerOf(m *Model) string {
	rows := strings.Split(screen(m), "\n")
	return rows[len(rows)-1]
}

func TestMarkKeyAsksAndPassesTheMarkerOn(t *testing.T) {
	src := &markSource{sliceSource: sliceSource{info: fixtureInfo(timeline.Live)}}
	m := New(Options{Source: src})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(samplesMsg{samples: fixtureSamples(30)})
	press(m, "m")
	if !strings.Contains(footerOf(m), "marker:") {
		t.Fatalf("m opens a prompt: %q", footerOf(m))
	}
	press(m, "e", "v", "a", "l", " ", "2")
	m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	press(m, "3")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if len(src.marks) != 1 || src.marks[0] != "eval 3" {
		t.Fatalf("marks %q, want [eval 3]", src.marks)
	}
	press(m, "m", "x")
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if len(src.marks) != 1 {
		t.Fatal("esc cancels the marker")
	}
}

func TestRecordKeyTogglesAndShowsREC(t *testing.T) {
	rec := &fakeRecorder{}
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 120, 40, Options{Recorder: rec})
	press(m, "r")
	if !rec.on || !strings.HasPrefix(strings.TrimSpace(headerOf(m)), "gputop") || !strings.Contains(headerOf(m), "REC") {
		t.Fatalf("r starts recording, REC in the header: %q", headerOf(m))
	}
	if !strings.Contains(footerOf(m), "recording to gputop-test.gtr") {
		t.Fatalf("the footer names the file: %q", footerOf(m))
	}
	press(m, "r")
	if rec.on || strings.Contains(headerOf(m), "REC") {
		t.Fatal("r again stops it")
	}
	rec.on, rec.failed = false, errors.New("no space left on device")
	m.Update(samplesMsg{}) // the screen says so with the next sample
	if !strings.Contains(footerOf(m), "recording stopped: no space left on device") {
		t.Fatalf("a write error is said: %q", footerOf(m))
	}
	r := newTestModel(t, timeline.Replay, fixtureSamples(30), 120, 40, Options{})
	press(r, "r")
	if !strings.Contains(footerOf(r), "recording is for live sessions") {
		t.Fatalf("a replay has nothing to record: %q", footerOf(r))
	}
}

func TestTimeJumpAndMarkers(t *testing.T) {
	samples := fixtureSamples(120)
	samples[20].Markers = []timeline.Marker{{At: samples[20].At, Text: "epoch 1"}}
	samples[80].Markers = []timeline.Marker{{At: samples[80].At, Text: "eval"}}
	m := newTestModel(t, timeline.Live, samples, 120, 40, Options{})
	press(m, "t", "+", "3", "0", "s")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if h := headerOf(m); !strings.Contains(h, "09:00:30") || !strings.Contains(h, "⏸") {
		t.Fatalf("t +30s: paused at 09:00:30: %q", h)
	}
	press(m, "]")
	if !strings.Contains(headerOf(m), "09:01:20") {
		t.Fatalf("] goes to the next marker (eval at 09:01:20): %q", headerOf(m))
	}
	// The window ends at the marker: its tick is in the band's last column.
	for _, row := range strings.Split(screen(m), "\n") {
		if strings.Contains(row, "phase") && !strings.HasSuffix(strings.TrimRight(row, " "), "┃") {
			t.Fatalf("the marker jumped to is not at the band's end: %q", row)
		}
	}
	press(m, "[")
	if !strings.Contains(headerOf(m), "09:00:20") {
		t.Fatalf("[ goes back to epoch 1 at 09:00:20: %q", headerOf(m))
	}
	// The fixture's hints begin at 09:00:00 and are first named 19 s on
	// (a provisional reading): [ lands there, where one is shown holding.
	press(m, "[")
	if !strings.Contains(headerOf(m), "09:00:19") || !showsHolding(m) {
		t.Fatalf("[ again goes to where the fixture's first hint is first shown holding, 09:00:19: %q\n%s", headerOf(m), screen(m))
	}
	press(m, "[")
	if !strings.Contains(footerOf(m), "no more markers or hints") {
		t.Fatalf("before the first marker: %q", footerOf(m))
	}
	press(m, "t", "9", "9", ":", "9", "9")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(footerOf(m), "is not a time") {
		t.Fatalf("a bad time says so: %q", footerOf(m))
	}
}

// A damaged recording's warning stays in the footer, but the answer to a
// key goes first: pressing ] at the end must say why nothing moved.
func TestKeyAnswerShowsOverAStandingWarning(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{})
	m.Update(sourceDoneMsg{err: errors.New("run.gtr: recording cut short; read up to 09:01:59")})
	press(m, "G")
	if !strings.Contains(footerOf(m), "cut short") {
		t.Fatalf("the damaged file is said: %q", footerOf(m))
	}
	press(m, "]")
	if !strings.Contains(footerOf(m), "no more markers or hints") {
		t.Fatalf("] at the end says why nothing moved: %q", footerOf(m))
	}
	press(m, "g")
	if !strings.Contains(footerOf(m), "cut short") {
		t.Fatalf("the warning is back at the next key: %q", footerOf(m))
	}
}

func TestReplayShowsATransport(t *testing.T) {
	m := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{})
	m.Update(sourceDoneMsg{})
	press(m, "t", "+", "6", "0", "s")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	rows := strings.Split(screen(m), "\n")
	transport := rows[len(rows)-2]
	if !strings.Contains(transport, "1m of 1m59s") || !strings.Contains(transport, "●") {
		t.Fatalf("transport line: %q", transport)
	}
}

// TestLiveAndReplayDrawTheSameSamplesTheSame is the promise that a
// postmortem sees what was on screen: the same samples at the same cursor
// draw the same GPU, host and detail rows whether they arrived live or
// from a file.
func TestLiveAndReplayDrawTheSameSamplesTheSame(t *testing.T) {
	live := newTestModel(t, timeline.Live, fixtureSamples(120), 120, 40, Options{})
	replay := newTestModel(t, timeline.Replay, fixtureSamples(120), 120, 40, Options{})
	replay.Update(sourceDoneMsg{})
	// A replay opens on the whole file, at its end: the live view paused
	// and zoomed out to the whole session draws the same; and again both
	// zoomed in, and both stepped back.
	press(live, " ")
	zoomOutAll(live)
	for _, keys := range [][]string{nil, {"+"}, {"left", "left"}} {
		press(live, keys...)
		press(replay, keys...)
		l, r := strings.Split(screen(live), "\n"), strings.Split(screen(replay), "\n")
		// Everything but the header (LIVE/REPLAY), the transport and the footer.
		for i := 1; i < len(l)-2; i++ {
			if l[i] != r[i] {
				t.Errorf("after %q, row %d differs:\nlive   %q\nreplay %q", keys, i, l[i], r[i])
			}
		}
	}
}

// zoomOutAll zooms out to the whole session.
func zoomOutAll(m *Model) {
	for range len(playback.ZoomLevels) + 1 {
		press(m, "-")
	}
}

func TestHintsPanelAndDetail(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(240), 120, 40, Options{})
	s := screen(m)
	if !strings.Contains(s, "power-capped GPU5") {
		t.Fatalf("the power-capped GPU5 is a hint:\n%s", s)
	}
	press(m, "h")
	s = screen(m)
	for _, want := range []string{"first seen", "next step:", "confidence"} {
		if !strings.Contains(s, want) {
			t.Fatalf("h shows the first hint in full (%q missing):\n%s", want, s)
		}
	}
	for range m.an.shown {
		press(m, "h")
	}
	if strings.Contains(screen(m), "next step:") {
		t.Fatalf("h past the last hint goes back to the graph:\n%s", screen(m))
	}
}

func TestPhaseBandShowsMarkersInItsColumns(t *testing.T) {
	samples := fixtureSamples(60)
	samples[40].Markers = []timeline.Marker{{At: samples[40].At, Text: "eval"}}
	m := newTestModel(t, timeline.Live, samples, 80, 24, Options{})
	rows := strings.Split(screen(m), "\n")
	var band string
	for _, r := range rows {
		if strings.HasPrefix(r, "phase") {
			band = r
		}
	}
	// 30 s window of 32 columns ending at 09:00:59: the marker at 09:00:40
	// falls in column 11 of the band, which starts at column 6.
	col := strings.Index(band, "┃")
	if col < 0 || !strings.Contains(band, "┃eval") {
		t.Fatalf("no marker on the band: %q", band)
	}
	if got := len([]rune(band[:col])); got != 6+11 {
		t.Fatalf("marker drawn at column %d, want %d: %q", got, 6+11, band)
	}
}

func TestReplayStartBeyondTheFirstBatch(t *testing.T) {
	all := fixtureSamples(120)
	m := newTestModel(t, timeline.Replay, all[:30], 120, 40, Options{Start: fixtureStart.Add(100 * time.Second)})
	if !strings.Contains(headerOf(m), "09:00:29") {
		t.Fatalf("while loading, the cursor waits at the newest sample: %q", headerOf(m))
	}
	m.Update(samplesMsg{samples: all[30:]})
	if !strings.Contains(headerOf(m), "09:01:40") {
		t.Fatalf("once loaded that far, --start is where the replay is: %q", headerOf(m))
	}
	m.Update(samplesMsg{samples: nil})
	press(m, "g")
	if !strings.Contains(headerOf(m), "09:01:00") {
		t.Fatalf("--start is forgotten once reached: g shows the first minute: %q", headerOf(m))
	}
}
