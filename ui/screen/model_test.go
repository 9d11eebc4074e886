package screen

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Err is the wrapped model's panic, or else the first error writing to the
// terminal, if any. A hang-up is not an error: it ends the program as a
// quit does.
func (m *Model) Err() error {
	if m.crash != nil {
		return m.crash
	}
	return m.err
}

// counter is a model whose screen shows how many ticks and keys it saw.
type counter struct{ ticks, keys int }

type tickMsg struct{}

func (c *counter) Init() tea.Cmd { return nil }
func (c *counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		c.ticks++
	case tea.KeyMsg:
		if msg.String() == "q" {
			return c, tea.Quit
		}
		c.keys++
	}
	return c, nil
}
func (c *counter) View() string { return fmt.Sprintf("ticks %d\nkeys %d", c.ticks, c.keys) }

// frames counts the writes a program makes: the renderer writes each frame
// in one.
type frames struct {
	mu   sync.Mutex
	n    int
	last bytes.Buffer
}

func (f *frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.last.Reset()
	f.last.Write(p)
	return len(p), nil
}

func (f *frames) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// TestFramesCoalesceAndKeysDrawAtOnce: a message after a quiet spell is
// drawn at once, a burst after it is one frame at the end of the frame
// interval, a key is drawn before the next message is handled, and a quiet
// program draws nothing.
func TestFramesCoalesceAndKeysDrawAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &frames{}
		p := tea.NewProgram(NewModel(&counter{}, NewRenderer(out), 200*time.Millisecond),
			tea.WithInput(nil), tea.WithoutRenderer(), tea.WithoutSignalHandler())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := p.Run(); err != nil {
				t.Error(err)
			}
		}()
		p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
		synctest.Wait()
		if out.count() != 1 {
			t.Fatalf("%d writes after the first size; want the first frame", out.count())
		}
		p.Send(tickMsg{})
		synctest.Wait()
		if out.count() != 2 {
			t.Fatalf("a sample after a quiet spell was not drawn at once: %d writes", out.count())
		}
		for i := 0; i < 49; i++ {
			p.Send(tickMsg{})
		}
		synctest.Wait()
		if out.count() != 2 {
			t.Fatalf("drew within the frame interval: %d writes", out.count())
		}
		time.Sleep(250 * time.Millisecond)
		synctest.Wait()
		if out.count() != 3 || !bytes.Contains(out.last.Bytes(), []byte("50")) {
			t.Fatalf("after 50 ticks and a frame interval: %d writes, last %q", out.count(), out.last.String())
		}
		p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}})
		synctest.Wait()
		if out.count() != 4 {
			t.Fatalf("a key was not drawn at once: %d writes", out.count())
		}
		time.Sleep(10 * time.Second)
		if out.count() != 4 {
			t.Fatalf("a quiet program drew: %d writes", out.count())
		}
		p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}})
		<-done
	})
}

type crasher struct{ counter }

func (c *crasher) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tickMsg); ok {
		var m map[string]int
		m["boom"]++
	}
	return c, nil
}

// TestPanicQuitsAndIsReported: a bug in the UI ends the program with the
// panic as its error, so the terminal is restored before it is shown.
func TestPanicQuitsAndIsReported(t *testing.T) {
	m := NewModel(&crasher{}, NewRenderer(&frames{}), time.Millisecond)
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithoutRenderer(), tea.WithoutSignalHandler())
	go p.Send(tickMsg{})
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("error after a panic: %v", err)
	}
}

// sizer is a model whose screen shows the last size it was sent and how
// many keys it saw.
type sizer struct {
	mu         sync.Mutex
	w, h, keys int
}

func (s *sizer) Init() tea.Cmd { return nil }
func (s *sizer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.w, s.h = msg.Width, msg.Height
	case tea.KeyMsg:
		s.keys++
	}
	return s, nil
}
func (s *sizer) View() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("size %dx%d\nkeys %d", s.w, s.h, s.keys)
}
func (s *sizer) seen() (w, h, keys int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w, s.h, s.keys
}

// fakeConsole stands for the terminal: a suspend returns at once, as if
// the user had typed fg, and the size is whatever the test set.
type fakeConsole struct {
	mu               sync.Mutex
	canSuspend       bool
	w, h             int
	suspends, enters int
}

func (c *fakeConsole) suspend() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.suspends++
	return c.canSuspend, nil
}

func (c *fakeConsole) enter() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enters++
	return nil
}

func (c *fakeConsole) shown() bool { return true }

func (c *fakeConsole) size() (int, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w, c.h, nil
}

func (c *fakeConsole) resize(w, h int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w, c.h = w, h
}

func (c *fakeConsole) calls() (suspends, enters int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.suspends, c.enters
}

// startOn runs a program of m with no input; the returned func quits it
// and waits for its end.
func startOn(t *testing.T, m *Model) (*tea.Program, func()) {
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Run(); err != nil {
			t.Error(err)
		}
	}()
	return p, func() { p.Quit(); <-done }
}

