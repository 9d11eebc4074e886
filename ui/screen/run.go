package screen

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

const (
	enterScreen = "\x1b[?1049h\x1b[?25l" // alternate screen, cursor hidden
	leaveScreen = "\x1b[m\x1b[?25h\x1b[?1049l"
)

// Run runs inner on the terminal of stdin and stdout until it quits: raw
// input, the alternate screen, size changes sent as tea.WindowSizeMsg, and
// frames drawn by a Renderer at most every frameEvery. The terminal is
// restored however the program ends, before a crash is reported.
func Run(inner tea.Model, frameEvery time.Duration) error {
	in, out := os.Stdin, os.Stdout
	if !term.IsTerminal(out.Fd()) {
		return errors.New("the screen needs a terminal")
	}
	if term.IsTerminal(in.Fd()) {
		// bubbletea leaves raw mode to its own renderer; with ours it is
		// ours to set.
		saved, err := term.MakeRaw(in.Fd())
		if err != nil {
			return err
		}
		defer term.Restore(in.Fd(), saved)
	}
	if _, err := out.WriteString(enterScreen); err != nil {
		return err
	}
	defer out.WriteString(leaveScreen)

	m := NewModel(inner, NewRenderer(out), frameEvery)
	p := tea.NewProgram(m, tea.WithoutRenderer())
	stop := watchSize(p, out)
	defer stop()
	_, err := p.Run()
	if m.Err() != nil {
		return m.Err()
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		// bubbletea caught it in a command and printed it on the alternate
		// screen, which is gone once we leave it.
		return errors.New("gputop crashed in a background task (a bug; please report it)")
	}
	return err
}

// watchSize sends the terminal's size now and after every SIGWINCH.
func watchSize(p *tea.Program, out *os.File) (stop func()) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			if w, h, err := term.GetSize(out.Fd()); err == nil {
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-winch:
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(winch)
		close(done)
	}
}
