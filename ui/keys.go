package ui

import (
	"math"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
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
		m.refreshAnalysis()
		m.updateKeys()
	}
	return tea.Sequence(cmds...)
}

// handleKey does what a key says, matching it against the key table
// (keymap.go). Keys mean the same live and in replay: both move a cursor
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
				p.Zoom = playback.DefaultZoom(m.lay.spark, m.info.Interval)
			}
		}()
	}
	if m.prompt.active {
		return m.handlePromptKey(k)
	}
	if m.confirm.active {
		return m.handleConfirmKey(k)
	}
	keys := m.keys
	m.note = ""
	if m.showHelp {
		page := max(1, m.height-2) // a page, less a line kept from the last
		switch {
		case key.Matches(k, keys.helpUp.Binding):
			m.helpTop--
			return nil
		case key.Matches(k, keys.helpDown.Binding):
			m.helpTop++
			return nil
		case key.Matches(k, keys.helpPageUp.Binding):
			m.helpTop -= page
			return nil
		case key.Matches(k, keys.helpPageDown.Binding):
			m.helpTop += page
			return nil
		case key.Matches(k, keys.helpFirst.Binding):
			m.helpTop = 0
			return nil
		case key.Matches(k, keys.helpLast.Binding):
			m.helpTop = math.MaxInt / 2 // viewHelp stops it at the last page
			return nil
		}
		// Any other key closes the help; quit quits as well.
		m.showHelp = false
		if !key.Matches(k, keys.quit.Binding) {
			return nil
		}
	}
	first, last := m.store.First(), m.store.Last()
	switch {
	case key.Matches(k, keys.quit.Binding):
		m.cancel()
		return tea.Quit
	case key.Matches(k, keys.help.Binding):
		m.showHelp, m.helpTop = true, 0
	case key.Matches(k, keys.procUp.Binding):
		m.moveSel(-1)
	case key.Matches(k, keys.procDown.Binding):
		m.moveSel(+1)
	case key.Matches(k, keys.procPageUp.Binding):
		m.moveSel(-max(1, m.procs.visible))
	case key.Matches(k, keys.procPageDown.Binding):
		m.moveSel(max(1, m.procs.visible))
	case key.Matches(k, keys.procFirst.Binding):
		m.moveSel(math.MinInt)
	case key.Matches(k, keys.procLast.Binding):
		m.moveSel(math.MaxInt)
	case key.Matches(k, keys.procs.Binding):
		m.procs.focus = !m.procs.focus
		m.hintSel, m.hintTop = 0, 0
	case key.Matches(k, keys.leaveProcs.Binding):
		m.procs.focus = false
	case key.Matches(k, keys.procFilter.Binding):
		m.filterKey()
	case key.Matches(k, keys.sortNext.Binding):
		m.procs.sortBy = (m.procs.sortBy + 1) % procColumns
		m.note = "processes by " + procColumnNames[m.procs.sortBy]
	case key.Matches(k, keys.sortInvert.Binding):
		m.procs.invert = !m.procs.invert
	case key.Matches(k, keys.kill.Binding):
		m.killKey()
	case key.Matches(k, keys.hintUp.Binding):
		m.hintTop = max(0, m.hintTop-1)
	case key.Matches(k, keys.hintDown.Binding):
		m.hintTop = min(m.hintDetailOverflow(), m.hintTop+1)
	case m.info.MultiHost() && m.hostKey(keys, func(b *binding) bool { return key.Matches(k, b.Binding) }):
	case key.Matches(k, keys.up.Binding):
		m.gpu = max(0, m.gpu-1)
	case key.Matches(k, keys.down.Binding):
		m.gpu = min(len(m.info.GPUs)-1, m.gpu+1)
	case key.Matches(k, keys.gpuPageUp.Binding):
		m.gpu = max(0, m.gpu-max(1, m.lay.gpusShown))
	case key.Matches(k, keys.gpuPageDown.Binding):
		m.gpu = min(len(m.info.GPUs)-1, m.gpu+max(1, m.lay.gpusShown))
	case key.Matches(k, keys.firstGPU.Binding):
		m.gpu = 0
	case key.Matches(k, keys.lastGPU.Binding):
		m.gpu = len(m.info.GPUs) - 1
	case key.Matches(k, keys.metric.Binding):
		m.nextMetric()
	case key.Matches(k, keys.zoomIn.Binding):
		m.play.ZoomIn(first, last)
	case key.Matches(k, keys.zoomOut.Binding):
		m.play.ZoomOut(first, last)
	case key.Matches(k, keys.pause.Binding):
		if m.play.TogglePause(first, last) {
			return m.tick()
		}
	case key.Matches(k, keys.back.Binding):
		m.play.Step(-m.columnStep(), first, last)
	case key.Matches(k, keys.forward.Binding):
		m.play.Step(m.columnStep(), first, last)
	case key.Matches(k, keys.pageBack.Binding):
		m.play.Step(-m.play.Span(first, last)/2, first, last)
	case key.Matches(k, keys.pageForward.Binding):
		m.play.Step(m.play.Span(first, last)/2, first, last)
	case key.Matches(k, keys.start.Binding):
		m.play.Home(first, last)
	case key.Matches(k, keys.end.Binding):
		m.play.End(last)
	case key.Matches(k, keys.slower.Binding):
		m.play.Slower()
	case key.Matches(k, keys.faster.Binding):
		m.play.Faster()
	case key.Matches(k, keys.prevMark.Binding):
		m.jumpMarker(-1)
	case key.Matches(k, keys.nextMark.Binding):
		m.jumpMarker(+1)
	case key.Matches(k, keys.goTo.Binding):
		m.ask("go to time (14:03, +10m, -5m):", (*Model).jumpTo)
	case key.Matches(k, keys.hint.Binding):
		m.procs.focus = false
		m.hintSel, m.hintTop = m.hintSel+1, 0
		if m.hintSel > len(m.an.shown) {
			m.hintSel = 0
		}
	case key.Matches(k, keys.closeHint.Binding):
		m.hintSel, m.hintTop = 0, 0
	case key.Matches(k, keys.mark.Binding):
		m.markKey()
	case key.Matches(k, keys.record.Binding):
		m.recordKey()
	default:
		// keys.suspend is never matched: ui/screen takes ctrl+z first.
		m.note = keys.whyNot(k.String())
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
	span := m.play.Span(m.store.First(), m.store.Last())
	step := span / time.Duration(max(1, m.lay.spark))
	if iv := m.store.Interval(); step < iv {
		step = iv
	}
	return step
}
