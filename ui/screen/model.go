package screen

import (
	"errors"
	"fmt"
	"runtime/debug"
	"syscall"
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
//
// Ctrl-Z is the Model's, never the wrapped model's: under Run it suspends
// the program as a shell's Ctrl-Z would, elsewhere it does nothing.
type Model struct {
	inner      tea.Model
	r          *Renderer
	con        console // nil: no terminal to give back, Ctrl-Z does nothing
	frameEvery time.Duration
	pending    bool   // a frame interval is running: a frameMsg is on its way
	dirty      bool   // messages came during the interval; draw at its end
	last       string // the view last drawn
	err        error
	gone       bool // the terminal hung up: the program ends
	// crash is a panic in the wrapped model, caught so the terminal can be
	// restored before it is reported.
	crash error
}

// frameMsg ends a frame interval.
type frameMsg struct{}

// contMsg says the process was continued (SIGCONT) other than at the end
// of the Model's own Ctrl-Z: after kill -STOP or kill -TSTP from
// elsewhere, or by fg after bg.
type contMsg struct{}

// console is the terminal a Model draws on, for handing it to the shell
// and taking it back.
type console interface {
	// suspend leaves the screen, restores the terminal's modes, stops the
	// process group and, once continued, enters the screen again. It says
	// false, having done nothing, if the program cannot be suspended.
	suspend() (bool, error)
	// enter takes the terminal again (raw mode, the alternate screen,
	// keys read), unless the program is a background job.
	enter() error
	// shown says the screen is the Model's to draw on: not while the
	// program is a background job, nor once it has left the screen.
	shown() bool
	// size is the terminal's size now.
	size() (w, h int, err error)
}

// NewModel wraps inner; frames go to r at most every frameEvery unless a
// key asks sooner.
func NewModel(inner tea.Model, r *Renderer, frameEvery time.Duration) *Model {
	return &Model{inner: inner, r: r, frameEvery: frameEvery}
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
	cmd = m.update(msg)
	if m.gone {
		return m, tea.Quit
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (cmd tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		if !m.dirty {
			m.pending = false
			return nil
		}
		m.dirty = false
		m.draw()
		return m.interval()
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlZ {
			return m.suspend()
		}
	case contMsg:
		return m.cont()
	case tea.WindowSizeMsg:
		m.r.Resize(msg.Width, msg.Height)
		m.last = ""
	}
	m.inner, cmd = m.inner.Update(msg)
	switch msg.(type) {
	case tea.KeyMsg, tea.WindowSizeMsg, tea.MouseMsg:
		// What a person did is drawn at once.
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
	return cmd
}

// cont takes the terminal back after a SIGCONT: a shell's fg may have reset
// its modes, and it shows whatever was drawn on it while gputop was
// stopped.
func (m *Model) cont() tea.Cmd {
	if m.con == nil {
		return nil
	}
	m.fail(m.con.enter())
	if !m.con.shown() {
		return nil // continued as a background job: unseen until fg
	}
	return m.retake()
}

// suspend hands the terminal to the shell until the program is continued,
// then draws everything again.
func (m *Model) suspend() tea.Cmd {
	if m.con == nil {
		return nil
	}
	ok, err := m.con.suspend()
	m.fail(err)
	if !ok || !m.con.shown() {
		return nil
	}
	return m.retake()
}

// retake draws the whole screen on a terminal that was someone else's for
// a while: its size may have changed, and what it shows is unknown.
func (m *Model) retake() tea.Cmd {
	if w, h, err := m.con.size(); err == nil {
		// As a resize: the renderer starts afresh, and the wrapped model
		// lays out for the size.
		return m.update(tea.WindowSizeMsg{Width: w, Height: h})
	}
	m.r.Invalidate()
	m.last = ""
	m.draw()
	return nil
}

// interval starts a frame interval: until it ends, messages wait.
func (m *Model) interval() tea.Cmd {
	m.pending = true
	return tea.Tick(m.frameEvery, func(time.Time) tea.Msg { return frameMsg{} })
}

// View is empty: the frames are drawn by the renderer.
func (m *Model) View() string { return "" }

func (m *Model) draw() {
	if m.con != nil && !m.con.shown() {
		return // the shell has the terminal; a SIGCONT will bring it back
	}
	v := m.inner.View()
	if v == m.last {
		return
	}
	m.last = v
	m.fail(m.r.Render(v))
}

// fail remembers the first error from the terminal. EIO means it hung up
// (the SSH session ended): nothing can be drawn any more, so the program
// ends, and nobody is left to read why.
func (m *Model) fail(err error) {
	switch {
	case err == nil:
	case errors.Is(err, syscall.EIO):
		m.gone = true
	case m.err == nil:
		m.err = err
	}
}
