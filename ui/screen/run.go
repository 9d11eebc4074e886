package screen

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// Run runs inner on the terminal of stdin and stdout until it quits or ctx
// is done: raw input, the alternate screen, size changes sent as
// tea.WindowSizeMsg, and frames drawn by a Renderer at most every
// frameEvery. Ctrl-Z suspends it as in a shell (unless stdin is not a
// terminal or no shell with job control could continue it), and after any
// stop, kill -STOP too, it takes the terminal back and draws it whole.
//
// Run handles no signal that ends a program: the caller catches SIGHUP,
// SIGTERM, SIGINT and SIGQUIT and cancels ctx. Run then ends as if the
// user had quit, restores the terminal as far as it still can, and returns
// nil; so it does when the terminal hangs up, which is how an SSH session
// ends. The terminal is restored however the program ends, before a crash
// is reported. With mouse, the terminal reports clicks and the wheel
// (tea.MouseMsg) while the screen is shown, and stops on leaving it (a
// suspend, the end).
func Run(ctx context.Context, inner tea.Model, frameEvery time.Duration, mouse bool) error {
	t := newTTY(ctx, os.Stdin, os.Stdout)
	t.mouse = mouse
	return run(t, inner, frameEvery)
}

func run(t *tty, inner tea.Model, frameEvery time.Duration) error {
	if !term.IsTerminal(t.out.Fd()) {
		return errors.New("the screen needs a terminal")
	}
	if err := t.enter(); err != nil {
		t.leave()
		return err
	}
	defer t.leave()

	m := NewModel(inner, NewRenderer(t.out), frameEvery)
	m.con = t
	opts := []tea.ProgramOption{tea.WithoutRenderer(), tea.WithoutSignalHandler()}
	if t.rawIn {
		opts = append(opts, tea.WithInput(t.in))
	} // else bubbletea reads keys from /dev/tty
	p := tea.NewProgram(m, opts...)
	t.input = func(on bool) error {
		// Called in Update, as bubbletea's own suspend does. Without a
		// renderer of its own, bubbletea does little more here than stop
		// and start its reader.
		if on {
			return p.RestoreTerminal()
		}
		return p.ReleaseTerminal()
	}
	stop := watch(p, t)
	defer stop()
	_, err := p.Run()
	t.input = nil // the program, and its reading, are over
	switch {
	case m.crash != nil:
		return m.crash
	case t.ctx.Err() != nil, m.gone, errors.Is(err, syscall.EIO):
		// Ended from outside, or the terminal is gone: neither is a failure
		// to show, and there is nowhere left to show it.
		return nil
	case m.err != nil:
		return m.err
	case errors.Is(err, tea.ErrProgramPanic):
		// bubbletea caught it in a command and printed it on the alternate
		// screen, which is gone once we leave it.
		return errors.New("gputop crashed in a background task (a bug; please report it)")
	}
	return err
}

// watch sends the terminal's size now and after every SIGWINCH, tells the
// program when it is continued (SIGCONT) after a stop that was not its own
// Ctrl-Z, and quits it when t.ctx is done. A quit rather than
// tea.WithContext: bubbletea's kill closes the input while its reader may
// still use it.
func watch(p *tea.Program, t *tty) (stop func()) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	done := make(chan struct{})
	go func() {
		for {
			if w, h, err := t.size(); err == nil {
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-winch:
			case <-done:
				return
			}
		}
	}()
	go func() {
		for {
			select {
			case <-cont:
				if !t.continued() {
					p.Send(contMsg{})
				}
			case <-t.ctx.Done():
				p.Quit()
				return
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(winch)
		signal.Stop(cont)
		close(done)
	}
}
