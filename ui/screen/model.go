package screen

import (
	"fmt"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Model runs a bubbletea model with this package's renderer. It is meant
// for a program started with tea.WithoutRenderer: its own View is empty.
//
// A key or a resize is drawn at once, so the screen answers the hand that
// typed. Anything else (samples, ticks) is drawn at once too if no frame
// was drawn in the last frameEvery; otherwise it waits for the end of
// that interval, and however many messages came meanwhile make one frame.
// So a sample a second is on screen as it arrives, a replay at 64x draws
// five frames a second, and with nothing arriving, nothing wakes up.
type Model struct {
	inner      tea.Model
	r          *Renderer
	frameEvery time.Duration
	pending    bool   // a frame interval is running: a frameMsg is on its way
	dirty      bool   // messages came during the interval; draw at its end
	last       string // the view last drawn
	err        error
	// crash is a panic in the wrapped model, caught so the terminal can be
	// restored before it is reported.
	crash error
}

// frameMsg ends a frame interval.
type frameMsg struct{}

// NewModel wraps inner; frames go to r at most every frameEvery unless a
// key asks sooner.
func NewModel(inner tea.Model, r *Renderer, frameEvery time.Duration) *Model {
	return &Model{inner: inner, r: r, frameEvery: frameEvery}
}

// Err is the wrapped model's panic, or else the first error writing to the
// terminal, if any.
func (m *Model) Err() error {
	if m.crash != nil {
		return m.crash
	}
	return m.err
}

func (m *Model) Init() (cmd tea.Cmd) {
	var self tea.Model
	defer m.catch(&self, &cmd)
	return m.inner.Init()
}

// catch turns a panic of the wrapped model into a quit and remembers it.
func (m *Model) catch(self *tea.Model, cmd *tea.Cmd) {
	if r := recover(); r != nil {
		*self = m
		m.crash = fmt.Errorf("gputop crashed (a bug; please report it): %v\n%s", r, debug.Stack())
		*cmd = tea.Quit
	}
}

func (m *Model) Update(msg tea.Msg) (self tea.Model, cmd tea.Cmd) {
	defer m.catch(&self, &cmd)
	if _, ok := msg.(frameMsg); ok {
		if !m.dirty {
			m.pending = false
			return m, nil
		}
		m.dirty = false
		m.draw()
		return m, m.interval()
	}
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		m.r.Resize(size.Width, size.Height)
		m.last = ""
	}
	m.inner, cmd = m.inner.Update(msg)
	switch msg.(type) {
	case tea.KeyMsg, tea.WindowSizeMsg:
		m.dirty = false
		m.draw()
	default:
		if m.pending {
			m.dirty = true
		} else {
			m.draw()
			cmd = tea.Batch(cmd, m.interval())
		}
	}
	return m, cmd
}

// interval starts a frame interval: until it ends, messages wait.
func (m *Model) interval() tea.Cmd {
	m.pending = true
	return tea.Tick(m.frameEvery, func(time.Time) tea.Msg { return frameMsg{} })
}

// View is empty: the frames are drawn by the renderer.
func (m *Model) View() string { return "" }

func (m *Model) draw() {
	v := m.inner.View()
	if v == m.last {
		return
	}
	m.last = v
	if err := m.r.Render(v); err != nil && m.err == nil {
		m.err = err
	}
}
