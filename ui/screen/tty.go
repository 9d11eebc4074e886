package screen

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

const (
	enterScreen = "\x1b[?1049h\x1b[?25l" // alternate screen, cursor hidden
	leaveScreen = "\x1b[m\x1b[?25h\x1b[?1049l"
)

// stopGrace is how long a suspend waits for SIGCONT before it concludes
// that the process was never stopped.
const stopGrace = 250 * time.Millisecond

// tty is the terminal Run draws on, as a Model's console.
type tty struct {
	ctx     context.Context // once done, nothing waits for SIGCONT
	in, out *os.File
	rawIn   bool        // in is a terminal: its modes are ours to set
	saved   *term.State // in's modes before the first enter
	// canStop says a shell can continue the process once stopped.
	canStop bool
	// stop stops the process group as a shell's Ctrl-Z does; tests, which
	// must not stop `go test`, replace it.
	stop func() error

	mu         sync.Mutex
	suspending bool
	woke       chan struct{} // a SIGCONT during a suspend
}

func newTTY(ctx context.Context, in, out *os.File) *tty {
	return &tty{
		ctx: ctx, in: in, out: out,
		rawIn:   term.IsTerminal(in.Fd()),
		canStop: jobControl(),
		stop:    func() error { return syscall.Kill(0, syscall.SIGTSTP) },
		woke:    make(chan struct{}, 1),
	}
}

// jobControl says whether a stopped gputop could be continued. Not if
// SIGTSTP is ignored, nor if gputop's process group is its session
// leader's: that is gputop run with no job-control shell in between (by
// ssh, tmux or a script), and the kernel drops a stop signal to such a
// group, as no one could continue it.
func jobControl() bool {
	sid, err := unix.Getsid(0)
	return !signal.Ignored(syscall.SIGTSTP) && (err != nil || sid != unix.Getpgrp())
}

// enter sets raw mode and shows the alternate screen, with the cursor
// hidden. Raw mode goes first: in a background job it stops the process
// (SIGTTOU) before anything is drawn over the shell, until fg.
func (t *tty) enter() error {
	if t.rawIn {
		// bubbletea leaves raw mode to its own renderer; with ours it is
		// ours to set.
		st, err := term.MakeRaw(t.in.Fd())
		if err != nil {
			return err
		}
		if t.saved == nil {
			t.saved = st
		}
	}
	_, err := t.out.WriteString(enterScreen)
	return err
}

// leave shows the shell's screen and cursor again and restores the modes
// the terminal had before enter, as far as it still can.
func (t *tty) leave() error {
	_, err := t.out.WriteString(leaveScreen)
	if t.saved != nil {
		if e := term.Restore(t.in.Fd(), t.saved); err == nil {
			err = e
		}
	}
	return err
}

func (t *tty) size() (w, h int, err error) { return term.GetSize(t.out.Fd()) }

// suspend does what a shell's Ctrl-Z would if raw mode let the terminal
// send SIGTSTP: it gives the terminal back, stops the process group (the
// shell shows its prompt), and when continued takes the terminal again.
// Without a terminal for input, or without job control, there is nothing
// to give back or no way to stop, and it does nothing, as Ctrl-Z does in
// cooked mode then.
func (t *tty) suspend() (bool, error) {
	if !t.rawIn || !t.canStop {
		return false, nil
	}
	t.mu.Lock()
	t.suspending = true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.suspending = false
		select {
		case <-t.woke:
		default:
		}
		t.mu.Unlock()
	}()
	if err := t.leave(); err != nil {
		return true, err
	}
	start := time.Now()
	if err := t.stop(); err == nil {
		t.awaitCont(start)
	}
	return true, t.enter()
}

// awaitCont waits until the process runs again after t.stop. It usually
// learns so from SIGCONT; but the kernel does not stop a process group no
// shell could continue (an orphaned one, which jobControl does not always
// spot), and then no SIGCONT comes. A timer tells the cases apart: one
// that fires on time ran while nothing was stopped; one that fires late
// was held up by the stop, and SIGCONT is on its way.
func (t *tty) awaitCont(start time.Time) {
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-t.woke:
		return
	case <-t.ctx.Done():
		return
	case <-timer.C:
	}
	if time.Since(start) < 2*stopGrace {
		return
	}
	timer.Reset(time.Second)
	select {
	case <-t.woke:
	case <-t.ctx.Done():
	case <-timer.C:
	}
}

// continued hands a SIGCONT to a suspend waiting for it, and says whether
// one was.
func (t *tty) continued() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.suspending {
		return false
	}
	select {
	case t.woke <- struct{}{}:
	default:
	}
	return true
}
