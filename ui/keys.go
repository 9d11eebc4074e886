package ui

import (
	"fmt"
	"math"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/playback"
	"github.com/gputop-dev/gputop/ui/procs"
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
		m.refreshAnalysis()
		m.updateKeys()
	}
	return tea.Sequence(cmds...)
}

// handleKey does what a key says, matching it against the key table
// (ui/keymap). Keys mean the same live and in replay: both move a cursor
// over the same store.
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
	if m.prompt.active {
		return m.handlePromptKey(k)
	}
	if m.confirm.Active {
		return m.handleConfirmKey(k)
	}
	keys := m.keys
	m.note = ""
	if m.showHelp {
		page := max(1, m.height-2) // a page, less a line kept from the last
		switch {
		case key.Matches(k, keys.HelpUp.Binding):
			m.helpTop--
			return nil
		case key.Matches(k, keys.HelpDown.Binding):
			m.helpTop++
			return nil
		case key.Matches(k, keys.HelpPageUp.Binding):
			m.helpTop -= page
			return nil
		case key.Matches(k, keys.HelpPageDown.Binding):
			m.helpTop += page
			return nil
		case key.Matches(k, keys.HelpFirst.Binding):
			m.helpTop = 0
			return nil
		case key.Matches(k, keys.HelpLast.Binding):
			m.helpTop = math.MaxInt / 2 // viewHelp stops it at the last page
			return nil
		}
		// Any other key closes the help; quit quits as well.
		m.showHelp = false
		if !key.Matches(k, keys.Quit.Binding) {
			return nil
		}
	}
	first, last := m.store.First(), m.store.Last()
	switch {
	case key.Matches(k, keys.Quit.Binding):
		m.cancel()
		return tea.Quit
	case key.Matches(k, keys.Help.Binding):
		m.showHelp, m.helpTop = true, 0
	case key.Matches(k, keys.ProcUp.Binding):
		m.moveSel(-1)
	case key.Matches(k, keys.ProcDown.Binding):
		m.moveSel(+1)
	case key.Matches(k, keys.ProcPageUp.Binding):
		m.moveSel(-max(1, m.procs.Visible))
	case key.Matches(k, keys.ProcPageDown.Binding):
		m.moveSel(max(1, m.procs.Visible))
	case key.Matches(k, keys.ProcFirst.Binding):
		m.moveSel(math.MinInt)
	case key.Matches(k, keys.ProcLast.Binding):
		m.moveSel(math.MaxInt)
	case key.Matches(k, keys.Procs.Binding):
		m.procs.Focus = !m.procs.Focus
		m.hintSel, m.hintTop = 0, 0
	case key.Matches(k, keys.LeaveProcs.Binding):
		m.procs.Focus = false
	case key.Matches(k, keys.ProcFilter.Binding):
		m.filterKey()
	case key.Matches(k, keys.SortNext.Binding):
		m.procs.SortBy = (m.procs.SortBy + 1) % procs.Columns
		m.note = "processes by " + procs.ColumnNames[m.procs.SortBy]
	case key.Matches(k, keys.SortInvert.Binding):
		m.procs.Invert = !m.procs.Invert
	case key.Matches(k, keys.Kill.Binding):
		m.killKey()
	case key.Matches(k, keys.HintUp.Binding):
		m.hintTop = max(0, m.hintTop-1)
	case key.Matches(k, keys.HintDown.Binding):
		m.hintTop = min(m.hintDetailOverflow(), m.hintTop+1)
	case m.info.MultiHost() && m.hostKey(keys, func(b *keymap.Binding) bool { return key.Matches(k, b.Binding) }):
	case key.Matches(k, keys.Up.Binding):
		m.gpu = max(0, m.gpu-1)
	case key.Matches(k, keys.Down.Binding):
		m.gpu = min(len(m.info.GPUs)-1, m.gpu+1)
	case key.Matches(k, keys.GPUPageUp.Binding):
		m.gpu = max(0, m.gpu-max(1, m.lay.GPUsShown))
	case key.Matches(k, keys.GPUPageDown.Binding):
		m.gpu = min(len(m.info.GPUs)-1, m.gpu+max(1, m.lay.GPUsShown))
	case key.Matches(k, keys.FirstGPU.Binding):
		m.gpu = 0
	case key.Matches(k, keys.LastGPU.Binding):
		m.gpu = len(m.info.GPUs) - 1
	case key.Matches(k, keys.Metric.Binding):
		m.nextMetric()
	case key.Matches(k, keys.ZoomIn.Binding):
		m.play.ZoomIn(first, last)
	case key.Matches(k, keys.ZoomOut.Binding):
		if !m.play.ZoomOut(first, last) {
			m.note = fmt.Sprintf("the %s window shows all %s of the session up to the cursor already",
				draw.Duration(m.play.Span(first, last)), draw.Duration(m.play.Cursor.Sub(first)))
		}
	case key.Matches(k, keys.Pause.Binding):
		if m.play.TogglePause(first, last) {
			return m.tick()
		}
	case key.Matches(k, keys.Back.Binding):
		m.play.Step(-m.columnStep(), first, last)
	case key.Matches(k, keys.Forward.Binding):
		m.play.Step(m.columnStep(), first, last)
	case key.Matches(k, keys.PageBack.Binding):
		m.play.Step(-m.play.Span(first, last)/2, first, last)
	case key.Matches(k, keys.PageForward.Binding):
		m.play.Step(m.play.Span(first, last)/2, first, last)
	case key.Matches(k, keys.Start.Binding):
		m.play.Home(first, last)
	case key.Matches(k, keys.End.Binding):
		if m.play.OpenWhole {
			// The opening view's cursor is at the end already; G still
			// takes it there as a live view shows it (docs/screen.md),
			// so that space then plays in that window, not the file's.
			m.play.OpenWhole = false
			m.play.Zoom = playback.DefaultZoom(m.lay.Spark, m.info.Interval)
		}
		m.play.End(last)
	case key.Matches(k, keys.Slower.Binding):
		m.play.Slower()
	case key.Matches(k, keys.Faster.Binding):
		m.play.Faster()
	case key.Matches(k, keys.PrevMark.Binding):
		m.jumpMarker(-1)
	case key.Matches(k, keys.NextMark.Binding):
		m.jumpMarker(+1)
	case key.Matches(k, keys.GoTo.Binding):
		m.ask("go to time (14:03, +10m, -5m):", (*Model).jumpTo)
	case key.Matches(k, keys.Hint.Binding):
		m.procs.Focus = false
		m.hintSel, m.hintTop = m.hintSel+1, 0
		if m.hintSel > len(m.an.shown) {
			m.hintSel = 0
		}
	case key.Matches(k, keys.CloseHint.Binding):
		m.hintSel, m.hintTop = 0, 0
	case key.Matches(k, keys.Mark.Binding):
		m.markKey()
	case key.Matches(k, keys.Record.Binding):
		m.recordKey()
	default:
		// keys.suspend is never matched: ui/screen takes ctrl+z first.
		m.note = keys.WhyNot(k.String())
	}
	return nil
}

