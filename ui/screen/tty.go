package screen

import (
	"cmp"
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
	// Mouse buttons and the wheel, reported in SGR form (1006), which has
	// no limit on columns; not motion, which would wake gputop for every
	// move across the screen. bubbletea's reader decodes them.
	mouseOn  = "\x1b[?1000h\x1b[?1006h"
	mouseOff = "\x1b[?1006l\x1b[?1000l"
)

// stopGrace is how long a suspend waits for SIGCONT before it concludes
// that the process was never stopped.
const stopGrace = 250 * time.Millisecond

// tty is the terminal Run draws on, as a Model's console.
type tty struct {
	ctx     context.Context // once done, nothing waits for SIGCONT
	in, out *os.File
	rawIn   bool        // in is a terminal: its modes are ours to set
	mouse   bool        // report the mouse while the screen is shown
	saved   *term.State // in's modes before the first enter
	entered bool        // raw mode and the alternate screen are set
	// canStop says a shell can continue the process once stopped.
	canStop bool
	// stop stops the process group as a shell's Ctrl-Z does, and fg says
	// whether the process group is the terminal's foreground job; tests
	// replace them, as `go test` must not stop and has no terminal.
	stop func() error
	fg   func() bool
	// input turns bubbletea's reading of keys off and on again. It is off
	// while the shell has the terminal: a read by a background job stops
	// it (SIGTTIN), at the user's next key, and bash, not seeing that stop
	// in time, may answer the fg being typed with "Stopped (tty input)".
	input   func(on bool) error
	reading bool

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
		fg:      func() bool { return foreground(out) },
		reading: true, // bubbletea starts reading as it starts
		woke:    make(chan struct{}, 1),
	}
}

// foreground says whether gputop is the foreground job of f's terminal,
// or f is not its controlling terminal. A background job must not touch
// the terminal: the shell owns it, and setting modes would stop gputop
// (SIGTTOU) in a way even SIGTERM cannot end, as the stopped call starts
// again on SIGCONT.
func foreground(f *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err != nil || pgrp == unix.Getpgrp()
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
// hidden, unless the program is ending or is a background job (bg). In
// the background it runs unseen until fg, which sends SIGCONT.
func (t *tty) enter() error {
	if t.ctx.Err() != nil {
		return nil
	}
	if !t.fg() {
		t.entered = false
		return t.read(false)
	}
	if t.rawIn {
		// bubbletea leaves raw mode to its own renderer; with ours it is
		// ours to set.
		st, err := term.MakeRaw(t.in.Fd())
		if err != nil {
			return err
		}
		t.saved = cmp.Or(t.saved, st) // the modes before the first enter
	}
	t.entered = true
	seq := enterScreen
	if t.mouse {
		seq += mouseOn
	}
	_, err := t.out.WriteString(seq)
	readErr := t.read(true) // whether or not the write failed
	return cmp.Or(err, readErr)
}

// read turns the reading of keys on or off, if it is not already.
func (t *tty) read(on bool) error {
	if t.input == nil || t.reading == on {
		return nil
	}
	t.reading = on
	return t.input(on)
}

// leave shows the shell's screen and cursor again and restores the modes
// the terminal had before enter, as far as it still can. A background job
// leaves the terminal alone: the shell has set its own modes.
func (t *tty) leave() error {
	shown := t.shown()
	t.entered = false
	if !shown {
		return nil
	}
	seq := leaveScreen
	if t.mouse {
		seq = mouseOff + seq
	}
	_, err := t.out.WriteString(seq)
	if t.saved != nil {
		restoreErr := term.Restore(t.in.Fd(), t.saved) // whether or not the write failed
		err = cmp.Or(err, restoreErr)
	}
	return err
}

// shown says the screen is gputop's to draw on.
func (t *tty) shown() bool { return t.entered && t.fg() }

func (t *tty) size() (w, h int, err error) { return term.GetSize(t.out.Fd()) }

// suspend does what a shell's Ctrl-Z would if raw mode let the terminal
// send SIGTSTP: it gives the terminal back, stops the process group (the
// shell shows its prompt), and when continued by fg takes the terminal
// again. Without a terminal for input, or without job control, there is
// nothing to give back or no way to stop, and it does nothing, as Ctrl-Z
// does in cooked mode then.
func (t *tty) suspend() (bool, error) {
	if !t.rawIn || !t.canStop || !t.shown() {
		return false, nil
	}
	if err := t.read(false); err != nil {
		return false, err
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
	select {
	case <-t.woke:
		return
	case <-t.ctx.Done():
		return
	case <-time.After(stopGrace):
	}
	if time.Since(start) < 2*stopGrace {
		return
	}
	select {
	case <-t.woke:
	case <-t.ctx.Done():
	case <-time.After(time.Second):
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
