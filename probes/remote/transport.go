package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Conn is one host's running stream: what it writes, a way to send it a
// line, and the end of it.
type Conn interface {
	// Stdout is the stream.
	Stdout() io.Reader
	// Send writes one line to the stream's stdin (a marker). It must not
	// block for long: the caller gives up on a host that does not read.
	Send(line []byte) error
	// Close ends the stream (its whole process group), waits for it and
	// says how it ended: an *ExitError, or nil.
	Close() error
	// Stderr is the last of what the transport wrote to stderr.
	Stderr() string
}

// Dialer starts host's stream. The real one runs the transport's command;
// tests give streams of their own.
type Dialer func(ctx context.Context, host string) (Conn, error)

// ExitError is how a transport process ended.
type ExitError struct {
	Code   int    // the exit status, -1 after a signal
	Signal string // the signal that ended it, if one did
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return "signal: " + e.Signal // "signal: killed", as os/exec says it
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// stderrKeep bounds what is kept of a transport's stderr: its last lines
// say why it failed, and a chatty one cannot make memory grow.
const stderrKeep = 2048

// tail keeps the last stderrKeep bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > stderrKeep {
		p = p[len(p)-stderrKeep:]
	}
	if over := len(t.buf) + len(p) - stderrKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// killGrace is how long a stream has to end by itself after its stdin
// closes (a gputop stream closes its recording and exits; a transport that
// already failed is exiting with its status), and again after SIGTERM,
// before SIGKILL.
const killGrace = 500 * time.Millisecond

// ProcessDialer runs t for each host, as a child in a process group of its
// own: the terminal's Ctrl-C and hang-up reach gputop, which ends every
// child itself (a whole group, so a wrapper's children go too), and ssh,
// having no terminal, cannot prompt.
func ProcessDialer(t Transport, interval time.Duration) Dialer {
	return func(ctx context.Context, host string) (Conn, error) {
		return startProcess(t.argv(host, interval))
	}
}

type process struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stdin  io.WriteCloser
	stderr *tail

	closing sync.Once
	err     error
}

func startProcess(argv []string) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &process{cmd: cmd, stderr: &tail{}}
	cmd.Stderr = p.stderr
	// A ControlMaster that ssh leaves running keeps stderr open: Wait does
	// not wait for it.
	cmd.WaitDelay = killGrace
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		var notFound *exec.Error
		if errors.As(err, &notFound) {
			return nil, fmt.Errorf("%s: not found", argv[0])
		}
		return nil, err
	}
	return p, nil
}

func (p *process) Stdout() io.Reader { return p.stdout }
func (p *process) Stderr() string    { return p.stderr.String() }

func (p *process) Send(line []byte) error {
	_, err := p.stdin.Write(line)
	return err
}

// Close closes the stream's stdin (a stream ends at its EOF), asks the
// group to end if it has not within killGrace, kills it after another,
// and reaps the child.
func (p *process) Close() error {
	p.closing.Do(func() {
		p.stdin.Close()
		pid := p.cmd.Process.Pid
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(killGrace):
			syscall.Kill(-pid, syscall.SIGTERM)
			select {
			case err = <-done:
			case <-time.After(killGrace):
				syscall.Kill(-pid, syscall.SIGKILL)
				err = <-done
			}
		}
		// What the group still holds (a wrapper's children) goes too.
		syscall.Kill(-pid, syscall.SIGKILL)
		p.err = exitError(err, p.cmd)
	})
	return p.err
}

func exitError(err error, cmd *exec.Cmd) error {
	st := cmd.ProcessState
	if st == nil {
		return err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &ExitError{Code: -1, Signal: ws.Signal().String()}
	}
	if st.ExitCode() != 0 {
		return &ExitError{Code: st.ExitCode()}
	}
	return nil
}

// lastLine is the last non-blank line of s, trimmed, at most 160 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	// A remote shell's text is anyone's: no escape sequence of it reaches
	// the screen, the log or the recording.
	l := strings.TrimSpace(timeline.CleanText(lines[len(lines)-1]))
	if r := []rune(l); len(r) > 160 {
		l = string(r[:157]) + "..."
	}
	return l
}
