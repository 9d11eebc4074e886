//go:build linux

package screen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/sys/unix"
)

// These tests run Run's innards on a pseudo-terminal: the terminal's modes
// and a hang-up are the kernel's, not a fake's.

// openPTY opens a pseudo-terminal of w x h. Closing the master hangs the
// terminal up, as the end of an SSH session does.
func openPTY(t *testing.T, w, h int) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
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
			t.Fatalf("%q never written; the terminal got %q", s, all[from:])
		}
	}
}

func (l *screenLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runOn runs inner on the pseudo-terminal slave; stop stands for stopping
// the process group, which a test must not really do.
func runOn(ctx context.Context, slave *os.File, inner tea.Model, stop func(*tty) error) (*tty, <-chan error) {
	tt := newTTY(ctx, slave, slave)
	tt.canStop = true // whatever job control `go test` runs under
	tt.stop = func() error { return stop(tt) }
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
	_, errc := runOn(ctx, slave, &sizer{}, noStop(t))
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
type ticker struct{ counter }

func (c *ticker) Init() tea.Cmd { return c.tick() }
func (c *ticker) tick() tea.Cmd {
	return tea.Tick(5*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}
func (c *ticker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tickMsg); ok {
		c.ticks++
		return c, c.tick()
	}
	return c, nil
}

// TestHangUpEndsRun: when the terminal hangs up and nothing cancels the
// context, Run still ends, without an error, when it next draws.
func TestHangUpEndsRun(t *testing.T) {
	master, slave := openPTY(t, 40, 10)
	screen := readScreen(master)
	_, errc := runOn(context.Background(), slave, &ticker{}, noStop(t))
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
	})
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
	screen.waitFor(t, at, "size 50x12")
	if cooked(t, slave) {
		t.Error("resumed in cooked mode")
	}
	cancel()
	if err := ended(t, errc); err != nil {
		t.Fatal(err)
	}
	if _, _, keys := inner.seen(); keys != 0 {
		t.Fatal("Ctrl-Z reached the wrapped model")
	}
}
