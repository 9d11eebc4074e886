package marks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// The marker protocol, spoken on a Unix stream socket, one per session:
//
//	client: a marker is one line of UTF-8 text ending in "\n" ("\r\n" is
//	        taken too); a connection may carry any number of them
//	session: answers each line with "ok\n" or "error: <why>\n"
//
// It is plain enough for three lines of Python's socket module. A line
// longer than MaxBytes is refused and the connection closed, since the
// rest of it is never read; a connection that sends no complete line for
// markIdle is told so and closed, so a silent client cannot hold a slot.
const (
	// MaxBytes is the longest marker a session takes, in bytes of
	// UTF-8 text (without the newline).
	MaxBytes = 200
	// SocketEnv is the variable `gputop run` sets in its job's
	// environment to the path of its session's marker socket.
	SocketEnv = "GPUTOP_MARK_SOCKET"

	markIdle     = 5 * time.Second
	maxMarkConns = 8
	// unixPathMax is the size of sun_path on Linux: the longest socket path.
	unixPathMax = 108
)

// Listener is one session's marker socket. It takes markers from
// `gputop mark` and from the wrapped job (via SocketEnv) and hands them
// to the session.
type Listener struct {
	ln      *net.UnixListener
	path    string
	deliver func(text string)
	idle    time.Duration
	slots   chan struct{} // one per connection being served
	done    chan struct{} // closed by Close

	deliverMu sync.Mutex // one deliver at a time, in arrival order

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool

	// removeDir is a fallback directory made for this session alone,
	// removed with the socket.
	removeDir string

	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// listenerSeq numbers the listeners of this process, so a second one (in
// tests) gets a name of its own next to the first.
var listenerSeq atomic.Int64

// Listen opens this session's marker socket in dir (from Dir),
// named after the process id and readable and writable by its owner only,
// and calls deliver with the text of each valid marker. deliver runs on the
// listener's own goroutines, one call at a time; it must not block, since
// the client waits for its answer.
func Listen(dir string, deliver func(text string)) (*Listener, error) {
	return listenMarks(dir, deliver, markIdle)
}

func listenMarks(dir string, deliver func(text string), idle time.Duration) (*Listener, error) {
	name := fmt.Sprintf("%d.sock", os.Getpid())
	if n := listenerSeq.Add(1); n > 1 {
		name = fmt.Sprintf("%d-%d.sock", os.Getpid(), n)
	}
	path := filepath.Join(dir, name)
	if len(path) >= unixPathMax {
		return nil, fmt.Errorf("marker socket path %s is %d bytes; Unix sockets allow %d (set a shorter TMPDIR)",
			path, len(path), unixPathMax-1)
	}
	// A socket under our name is left from an earlier process that had
	// our pid and died without cleaning up: nobody can be listening on it.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing stale marker socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("marker socket: %w", err)
	}
	// The socket is created with the umask's mode; until this chmod the
	// directory's 0700 is what keeps other users out.
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("marker socket: %w", err), ln.Close())
	}
	l := &Listener{
		ln:      ln,
		path:    path,
		deliver: deliver,
		idle:    idle,
		slots:   make(chan struct{}, maxMarkConns),
		done:    make(chan struct{}),
		conns:   map[net.Conn]struct{}{},
	}
	l.wg.Add(1)
	go l.acceptLoop()
	return l, nil
}

// Path is the socket's path: what `gputop run` puts in SocketEnv.
func (l *Listener) Path() string { return l.path }

// Close stops listening, removes the socket file, ends the connections
// being served and waits for their goroutines. Later calls return the
// first call's result.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.done)
		l.closeErr = l.ln.Close() // also unlinks the socket file
		l.mu.Lock()
		l.closed = true
		for c := range l.conns {
			// Ends the Read the connection's goroutine is blocked in; the
			// client is being dropped, so how the close went changes nothing.
			c.Close()
		}
		l.mu.Unlock()
		l.wg.Wait()
		if l.removeDir != "" {
			if err := os.Remove(l.removeDir); err != nil && l.closeErr == nil {
				l.closeErr = err
			}
		}
	})
	return l.closeErr
}

