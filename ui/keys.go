package ui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/playback"
)

// handleKeys splits typed-ahead keys: bubbletea hands several printable
// keys that arrive together ("gG" over a slow link) to Update as one
// message, and each must still do what it says, in the state the one
// before it left.
func (m *Model) handleKeys(k tea.KeyMsg) tea.Cmd {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return m.handleKey(k)
	}
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		m.settle()
	}
	return tea.Sequence(cmds...)
}

// handleKey does what a key says: the first enabled row of the key table
// that matches it, offered to the part with the keyboard first (layers,
// keymap.Route). Keys mean the same live and in replay: both move a
// cursor over the same store.
func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	if m.play.OpenWhole {
		// The opening view of a replay lasts until a key moves the cursor
		// or the zoom. A key that takes the cursor somewhere (t, [, ],
		// space) shows that moment in the window a live view would have,
		// unless it zoomed itself.
		was := m.play
		defer func() {
			p := &m.play
			if p.Cursor.Equal(was.Cursor) && p.Zoom == was.Zoom && p.Motion == was.Motion {
				return
			}
			p.OpenWhole = false
			if p.Zoom == was.Zoom {
				p.Zoom = playback.DefaultZoom(m.lay.Spark, m.info.Interval)
			}
		}()
	}
	if !m.prompt.Active() && !m.procs.confirm.Active {
		m.note = "" // a note answers one key: the next one clears it
	}
	if cmd, took := keymap.Route(k, m.layers()); took {
		return cmd
	}
	// keys.suspend is never matched: ui/screen takes ctrl+z first.
	m.note = m.keys.WhyNot(k.String())
	return nil
}

// markKey asks for a marker's text; it rides on the next sample, so it is
// recorded like any other marker.
func (m *Model) markKey() {
	sink, ok := m.src.(timeline.MarkSink)
	if !ok {
		return // the binding is enabled only for a source that takes markers
	}
	m.prompt.Ask("marker:", func(text string) {
		sink.Mark(text)
		m.note = "marker added: " + text
	})
}

// record starts or stops recording to a file (r), and says what it did.
func (s *session) record() (note string) {
	if s.recorder == nil {
		return "" // the binding is enabled only with a Recorder
	}
	var err error
	if _, on, _ := s.recorder.State(); on {
		note, err = s.recorder.Stop() // a summary of what it holds
	} else {
		note, err = s.recorder.Start() // the file's path
		note = "recording to " + note
	}
	if err != nil {
		return "recording: " + err.Error()
	}
	return note
}

// jumpBy is [ (dir < 0) and ]: the cursor to the previous or next marker,
// hint or stall of the session.
func (m *Model) jumpBy(dir int) func(tea.KeyMsg) tea.Cmd {
	return keyDo(func() {
		var hintsAt func(time.Time) []timeline.Hint
		if m.an.engine != nil {
			hintsAt = m.an.engine.Hints
		}
		m.noteWhy(m.play.jumpBy(dir, m.an.targets(m.store.Markers()), m.store, m.lay.Spark, m.info.Interval, hintsAt))
	})
}

// timeActions are the keys that move the cursor, the zoom and the speed:
// the same live and in replay, both a cursor over the same store.
func (m *Model) timeActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	// step runs a move of the cursor with the store's ends.
	step := func(f func(first, last time.Time)) func(tea.KeyMsg) tea.Cmd {
		return keyDo(func() { f(m.store.First(), m.store.Last()) })
	}
	// move steps the cursor dir times by (a column, half the window).
	move := func(dir time.Duration, by func(first, last time.Time) time.Duration) func(tea.KeyMsg) tea.Cmd {
		return step(func(first, last time.Time) { m.play.Step(dir*by(first, last), first, last) })
	}
	column := func(time.Time, time.Time) time.Duration { return m.play.columnStep(m.store, m.lay.Spark) }
	half := func(first, last time.Time) time.Duration { return m.play.Span(first, last) / 2 }
	hasSamples := func() bool { return s.samples } // the rule of the keys that move through time
	replay := func() bool { return !s.grows }
	return []keymap.Action{
		{Binding: &k.ZoomIn, On: hasSamples, Do: step(m.play.ZoomIn)},
		{Binding: &k.ZoomOut, On: hasSamples, Do: step(func(first, last time.Time) {
			if !m.play.ZoomOut(first, last) {
				m.note = fmt.Sprintf("the %s window shows all %s of the session up to the cursor already",
					draw.Duration(m.play.Span(first, last)), draw.Duration(m.play.Cursor.Sub(first)))
			}
		})},
		{Binding: &k.Pause, On: hasSamples, Do: func(tea.KeyMsg) tea.Cmd {
			if m.play.TogglePause(m.store.First(), m.store.Last()) {
				return m.play.tick(m.store.Interval())
			}
			return nil
		}, Does: func() string {
			switch {
			case !s.paused:
				return "pause"
			case s.grows:
				return "live"
			}
			return "play"
		}},
		{Binding: &k.Back, On: hasSamples, Do: move(-1, column), Does: does(func() bool { return s.grows }, "scroll", "step")},
		{Binding: &k.Forward, On: hasSamples, Do: move(+1, column)},
		{Binding: &k.PageBack, On: hasSamples, Do: move(-1, half)},
		{Binding: &k.PageForward, On: hasSamples, Do: move(+1, half)},
		{Binding: &k.Start, On: hasSamples, Do: step(m.play.Home)},
		{Binding: &k.End, On: hasSamples, Do: step(func(_, last time.Time) {
			if m.play.OpenWhole {
				// The opening view's cursor is at the end already; G still
				// takes it there as a live view shows it (docs/screen.md),
				// so that space then plays in that window, not the file's.
				m.play.OpenWhole = false
				m.play.Zoom = playback.DefaultZoom(m.lay.Spark, m.info.Interval)
			}
			m.play.End(last)
		})},
		{Binding: &k.Slower, On: replay, Do: keyDo(m.play.Slower)},
		{Binding: &k.Faster, On: replay, Do: keyDo(m.play.Faster)},
		{Binding: &k.PrevMark, On: hasSamples, Do: m.jumpBy(-1)},
		{Binding: &k.NextMark, On: hasSamples, Do: m.jumpBy(+1)},
		{Binding: &k.GoTo, On: hasSamples, Do: keyDo(func() {
			m.prompt.Ask("go to time (14:03, +10m, -5m):", func(answer string) { m.noteWhy(m.play.goTo(answer, m.store)) })
		})},
	}
}
