package recordings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The client side of share.go, for `gputop attach` and `gputop stream` on
// a host where this user records already: find the recordings being
// written (FindSessions), follow one as the screen's source (Attach), or
// take its bytes as they are written (Follow). Which directory to look in
// is the caller's (probes/marks knows the runtime directory's one rule).

// Session is a recording being written that its user may attach to: the
// socket its Recorder listens on.
type Session struct {
	ID      string    // the socket's name without its suffix: the recorder's pid
	Sock    string    // the socket's path
	Started time.Time // when the socket was made: when the recording started
}

// FindSessions lists the recordings being written whose sockets are in
// dir, newest first. Sockets that nobody listens on any more (a recorder
// that was killed) are removed on the way.
func FindSessions(dir string) []Session {
	var out []Session
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+SessionSuffix))
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Type() != os.ModeSocket {
			continue
		}
		c, err := net.DialTimeout("unix", p, time.Second)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				os.Remove(p) // stale: its recorder died without removing it
			}
			continue
		}
		c.Close()
		out = append(out, Session{ID: strings.TrimSuffix(filepath.Base(p), SessionSuffix), Sock: p, Started: fi.ModTime()})
	}
	slices.SortStableFunc(out, func(a, b Session) int { return b.Started.Compare(a.Started) })
	return out
}

// PID is the recorder's process id, from the session's name (<pid> or
// <pid>-N); 0 if it names none.
func (s Session) PID() int {
	pid, _ := strconv.Atoi(strings.SplitN(s.ID, "-", 2)[0])
	return pid
}

// CommandLine is the recorder's command line, from /proc, without the escape sequences
// a job's arguments may hold, to tell sessions apart: "gputop run -- python train.py".
func (s Session) CommandLine() string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID()))
	if err != nil || len(b) == 0 { // no such process (pid 0: none named), one that has ended, or is still exec'ing
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") // never empty
	args[0] = filepath.Base(args[0])
	return timeline.CleanText(strings.Join(args, " "))
}

// stoppedFor is how long a followed session may stay stopped before
// WatchStopped gives up on it: a --hosts viewer says "no answer" after
// 10 s, and should read why before.
const stoppedFor = 3 * time.Second

// Stopped says whether the session's gputop is stopped (Ctrl-Z, SIGSTOP,
// a debugger): it then sends nothing, and no error says so.
func (s Session) Stopped() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID()))
	if err != nil {
		return false
	}
	// "pid (command) S ...": the command may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T' || b[i+2] == 't'
}

// StoppedError says, in one line, that the session is stopped and what to
// do.
func (s Session) StoppedError() error {
	return fmt.Errorf("session %s is stopped (its gputop, pid %d, was suspended: Ctrl-Z?); resume it with fg, or stream anew with --new", s.ID, s.PID())
}

// WatchStopped says on the channel it returns (StoppedError) when the
// session has been stopped for stoppedFor, looking every second until
// done closes: following a suspended recorder, gputop stream sent nothing,
// for ever, with no error.
func (s Session) WatchStopped(done <-chan struct{}) <-chan error {
	out := make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var since time.Time
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				switch {
				case !s.Stopped():
					since = time.Time{}
				case since.IsZero():
					since = now
				case now.Sub(since) >= stoppedFor:
					out <- s.StoppedError()
					return
				}
			}
		}
	}()
	return out
}

// Follow connects to the session and asks for its recording's bytes,
// history first, as they are written; lines written to the connection go
// to the recorder ("mark TEXT"). history > 0 asks for the recording from
// the segment that holds the time history ago on (whole five-minute
// segments), not all of it.
func (s Session) Follow(history time.Duration) (net.Conn, error) {
	request := "history all\n"
	if history > 0 {
		request = "history " + history.String() + "\n"
	}
	conn, err := net.DialTimeout("unix", s.Sock, 2*time.Second)
	if err == nil {
		conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err = io.WriteString(conn, request); err == nil {
			conn.SetWriteDeadline(time.Time{})
			return conn, nil
		}
		conn.Close()
	}
	return nil, fmt.Errorf("cannot attach to session %s: %v", s.ID, innermost(err))
}