// markKey asks for a marker's text; it rides on the next sample, so it is
// recorded like any other marker.
func (m *Model) markKey() {
	sink, ok := m.src.(timeline.MarkSink)
	if !ok {
		return // the binding is enabled only for a source that takes markers
	}
	m.ask("marker:", func(m *Model, text string) {
		sink.Mark(text)
		m.note = "marker added: " + text
	})
}

// recordKey starts or stops recording to a file.
func (m *Model) recordKey() {
	if m.recorder == nil {
		return // the binding is enabled only with a Recorder
	}
	if _, on, _ := m.recorder.State(); on {
		summary, err := m.recorder.Stop()
		if err != nil {
			m.note = "recording: " + err.Error()
			return
		}
		m.note = summary
		return
	}
	path, err := m.recorder.Start()
	if err != nil {
		m.note = "recording: " + err.Error()
		return
	}
	m.note = "recording to " + path
}

// columnStep is one sparkline column of time, and never less than one
// sample: a step always shows something new.
func (m *Model) columnStep() time.Duration {
	return m.stepOf(m.play.Span(m.store.First(), m.store.Last()))
}

// stepOf is one sparkline column of a window of span, at least a sample.
func (m *Model) stepOf(span time.Duration) time.Duration {
	step := span / time.Duration(max(1, m.lay.Spark))
	if iv := m.store.Interval(); step < iv {
		step = iv
	}
	return max(step, time.Nanosecond) // never 0: a step always moves
}

