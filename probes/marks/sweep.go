package marks

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A session that dies without closing (killed, out of memory) leaves its
// sockets in the runtime directory: its marker socket <pid>.sock and its
// recording's <pid>.stream (recordings/share.go), each maybe <pid>-N.
// `gputop mark` and `attach --list` remove those they find dead, but a
// user who runs neither kept them for good. So each session, as it opens
// its own socket, sweeps the directory: a socket there named so, whose
// process is gone or which refuses a connection, is removed. Nothing else
// is touched: only sockets, only under gputop's names, only in the user's
// own 0700 directory, which gputop made.

// sweepMost bounds the entries one sweep looks at: a directory of
// thousands is not a session's to clean at its start.
const sweepMost = 1024

// sweepDial bounds the wait for a socket whose process lives: a session
// that listens answers at once (its backlog takes the connection).
const sweepDial = 200 * time.Millisecond

// sweepStale removes the dead sessions' sockets in dir (see above) and
// says how many it removed.
func sweepStale(dir string) int {
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	entries, _ := d.ReadDir(sweepMost)
	d.Close() // read-only: a close error changes nothing
	removed := 0
	for _, e := range entries {
		pid, ok := sessionPID(e.Name())
		if !ok || e.Type() != os.ModeSocket || pid == os.Getpid() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if processAlive(pid) {
			c, err := net.DialTimeout("unix", path, sweepDial)
			if err == nil {
				c.Close()
				continue
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				continue // not sure it is dead: left for a later look
			}
		}
		if os.Remove(path) == nil {
			removed++
		}
	}
	return removed
}

// sessionPID reads the pid of a session's socket name: <pid>.sock,
// <pid>-N.sock, <pid>.stream or <pid>-N.stream.
func sessionPID(name string) (int, bool) {
	base, ok := strings.CutSuffix(name, ".sock")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".stream"); !ok {
			return 0, false
		}
	}
	id, seq, hasSeq := strings.Cut(base, "-")
	if hasSeq {
		if n, err := strconv.Atoi(seq); err != nil || n < 1 {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(id)
	if err != nil || pid < 1 {
		return 0, false
	}
	return pid, true
}

// processAlive says whether a process of that pid exists (another
// user's too: EPERM is one that exists).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
