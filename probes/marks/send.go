package marks

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoSession is Send's error when no session of this user listens.
var ErrNoSession = errors.New("no gputop session is running for this user")

// markSendTimeout bounds each session's connect, send and answer. A
// session stopped with Ctrl-Z accepts the connection (the kernel does) but
// never answers; it is reported, and takes the marker when it resumes.
const markSendTimeout = 2 * time.Second

// errStaleSocket says a socket had nobody behind it and was removed.
var errStaleSocket = errors.New("stale socket")

// Send delivers text to every session listening in dir (SessionDir),
// all at once, and returns how many took it. A socket nobody listens on
// (its session died without removing it) is removed. With no session
// left the error is ErrNoSession. When some
// sessions refused or did not answer, the error names each of them, and
// the count says how many did take the marker. The text is checked first,
// as a session checks it (at most MaxBytes of UTF-8, no control
// characters, not blank), and trimmed.
func Send(dir, text string) (int, error) {
	text, err := Parse([]byte(text))
	if err != nil {
		return 0, err
	}
	var paths []string
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("marker sockets: %w", err)
	}
	for _, e := range entries {
		if e.Type() == fs.ModeSocket && strings.HasSuffix(e.Name(), ".sock") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	results := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() { results[i] = sendMarkTo(path, text) })
	}
	wg.Wait()
	took := 0
	var failed []error
	for i, err := range results {
		switch {
		case err == nil:
			took++
		case errors.Is(err, errStaleSocket):
		default:
			failed = append(failed, fmt.Errorf("session %s: %w", filepath.Base(paths[i]), err))
		}
	}
	if took == 0 && len(failed) == 0 {
		return 0, ErrNoSession
	}
	return took, errors.Join(failed...)
}

// sendMarkTo gives text to the session at path and reads its answer.
func sendMarkTo(path, text string) error {
	conn, err := net.DialTimeout("unix", path, markSendTimeout)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return fmt.Errorf("removing stale socket: %w", rmErr)
		}
		return errStaleSocket
	case errors.Is(err, fs.ErrNotExist):
		return errStaleSocket // the session closed while we looked
	case err != nil:
		return err
	}
	defer conn.Close() // the answer, read below, is all that mattered
	if err := conn.SetDeadline(time.Now().Add(markSendTimeout)); err != nil {
		return err
	}
	// A session that turns us away (busy) may answer and hang up before
	// the write lands; its answer, still readable, says more than EPIPE.
	_, writeErr := conn.Write([]byte(text + "\n"))
	line, err := bufio.NewReaderSize(conn, 256).ReadSlice('\n')
	reply := string(line)
	switch {
	case err != nil && writeErr != nil:
		return writeErr
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("no answer within %v (is that gputop suspended?)", markSendTimeout)
	case err != nil:
		return fmt.Errorf("no answer: %w", err)
	case reply == "ok\n":
		return nil
	case strings.HasPrefix(reply, "error: "):
		return errors.New(strings.TrimSpace(strings.TrimPrefix(reply, "error: ")))
	}
	return fmt.Errorf("unexpected answer %q", reply)
}