var ctrlZ = tea.KeyMsg{Type: tea.KeyCtrlZ}

// shows is the screen of a w x h terminal after a frame drawn whole: the
// frame must start by clearing it, since the terminal may show anything.
func shows(t *testing.T, frame []byte, w, h int) string {
	t.Helper()
	if !bytes.HasPrefix(frame, []byte("\x1b[m\x1b[H\x1b[2J")) {
		t.Fatalf("not a whole frame: %q", frame)
	}
	term := newVT(w, h)
	term.write([]byte(strings.Repeat("#", w*h-1)))
	if err := term.write(frame); err != nil {
		t.Fatal(err)
	}
	return term.text()
}

// TestCtrlZSuspendsAndRedrawsWhole: Ctrl-Z goes to the terminal, not the
// wrapped model, and on resume the whole screen is drawn again at the size
// the terminal has then, even if nothing in the view changed.
func TestCtrlZSuspendsAndRedrawsWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, inner := &frames{}, &sizer{}
		con := &fakeConsole{canSuspend: true, w: 20, h: 3}
		m := NewModel(inner, NewRenderer(out), 200*time.Millisecond)
		m.con = con
		p, quit := startOn(t, m)
		defer quit()
		p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
		synctest.Wait()

		p.Send(ctrlZ)
		synctest.Wait()
		if s, _ := con.calls(); s != 1 {
			t.Fatalf("%d suspends after Ctrl-Z", s)
		}
		if _, _, keys := inner.seen(); keys != 0 {
			t.Fatal("Ctrl-Z reached the wrapped model")
		}
		if out.count() != 2 {
			t.Fatalf("%d frames after a resume; want the first and one whole", out.count())
		}
		want := "size 20x3           \nkeys 0              \n                    \n"
		if got := shows(t, out.last.Bytes(), 20, 3); got != want {
			t.Fatalf("after a resume the screen shows\n%s", got)
		}

		con.resize(30, 4) // while stopped
		p.Send(ctrlZ)
		synctest.Wait()
		if w, h, keys := inner.seen(); w != 30 || h != 4 || keys != 0 {
			t.Fatalf("after a resume at 30x4 the model saw %dx%d and %d keys", w, h, keys)
		}
		if got := shows(t, out.last.Bytes(), 30, 4); !strings.HasPrefix(got, "size 30x4 ") {
			t.Fatalf("after a resume at 30x4 the screen shows\n%s", got)
		}
	})
}

// TestContRedrawsWhole: after a stop from outside (kill -STOP), SIGCONT
// sets the terminal up again and draws the whole screen.
func TestContRedrawsWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, inner := &frames{}, &sizer{}
		con := &fakeConsole{w: 20, h: 3}
		m := NewModel(inner, NewRenderer(out), 200*time.Millisecond)
		m.con = con
		p, quit := startOn(t, m)
		defer quit()
		p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
		synctest.Wait()
		p.Send(contMsg{})
		synctest.Wait()
		if _, e := con.calls(); e != 1 {
			t.Fatalf("%d enters after SIGCONT", e)
		}
		if got := shows(t, out.last.Bytes(), 20, 3); !strings.HasPrefix(got, "size 20x3 ") {
			t.Fatalf("after SIGCONT the screen shows\n%s", got)
		}
	})
}

// TestCtrlZWithoutSuspendDoesNothing: where the program cannot be
// suspended (no console, or input not a terminal), Ctrl-Z draws nothing
// and still never reaches the wrapped model.
func TestCtrlZWithoutSuspendDoesNothing(t *testing.T) {
	for _, con := range []console{nil, &fakeConsole{w: 20, h: 3}} {
		synctest.Test(t, func(t *testing.T) {
			out, inner := &frames{}, &sizer{}
			m := NewModel(inner, NewRenderer(out), 200*time.Millisecond)
			m.con = con
			p, quit := startOn(t, m)
			defer quit()
			p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
			p.Send(ctrlZ)
			synctest.Wait()
			if _, _, keys := inner.seen(); keys != 0 || out.count() != 1 {
				t.Fatalf("Ctrl-Z with %T: the model saw %d keys, %d frames drawn", con, keys, out.count())
			}
		})
	}
}

// hungUp is a terminal after the SSH session ended.
type hungUp struct{}

func (hungUp) Write([]byte) (int, error) { return 0, syscall.EIO }

// TestHangUpQuits: once the terminal is gone, the program ends, and that
// is not an error anyone can be shown.
func TestHangUpQuits(t *testing.T) {
	m := NewModel(&counter{}, NewRenderer(hungUp{}), time.Millisecond)
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithoutRenderer(), tea.WithoutSignalHandler())
	go p.Send(tea.WindowSizeMsg{Width: 20, Height: 3})
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	if m.Err() != nil || !m.gone {
		t.Fatalf("after a hang-up: Err %v, gone %v", m.Err(), m.gone)
	}
}