// updateKeys says which keys do something now and what the footer calls
// the ones whose meaning depends on the state. It is the only place that
// enables or disables a binding.
func (m *Model) updateKeys() {
	k := m.keys
	samples := m.store.Len() > 0
	gpus := len(m.info.GPUs) > 0
	last := m.store.Last()
	hints := len(m.an.shown)
	_, takesMarks := m.src.(timeline.MarkSink)

	on := func(v bool, bs ...*keymap.Binding) {
		for _, b := range bs {
			b.SetEnabled(v)
		}
	}
	on(true, &k.Quit, &k.Help, &k.Suspend, &k.Click, &k.WheelUp, &k.WheelDown)
	hintScrolls := m.hintSel > 0 && m.hintSel <= hints && m.hintDetailOverflow() > 0
	// The process table: p where there are process lists and room to show
	// them; while it has the keyboard, the arrows are its own.
	_, procsAt := m.store.ProcessesAt(last)
	m.procs.Focus = m.procs.Focus && !procsAt.IsZero() && m.procFocusRows() >= 4
	focus := m.procs.Focus
	on(!procsAt.IsZero() && m.procFocusRows() >= 4, &k.Procs)
	on(focus || m.lay.Procs > 0 && !procsAt.IsZero() || m.procsInPane(), &k.SortNext, &k.SortInvert)
	on(focus, &k.ProcUp, &k.ProcDown, &k.ProcPageUp, &k.ProcPageDown, &k.ProcFirst, &k.ProcLast, &k.LeaveProcs, &k.ProcFilter)
	_, chosen := m.selectedProcess()
	on(focus && chosen && m.canKill(), &k.Kill)
	on(m.confirm.Active, &k.KillYes, &k.KillNo)
	on(m.confirm.Active && len(m.confirm.Signals) > 1, &k.SignalPrev, &k.SignalNext)
	// A list of hosts moves before any host has described a GPU.
	hostLines := m.info.MultiHost() && m.hosts.mode == hostList && len(m.hosts.names) > 1
	on((gpus || hostLines) && !hintScrolls && !focus, &k.Up, &k.Down)
	on((gpus || hostLines) && !focus, &k.GPUPageUp, &k.GPUPageDown, &k.FirstGPU, &k.LastGPU)
	on(gpus && samples, &k.Metric)
	on(hints > 0, &k.Hint)
	on(m.hintSel > 0 && m.hintSel <= hints && !focus, &k.CloseHint)
	on(hintScrolls, &k.HintUp, &k.HintDown)
	hintOpen := m.hintSel > 0 && m.hintSel <= hints
	on(gpus && m.info.MultiHost() && m.hosts.mode == hostList, &k.OpenHost)
	on(gpus && m.info.MultiHost() && m.hosts.mode == hostOpen && !hintOpen, &k.CloseHost)
	on(samples, &k.ZoomIn, &k.ZoomOut, &k.Back, &k.Forward, &k.PageBack, &k.PageForward,
		&k.Start, &k.End, &k.GoTo, &k.PrevMark, &k.NextMark)
	on(samples, &k.Pause)
	on(!m.play.Grows, &k.Slower, &k.Faster)
	on(takesMarks, &k.Mark)
	on(m.recorder != nil, &k.Record)
	on(m.showHelp, &k.HelpUp, &k.HelpDown, &k.HelpPageUp, &k.HelpPageDown, &k.HelpFirst, &k.HelpLast)
	on(m.prompt.active, &k.Answer, &k.Cancel, &k.Erase, &k.EraseAll)

	// What the footer calls a key, where that depends on the state.
	short := func(b *keymap.Binding, does string) { b.SetHelp(b.Help().Key, does) }
	switch {
	case m.play.Motion != playback.Paused:
		short(&k.Pause, "pause")
	case m.play.Grows:
		short(&k.Pause, "live")
	default:
		short(&k.Pause, "play")
	}
	if m.play.Grows {
		short(&k.Back, "scroll")
	} else {
		short(&k.Back, "step")
	}
	if m.info.MultiHost() && m.hosts.mode == hostList {
		short(&k.Up, "host")
	} else {
		short(&k.Up, "GPU")
	}
	if m.procsInPane() {
		short(&k.Metric, "graph")
	} else {
		short(&k.Metric, "metric")
	}
	if m.hintSel > 0 {
		short(&k.Hint, "next")
	} else {
		short(&k.Hint, "hint")
	}
	if m.recorder != nil {
		if _, rec, _ := m.recorder.State(); rec {
			short(&k.Record, "stop")
		} else {
			short(&k.Record, "record")
		}
	}
}
