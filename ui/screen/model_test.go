package screen

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

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
