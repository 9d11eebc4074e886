//go:build linux

package screen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/sys/unix"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// These tests run Run's innards on a pseudo-terminal: the terminal's modes
// and a hang-up are the kernel's, not a fake's.

// openPTY opens a pseudo-terminal of w x h. Closing the master hangs the
// terminal up, as the end of an SSH session does.
func openPTY(t *testing.T, w, h int) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		timelinetest.Unavailable(t, "no pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	setSize(t, master, w, h)
	return master, slave
}

func setSize(t *testing.T, f *os.File, w, h int) {
	if err := unix.IoctlSetWinsize(int(f.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)}); err != nil {
		t.Fatal(err)
	}
}

// cooked says the terminal is in the mode a shell expects: lines, echo,
// and keys like Ctrl-C turned into signals.
func cooked(t *testing.T, f *os.File) bool {
	tio, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	const modes = unix.ICANON | unix.ECHO | unix.ISIG
	return tio.Lflag&modes == modes
}

// screenLog is what the program wrote to the terminal, read from the
// master side as it comes.
type screenLog struct {
	mu   sync.Mutex
	b    bytes.Buffer
	more chan struct{} // closed and replaced on each read
}

func readScreen(master *os.File) *screenLog {
	l := &screenLog{more: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			l.mu.Lock()
			l.b.Write(buf[:n])
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return l
}

// waitFor waits until s has been written since byte from, and returns
// where it ends.
func (l *screenLog) waitFor(t *testing.T, from int, s string) int {
	t.Helper()
	deadline := time.After(10 * time.Second) // only if it never comes
	for {
		l.mu.Lock()
		i := bytes.Index(l.b.Bytes()[from:], []byte(s))
		more, all := l.more, l.b.String()
		l.mu.Unlock()
		if i >= 0 {
			return from + i + len(s)
		}
		select {
		case <-more:
		case <-deadline:
			got := all[from:]
			if len(got) > 400 {
				got = "…" + got[len(got)-400:]
			}
			t.Fatalf("%q never written; the terminal got %q", s, got)
		}
	}
}

func (l *screenLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runOn runs inner on the pseudo-terminal slave; stop stands for stopping
// the process group, which a test must not really do, and fg, if not nil,
// says whether the program is the terminal's foreground job.
func runOn(ctx context.Context, slave *os.File, inner tea.Model, stop func(*tty) error, fg *atomic.Bool) (*tty, <-chan error) {
	tt := newTTY(ctx, slave, slave)
	tt.canStop = true // whatever job control `go test` runs under
	tt.stop = func() error { return stop(tt) }
	if fg != nil {
		tt.fg = fg.Load
	}
	errc := make(chan error, 1)
	go func() { errc <- run(tt, inner, 10*time.Millisecond) }()
	return tt, errc
}

func noStop(t *testing.T) func(*tty) error {
	return func(*tty) error {
		t.Error("stopped the process")
		return nil
	}
}

func ended(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(5 * time.Second): // only if it hangs
		t.Fatal("Run did not end")
		return nil
	}
}

// TestCancelEndsRun: a cancelled context (main's answer to SIGTERM or
// SIGHUP) ends Run as a quit does, with the terminal restored.
func TestCancelEndsRun(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	ctx, cancel := context.WithCancel(context.Background())
	_, errc := runOn(ctx, slave, &sizer{}, noStop(t), nil)
	at := screen.waitFor(t, 0, enterScreen)
	at = screen.waitFor(t, at, "size 40x10")
	if cooked(t, slave) {
		t.Fatal("the screen runs in cooked mode")
	}
	cancel()
	if err := ended(t, errc); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	screen.waitFor(t, at, leaveScreen)
	if !cooked(t, slave) {
		t.Fatal("Run left the terminal in raw mode")
	}
}

// ticker redraws every few milliseconds, as samples do.
type ticker struct {
	counter
	n, keys atomic.Int64
	ticked  chan struct{} // a tick, if the test has not seen the last
}

func newTicker() *ticker { return &ticker{ticked: make(chan struct{}, 1)} }

// await waits until it has ticked n more times.
func (c *ticker) await(t *testing.T, n int64) {
	t.Helper()
	end := c.n.Load() + n
	c.until(t, "ticks", func() bool { return c.n.Load() >= end })
}

// awaitKey waits until it has seen a key.
func (c *ticker) awaitKey(t *testing.T) {
	t.Helper()
	c.until(t, "a key", func() bool { return c.keys.Load() > 0 })
}

func (c *ticker) until(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second) // only if it never comes
	for !done() {
		select {
		case <-c.ticked:
		case <-deadline:
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

func (c *ticker) Init() tea.Cmd { return c.tick() }
func (c *ticker) tick() tea.Cmd {
	return tea.Tick(5*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}
func (c *ticker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tickMsg); ok {
		c.ticks++
		c.n.Add(1)
		select {
		case c.ticked <- struct{}{}:
		default:
		}
		return c, c.tick()
	}
	if _, ok := msg.(tea.KeyMsg); ok {
		c.keys.Add(1)
		c.counter.Update(msg)
	}
	return c, nil
}

// TestHangUpEndsRun: when the terminal hangs up and nothing cancels the
// context, Run still ends, without an error, when it next draws.
func TestHangUpEndsRun(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	_, errc := runOn(context.Background(), slave, newTicker(), noStop(t), nil)
	at := screen.waitFor(t, 0, "keys 0")
	screen.waitFor(t, at, "\x1b[1;7H") // a tick drawn after the first frame
	master.Close()
	if err := ended(t, errc); err != nil {
		t.Fatalf("Run after a hang-up: %v", err)
	}
}

// TestCtrlZOnATerminal: Ctrl-Z leaves the screen and restores cooked mode
// before the process stops; after it is continued, raw mode and the
// alternate screen are back and the whole screen is drawn at the size the
// terminal got meanwhile. The key never reaches the wrapped model.
func TestCtrlZOnATerminal(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped, fg := make(chan struct{}), make(chan struct{})
	inner := &sizer{}
	_, errc := runOn(ctx, slave, inner, func(tt *tty) error {
		// As the process would be, until the shell continues it.
		stopped <- struct{}{}
		<-fg
		tt.continued()
		return nil
	}, nil)
	at := screen.waitFor(t, 0, "size 40x10")
	master.Write([]byte{0x1a}) // Ctrl-Z
	<-stopped
	at = screen.waitFor(t, at, leaveScreen)
	if !cooked(t, slave) {
		t.Error("stopped with the terminal in raw mode")
	}
	setSize(t, master, 50, 12) // the user resized the window meanwhile
	if s := screen.String()[at:]; s != "" {
		t.Errorf("drew while stopped: %q", s)
	}
	fg <- struct{}{}
	at = screen.waitFor(t, at, enterScreen)
	at = screen.waitFor(t, at, "\x1b[2J")
	at = screen.waitFor(t, at, "size 50x12")
	if cooked(t, slave) {
		t.Error("resumed in cooked mode")
	}
	master.Write([]byte("x"))
	screen.waitFor(t, at, "1") // the count of keys, redrawn alone
	if _, _, keys := inner.seen(); keys != 1 {
		// 2 if Ctrl-Z reached it, 0 if keys are not read again.
		t.Fatalf("after a Ctrl-Z and an x, the model saw %d keys", keys)
	}
	cancel()
	if err := ended(t, errc); err != nil {
		t.Fatal(err)
	}
}

// TestBgThenFg: a job continued in the background (bg) leaves the
// terminal to the shell, modes and screen, though it keeps running; fg
// (SIGCONT, with gputop the foreground job again) brings the screen back
// whole.
func TestBgThenFg(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fg atomic.Bool
	fg.Store(true)
	inner := newTicker()
	_, errc := runOn(ctx, slave, inner, func(tt *tty) error {
		fg.Store(false) // bg
		tt.continued()
		return nil
	}, &fg)
	at := screen.waitFor(t, 0, "keys 0")
	master.Write([]byte{0x1a}) // Ctrl-Z
	at = screen.waitFor(t, at, leaveScreen)
	inner.await(t, 20) // it runs on in the background
	if s := screen.String()[at:]; s != "" {
		t.Fatalf("a background job wrote %q", s)
	}
	master.Write([]byte("x\n")) // a line typed to the shell, in cooked mode
	inner.await(t, 20)
	if inner.keys.Load() != 0 {
		t.Fatal("a background job read a key")
	}
	if !cooked(t, slave) {
		t.Fatal("a background job set raw mode")
	}
	fg.Store(true)
	syscall.Kill(os.Getpid(), syscall.SIGCONT) // fg
	at = screen.waitFor(t, at, enterScreen)
	at = screen.waitFor(t, at, "\x1b[2J")
	inner.awaitKey(t) // the x, left in the input, is read now
	if cooked(t, slave) {
		t.Error("after fg the terminal is in cooked mode")
	}
	cancel()
	if err := ended(t, errc); err != nil {
		t.Fatal(err)
	}
}

// TestKilledWhileSuspended: `kill %1` on a suspended gputop sends SIGTERM
// and SIGCONT. Continued in the background, it ends without touching the
// terminal, which would stop it again for good (SIGTTOU).
func TestKilledWhileSuspended(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	ctx, cancel := context.WithCancel(context.Background())
	var fg atomic.Bool
	fg.Store(true)
	_, errc := runOn(ctx, slave, newTicker(), func(tt *tty) error {
		fg.Store(false)
		cancel()
		tt.continued()
		return nil
	}, &fg)
	at := screen.waitFor(t, 0, "keys 0")
	master.Write([]byte{0x1a}) // Ctrl-Z
	if err := ended(t, errc); err != nil {
		t.Fatal(err)
	}
	at = screen.waitFor(t, at, leaveScreen)
	if s := screen.String()[at:]; s != "" {
		t.Fatalf("wrote %q after it was suspended", s)
	}
}