// innermost is the cause at the bottom of err: "connection refused", not
// "dial unix /run/user/1000/gputop/101.stream: connect: connection refused".
func innermost(err error) string {
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(next) {
		err = next
	}
	return err.Error()
}

// errRecorderEnded is what the attached view says when the recording it
// follows is closed: it keeps what it has, as a replay that finished.
var errRecorderEnded = errors.New("the recording ended (its gputop stopped); this is what it recorded")

// SessionSource is a running recording as the screen's source: its history
// in batches as fast as the screen takes them, then each sample as it is
// written. m marks the recording.
type SessionSource struct {
	conn    net.Conn
	samples chan timeline.Sample
	done    chan struct{} // closed once err is set: no more samples
	err     error

	mu   sync.Mutex
	info timeline.SourceInfo
}

// Attach connects to the session and reads its stream's header.
func (s Session) Attach() (*SessionSource, error) {
	// All of its history, at once (without the request the recorder waits
	// a second for one).
	conn, err := s.Follow(0)
	if err != nil {
		return nil, err
	}
	// The header comes with the recording's first sample: a recorder that
	// has just started may take a few seconds to find its GPUs.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	sr, err := NewStreamReader(conn, "session "+s.ID)
	if err != nil {
		conn.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("session %s has recorded nothing yet; try again in a moment", s.ID)
		}
		return nil, fmt.Errorf("cannot attach to session %s: %v", s.ID, err)
	}
	conn.SetReadDeadline(time.Time{})
	src := &SessionSource{conn: conn, info: sr.Header().Info,
		samples: make(chan timeline.Sample, 256), done: make(chan struct{})}
	go src.read(sr)
	return src, nil
}

func (s *SessionSource) read(sr *StreamReader) {
	defer close(s.done)
	defer sr.Close()
	for {
		ev, err := sr.Next()
		switch {
		case errors.Is(err, io.EOF):
			s.err = errRecorderEnded
			return
		case errors.Is(err, net.ErrClosed):
			s.err = context.Canceled
			return
		case err != nil:
			s.err = fmt.Errorf("the recording stopped: %v", err)
			return
		}
		switch ev.Item {
		case StreamInfo:
			s.mu.Lock()
			s.info = ev.Info
			s.mu.Unlock()
		case StreamSample:
			s.samples <- ev.Sample // waits for the screen: the socket then waits for us
		}
	}
}

// Info is the recording's description, as it grew.
func (s *SessionSource) Info() timeline.SourceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// Next waits for the next sample.
func (s *SessionSource) Next(ctx context.Context) (timeline.Sample, error) {
	select {
	case smp := <-s.samples:
		return smp, nil
	case <-ctx.Done():
		return timeline.Sample{}, ctx.Err()
	case <-s.done:
		select {
		case smp := <-s.samples:
			return smp, nil
		default:
		}
		return timeline.Sample{}, s.err
	}
}

// NextBatch waits for one sample, then takes those that are there already:
// the history arrives in batches, as a replay's file does.
func (s *SessionSource) NextBatch(ctx context.Context, max int) ([]timeline.Sample, error) {
	first, err := s.Next(ctx)
	if err != nil {
		return nil, err
	}
	out := []timeline.Sample{first}
	for len(out) < max {
		select {
		case smp := <-s.samples:
			out = append(out, smp)
		default:
			return out, nil
		}
	}
	return out, nil
}

// Mark marks the recording: the recorder takes it as its own m.
func (s *SessionSource) Mark(text string) {
	text = strings.ReplaceAll(text, "\n", " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, _ = io.WriteString(s.conn, "mark "+text+"\n")
}

// Close leaves the session; the recording goes on.
func (s *SessionSource) Close() error {
	err := s.conn.Close()
	for {
		select {
		case <-s.samples: // let the reader see the close
		case <-s.done:
			return err
		}
	}
}