func (l *Listener) acceptLoop() {
	defer l.wg.Done()
	var backoff time.Duration
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little and try
			// again, as net/http does, rather than spin or give up for good.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-l.done:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		select {
		case l.slots <- struct{}{}:
		default:
			refuse(conn, fmt.Sprintf("busy: %d clients connected; try again", maxMarkConns))
			continue
		}
		if !l.track(conn) {
			refuse(conn, "session is closing")
			return
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer func() { <-l.slots }()
			defer l.untrack(conn)
			l.serve(conn)
		}()
	}
}

// track records a connection so Close can end it; false once closed.
func (l *Listener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *Listener) untrack(c net.Conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
	c.Close() // the conversation is over; a close error tells nobody anything
}

// refuse answers a connection that will not be served, and hangs up.
func refuse(c net.Conn, why string) {
	lastAnswer(c, time.Second, "error: "+why)
	c.Close() // the client has been told why, if it was still there to hear
}

// markConn is what serve needs of a connection: a net.Conn in production,
// an in-memory one in tests and the fuzz target.
type markConn interface {
	io.ReadWriter
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// serve reads markers from one connection until it ends, answering each.
func (l *Listener) serve(c markConn) {
	serveMarks(c, l.idle, func(text string) {
		l.deliverMu.Lock()
		defer l.deliverMu.Unlock()
		l.deliver(text)
	})
}

// serveMarks is the session's side of the protocol for one connection. It
// returns when the client is done, misbehaves, or goes quiet for idle.
func serveMarks(c markConn, idle time.Duration, deliver func(string)) {
	// A buffer one line long: ReadSlice fills it and no more, so a client
	// that never sends a newline costs this much memory and no more.
	r := bufio.NewReaderSize(c, MaxBytes+len("\r\n"))
	for {
		// The deadline covers a whole line, so trickling a byte at a time
		// does not keep a connection alive either.
		if c.SetReadDeadline(time.Now().Add(idle)) != nil {
			return
		}
		line, err := r.ReadSlice('\n')
		var reply string
		switch {
		case err == nil:
			text, bad := Parse(line[:len(line)-1])
			if bad != nil {
				reply = "error: " + bad.Error()
				break
			}
			deliver(text)
			reply = "ok"
		case errors.Is(err, bufio.ErrBufferFull):
			lastAnswer(c, idle, fmt.Sprintf("error: marker is longer than %d bytes", MaxBytes))
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			lastAnswer(c, idle, fmt.Sprintf("error: no complete marker line within %v; closing", idle))
			return
		case errors.Is(err, io.EOF) && len(line) > 0:
			lastAnswer(c, idle, `error: marker must end with "\n"`)
			return
		default: // the client closed the connection between markers: done
			return
		}
		if c.SetWriteDeadline(time.Now().Add(idle)) != nil || answer(c, reply) != nil {
			return // a client that does not read its answers is dropped
		}
	}
}

// lastAnswer sends the answer a connection ends with. The connection is
// closed next whatever happens, so a failed write needs no handling: the
// client it would have told is the one who went away.
func lastAnswer(c markConn, timeout time.Duration, reply string) {
	if c.SetWriteDeadline(time.Now().Add(timeout)) == nil {
		answer(c, reply)
	}
}

func answer(w io.Writer, reply string) error {
	_, err := io.WriteString(w, reply+"\n")
	return err
}

// Parse checks one marker as sent on the socket (without its "\n"; a
// trailing "\r" is dropped) and returns its text with the spaces around it
// trimmed. It refuses text longer than MaxBytes, text that is not
// UTF-8, text with control characters (which could drive the terminal
// when shown) and text that is only spaces.
func Parse(line []byte) (string, error) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > MaxBytes {
		return "", fmt.Errorf("marker is %d bytes; at most %d", len(line), MaxBytes)
	}
	if !utf8.Valid(line) {
		return "", errors.New("marker is not valid UTF-8")
	}
	for _, r := range string(line) {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("marker contains control character %U", r)
		}
	}
	text := strings.TrimSpace(string(line))
	if text == "" {
		return "", errors.New("marker is empty")
	}
	return text, nil
}
