package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// handleKeys splits typed-ahead keys: bubbletea hands several printable
// keys that arrive together ("gG" over a slow link) to Update as one
// message, and each must still do what it says.
func (m *Model) handleKeys(k tea.KeyMsg) tea.Cmd {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return m.handleKey(k)
	}
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Sequence(cmds...)
}

// handleKey does what a key says. Keys mean the same live and in replay:
// both move a cursor over the same store.
func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	if m.prompt.active {
		return m.handlePromptKey(k)
	}
	m.note = ""
	if m.showHelp {
		switch k.String() {
		case "up", "k":
			m.helpTop--
			return nil
		case "down", "j", " ", "pgdown":
			m.helpTop++
			return nil
		}
		m.showHelp = false
		if k.String() != "q" && k.String() != "ctrl+c" {
			return nil
		}
	}
	first, last := m.store.First(), m.store.Last()
	switch k.String() {
	case "q", "ctrl+c":
		m.cancel()
		return tea.Quit
	case "?":
		m.showHelp, m.helpTop = true, 0
	case "up", "k":
		m.gpu = max(0, m.gpu-1)
	case "down", "j":
		m.gpu = min(len(m.info.GPUs)-1, m.gpu+1)
	case "tab":
		m.nextMetric()
	case "+", "=":
		m.play.zoomIn(first, last)
	case "-", "_":
		m.play.zoomOut(first, last)
	case " ":
		if m.store.Len() > 0 && m.play.togglePause(last, m.sourceDone) {
			return m.tick()
		}
	case "left":
		m.play.step(-m.columnStep(), first, last)
	case "right":
		m.play.step(m.columnStep(), first, last)
	case "pgup":
		m.play.step(-m.play.span(first, last)/2, first, last)
	case "pgdown":
		m.play.step(m.play.span(first, last)/2, first, last)
	case "g", "home":
		m.play.home(first, last)
	case "G", "end":
		m.play.end(last)
	case "<", ",":
		m.speedKey(-1)
	case ">", ".":
		m.speedKey(+1)
	case "[":
		m.jumpMarker(-1)
	case "]":
		m.jumpMarker(+1)
	case "t", "/":
		if m.store.Len() > 0 {
			m.ask("go to time (14:03, +10m, -5m):", (*Model).jumpTo)
		}
	case "h":
		m.hintSel++
		if m.hintSel > len(m.hintsAt(m.play.cursor)) {
			m.hintSel = 0
		}
	case "esc":
		m.hintSel = 0
	case "m":
		m.markKey()
	case "r":
		m.recordKey()
	}
	return nil
}

// markKey asks for a marker's text; it rides on the next sample, so it is
// recorded like any other marker.
func (m *Model) markKey() {
	sink, ok := m.src.(timeline.MarkSink)
	if !ok {
		m.note = "markers are added while sampling; this is a replay"
		return
	}
	m.ask("marker:", func(m *Model, text string) {
		sink.Mark(text)
		m.note = "marker added: " + text
	})
}

// recordKey starts or stops recording to a file.
func (m *Model) recordKey() {
	if m.recorder == nil {
		m.note = "recording is for live sessions; this is a replay"
		return
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
	span := m.play.span(m.store.First(), m.store.Last())
	step := span / time.Duration(max(1, m.lay.spark))
	if iv := m.store.Interval(); step < iv {
		step = iv
	}
	return step
}

func (m *Model) speedKey(dir int) {
	if m.play.grows {
		m.note = "speed is for replays; live runs at the speed of time"
		return
	}
	if dir > 0 {
		m.play.faster()
	} else {
		m.play.slower()
	}
}
