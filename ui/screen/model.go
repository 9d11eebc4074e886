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
// typed. Anything else (samples, ticks) marks the screen dirty and one
// frame is drawn after FrameEvery, however many messages came meanwhile;
// with nothing arriving, nothing wakes up.
type Model struct {
	inner      tea.Model
	r          *Renderer
	frameEvery time.Duration
	pending    bool   // a frame message is on its way
	last       string // the view last drawn
	err        error
	// crash is a panic in the wrapped model, caught so the terminal can be
	// restored before it is reported.
	crash error
}

// frameMsg asks for the frame that collects the messages since the last.
type frameMsg struct{}

// NewModel wraps inner; frames go to r at most every frameEvery unless a
// key asks sooner.
func NewModel(inner tea.Model, r *Renderer, frameEvery time.Duration) *Model {
	return &Model{inner: inner, r: r, frameEvery: frameEvery}
}

// Inner is the wrapped model.
func (m *Model) Inner() tea.Model { return m.inner }

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
		m.pending = false
		m.draw()
		return m, nil
	}
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		m.r.Resize(size.Width, size.Height)
		m.last = ""
	}
	m.inner, cmd = m.inner.Update(msg)
	switch msg.(type) {
	case tea.KeyMsg, tea.WindowSizeMsg:
		m.draw()
	default:
		if !m.pending {
			m.pending = true
			cmd = tea.Batch(cmd, tea.Tick(m.frameEvery, func(time.Time) tea.Msg { return frameMsg{} }))
		}
	}
	return m, cmd
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
