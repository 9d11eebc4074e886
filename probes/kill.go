package probes

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Terminator sends a signal (SIGTERM by default) for the screen's k key:
// only to a process whose
// real uid is the real uid gputop runs as. Root gets no exception (nvitop
// lets root signal anyone; gputop will not take a GPU away from another
// user on a keypress): as root it signals root's processes only, and
// kill(1) is there for the rest.
//
// A PID from the process list may have been reused since: the process is
// pinned first (a pidfd, where the kernel has them), then its owner and its
// start are checked against what the list said, then the pinned process is
// signalled, so the signal cannot reach a later process with the same PID.
type Terminator struct {
	proc string // "/proc"
	uid  int    // the real uid gputop runs as
	// hostPIDs says /proc numbers processes as NVML does (gputop is not in
	// a container's PID namespace).
	hostPIDs bool

	mu       sync.Mutex
	buf      []byte
	bootTime time.Time
	bootRead bool
}

// NewTerminator returns the Terminator of the user running gputop.
func NewTerminator() *Terminator {
	ns, err := os.Readlink("/proc/self/ns/pid")
	return &Terminator{proc: "/proc", uid: os.Getuid(), hostPIDs: err != nil || ns == initPIDNamespace}
}

// startSlack is how far a process's start may differ from the one the list
// gave and still be the same process: starts are read to 10 ms, and the
// boot time to the second.
const startSlack = 2 * time.Second

// Terminate sends SIGTERM to pid, which started at started (zero if the
// list did not know): Signal with SIGTERM.
func (t *Terminator) Terminate(pid int, started time.Time) error {
	return t.Signal(pid, started, syscall.SIGTERM)
}

// Signal sends sig to pid, which started at started (zero if the list did
// not know). It refuses, saying why, a process of another user, one that
// has exited, one whose PID now names a later process, and gputop's own.
func (t *Terminator) Signal(pid int, started time.Time, sig syscall.Signal) error {
	if sig <= 0 || sig > 64 {
		return fmt.Errorf("signal %d is not one gputop sends", int(sig))
	}
	if pid <= 1 {
		return fmt.Errorf("PID %d is not a process gputop signals", pid)
	}
	if pid == os.Getpid() {
		return errors.New("that is gputop itself; q quits")
	}
	if !t.hostPIDs {
		return errors.New("gputop runs in its own PID namespace, where NVML's PIDs name other processes; run it on the host to signal")
	}
	t.mu.Lock()
	defer t.mu.Unlock()

	// Pin the process before looking at it. Kernels before 5.3 have no
	// pidfd: then the checks and the kill are a few microseconds apart.
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == nil:
		defer unix.Close(fd)
	case errors.Is(err, unix.ESRCH):
		return fmt.Errorf("PID %d has exited", pid)
	default:
		fd = -1
	}
	if err := t.check(pid, started); err != nil {
		return err
	}
	if fd >= 0 {
		err = unix.PidfdSendSignal(fd, sig, nil, 0)
	} else {
		err = syscall.Kill(pid, sig)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ESRCH):
		return fmt.Errorf("PID %d has exited", pid)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("PID %d: not permitted (%v)", pid, err)
	}
	return fmt.Errorf("PID %d: %v", pid, err)
}

// check says whether pid is the user's own process that started at
// started.
func (t *Terminator) check(pid int, started time.Time) error {
	dir := t.proc + "/" + strconv.Itoa(pid)
	var err error
	if t.buf, err = readFileInto(dir+"/status", t.buf); err != nil {
		return fmt.Errorf("PID %d has exited", pid)
	}
	uid, ok := parseStatusUID(t.buf)
	if !ok {
		return fmt.Errorf("PID %d: cannot tell whose process it is", pid)
	}
	if int(uid) != t.uid {
		return fmt.Errorf("PID %d belongs to uid %d, not to you (uid %d): gputop signals only your own processes", pid, uid, t.uid)
	}
	if started.IsZero() {
		return nil
	}
	if t.buf, err = readFileInto(dir+"/stat", t.buf); err != nil {
		return fmt.Errorf("PID %d has exited", pid)
	}
	st, err := parsePidStat(t.buf)
	if err != nil {
		return fmt.Errorf("PID %d: %v", pid, err)
	}
	if boot := t.boot(); !boot.IsZero() {
		now := boot.Add(time.Duration(ticksToSeconds(st.startTime) * float64(time.Second)))
		if d := now.Sub(started); d > startSlack || d < -startSlack {
			return fmt.Errorf("PID %d is now another process (started %s); not signalled", pid, now.Format("15:04:05"))
		}
	}
	return nil
}

// boot reads the host's boot time once.
func (t *Terminator) boot() time.Time {
	if !t.bootRead {
		t.bootRead = true
		var err error
		if t.buf, err = readFileInto(t.proc+"/stat", t.buf); err == nil {
			if secs, ok := parseBootTime(t.buf); ok {
				t.bootTime = time.Unix(secs, 0)
			}
		}
	}
	return t.bootTime
}
