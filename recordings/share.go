package recordings

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/recordings/format"
)

// A recording being written can be followed by others of the same user
// (`gputop attach`, `gputop stream` on the host): the Recorder listens on a
// Unix socket of its own while it records to a file (RecorderOptions.ShareDir),
// and each client that connects gets the file from its first byte, then
// what is written as it is written: the stream protocol (stream.go), so
// a client reads it with NewStreamReader. A client may send lines the
// other way, as to gputop stream's stdin: "mark TEXT" drops a marker in the
// recorded session. The file is the buffer: each client reads it at its
// own pace, so a slow client costs neither the recording nor memory, and
// one that stops reading for shareStall is dropped. The client side is
// share_client.go.

// SessionSuffix ends the name of a recording's socket: <pid>.stream, in
// the per-user directory of the marker sockets (which end in .sock).
const SessionSuffix = ".stream"

const (
	// sharePoll is how often a client's copy looks for new bytes in the
	// file: the writer flushes about once a second.
	sharePoll = 100 * time.Millisecond
	// shareClients bounds the clients of one recording.
	shareClients = 16
	// shareLinger is how long clients get to take the rest of a recording
	// that ended before their connections are closed: Stop waits for it
	// (the live view's r too), so it is short; a client that reads takes
	// the rest in milliseconds.
	shareLinger = time.Second
)

// shareStall drops a client that takes nothing for this long (tests
// shorten it).
var shareStall = 30 * time.Second

// sharer serves one recording's file on its socket.
type sharer struct {
	ln    *net.UnixListener
	sock  string
	file  string
	mark  func(text string)
	ended chan struct{} // the recording is closed: send the rest, then end

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// listenShare opens the socket of the recording at file in dir:
// <pid>.stream, or <pid>-N.stream when this process records more than one
// at a time, readable and writable by its owner only.
func listenShare(dir, file string, mark func(string)) (*sharer, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	var ln *net.UnixListener
	sock := filepath.Join(dir, fmt.Sprintf("%d%s", os.Getpid(), SessionSuffix))
	for n := 2; ; n++ {
		if ln, err = listenPrivate(sock); err == nil {
			break
		}
		if !errors.Is(err, errSocketTaken) || n > 64 {
			return nil, err
		}
		sock = filepath.Join(dir, fmt.Sprintf("%d-%d%s", os.Getpid(), n, SessionSuffix))
	}
	s := &sharer{ln: ln, sock: sock, file: abs, mark: mark, ended: make(chan struct{}),
		conns: make(map[net.Conn]struct{})}
	s.wg.Go(s.accept)
	return s, nil
}

var errSocketTaken = errors.New("socket in use")

// listenPrivate listens on path with mode 0600. A socket left there by a
// process that died (nobody answers) is removed first; one that answers
// belongs to a live recording of this process.
func listenPrivate(path string) (*net.UnixListener, error) {
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, errSocketTaken
		}
		os.Remove(path)
	}
	// The directory is the user's own, 0700: the socket's mode is a
	// second lock, set before anyone could connect.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func (s *sharer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed || len(s.conns) >= shareClients {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() {
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		})
	}
}

// serve copies the file to c from its start (or, asked for "history D",
// from the segment that holds the time D ago), following it until the
// recording ends, and takes c's lines.
func (s *sharer) serve(c net.Conn) {
	br := bufio.NewReaderSize(c, 4<<10)
	history, first := readRequest(c, br)
	left := make(chan struct{})
	go func() {
		defer close(left)
		if first != "" {
			s.takeLine(first)
		}
		s.readLines(br)
	}()
	f, err := os.Open(s.file)
	if err != nil {
		return // removed: the recording got no sample
	}
	defer f.Close()
	if history > 0 {
		if err := sendFromSegment(c, f, time.Now().Add(-history)); err != nil {
			return
		}
	}
	buf := make([]byte, 64<<10)
	tick := time.NewTicker(sharePoll)
	defer tick.Stop()
	ended := false
	for {
		n, err := f.Read(buf)
		if n > 0 {
			c.SetWriteDeadline(time.Now().Add(shareStall))
			if _, werr := c.Write(buf[:n]); werr != nil {
				return // gone, or taking nothing: dropped
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return
		}
		if ended {
			return // all of it sent
		}
		select {
		case <-tick.C:
		case <-s.ended:
			ended = true // read to the end once more: the index and trailer
		case <-left:
			return
		}
	}
}

// requestWait is how long a client may take to say how much history it
// wants before it is sent all of it.
const requestWait = time.Second

// readRequest reads a client's optional first line, "history D" (a Go
// duration, or "all"): how much of the recording before now it wants.
// Any other first line is returned to be taken as any later one; a client
// that says nothing within requestWait gets all of it.
func readRequest(c net.Conn, br *bufio.Reader) (history time.Duration, other string) {
	c.SetReadDeadline(time.Now().Add(requestWait))
	defer c.SetReadDeadline(time.Time{})
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, ""
	}
	text := strings.TrimRight(string(line), "\r\n")
	arg, ok := strings.CutPrefix(text, "history ")
	if !ok {
		return 0, text
	}
	if d, err := time.ParseDuration(arg); err == nil && d > 0 {
		return d, ""
	}
	return 0, "" // "all", or what this gputop does not know: everything
}

// sendFromSegment sends the file's header frame, then positions f at the
// segment that holds the time from (the first, if none starts before it):
// segments are self-contained, so a reader starts there as after a seek.
func sendFromSegment(c net.Conn, f *os.File, from time.Time) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var head [format.SkippableHeader]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil // not even a header yet: send it all as it comes
	}
	dataStart := int64(format.SkippableHeader) + int64(binary.LittleEndian.Uint32(head[4:]))
	segs, _, err := format.FindSegments(f, dataStart, fi.Size())
	if err != nil || len(segs) < 2 {
		return nil
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].First > from.UnixNano() }) - 1
	if i <= 0 {
		return nil
	}
	c.SetWriteDeadline(time.Now().Add(shareStall))
	if _, err := io.Copy(c, io.NewSectionReader(f, 0, dataStart)); err != nil {
		return err
	}
	_, err = f.Seek(segs[i].Offset, io.SeekStart)
	return err
}

// readLines takes a client's lines, as gputop stream takes its stdin's,
// until it leaves.
func (s *sharer) readLines(r *bufio.Reader) {
	for {
		line, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			line = nil
			_, err = r.ReadSlice('\n')
		}
		s.takeLine(strings.TrimRight(string(line), "\r\n"))
		if err != nil {
			return
		}
	}
}

// takeLine does what a client's line says: "mark TEXT" marks the
// recording; other lines are ignored, room for later ones.
func (s *sharer) takeLine(line string) {
	if text, ok := strings.CutPrefix(line, "mark "); ok && s.mark != nil {
		if text = strings.TrimSpace(text); validMark(text) {
			s.mark(text)
		}
	}
}

// validMark says whether text is a marker gputop mark would send: not
// blank, at most 200 bytes of UTF-8, no control characters.
func validMark(text string) bool {
	return text != "" && len(text) <= 200 && utf8.ValidString(text) &&
		!strings.ContainsFunc(text, unicode.IsControl)
}

// end says the recording is closed: clients get the rest of the file (its
// index and trailer end their streams), for shareLinger at most, and the
// socket goes away at once, so nobody new attaches to a recording that
// ended.
func (s *sharer) end() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.ln.Close()
	close(s.ended)
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(shareLinger):
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-done
	}
}
