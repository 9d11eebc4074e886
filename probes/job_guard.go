package probes

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The job's guard: what ends the job when gputop dies without ending it
// (kill -9, the OOM killer, a crash).
//
// Nothing gputop does at its own exit runs after a SIGKILL, so the job
// needs a process that outlives gputop. StartJob starts gputop's own
// binary again (/proc/self/exe, the same build even if the file was
// replaced) as the guard, and the guard starts the job:
//
//	gputop ──fd 4 (control)──▶ guard ──fork, exec──▶ job ──▶ its processes
//	       ◀──fd 3 (status)───
//
//   - The guard is a child subreaper (PR_SET_CHILD_SUBREAPER): a process of
//     the job whose parent exits is adopted by the guard, not by init. A
//     daemon that double-forks, setsid or not, stays under it, so the
//     guard finds every process of the job by parent links in /proc.
//   - gputop holds the only writing end of the control pipe. When gputop
//     dies, whatever killed it, the guard reads the end of that pipe
//     at once. Unless gputop said first that it is done with the job
//     (guardRelease), the guard sends SIGTERM to every process under it,
//     SIGKILL to those left KillAfter later, and exits when none is left.
//     The pipe, unlike a parent-death signal, is not fooled by the thread
//     that started the guard exiting before gputop does.
//   - The job has SIGKILL as its parent-death signal, set from the guard's
//     main thread, which lives as long as the guard: if the guard itself is
//     killed, the job is too.
//   - The guard is a process group of its own, so a signal to gputop's
//     group (the terminal's Ctrl-C, Ctrl-Z, kill -9 -PGID) does not touch
//     it, and it ignores the signals that end sessions. The job stays in
//     gputop's group, the terminal's foreground group, where it reads the
//     terminal, hears Ctrl-C and stops with Ctrl-Z as it would without
//     gputop (job_signal.go).
//   - The guard tells gputop the job's pid, or why it could not start it,
//     and then the job's wait status, over the status pipe; it gives the
//     job its stdin, stdout and stderr and lets go of its own copies, so
//     the job's output ends when the job's processes close it.
//
// What cannot be guaranteed: a process the job had started through a
// service outside its tree (systemd-run, a tmux server, a container
// runtime, ssh to another host) is not under the guard; a process running
// as another user (sudo, set-user-ID) cannot be signalled by it; and if
// the guard is killed with SIGKILL together with gputop (pkill -9 gputop
// matches both), only the job's own process is sure to go, by its
// parent-death signal.

const (
	// guardEnv marks a process started as a job's guard; its value is
	// guardSpec. The guard removes it from the job's environment.
	guardEnv = "GPUTOP_JOB_GUARD"
	// guardSpec carries gputop's process group and KillAfter, in ns.
	guardSpec = "1 %d %d"
	// guardName is the guard's argv[0] and, cut to 15 bytes, its name in
	// ps and top.
	guardName = "gputop-guard"
	// guardRelease, written to the control pipe before gputop closes it,
	// says gputop ended on its own terms: whatever the job left running
	// is left to run, as after a shell script that exits.
	guardRelease = 'r'
	// guardPoll is how often the guard looks again for processes that
	// outlived its SIGTERM, or were started after it looked.
	guardPoll = 20 * time.Millisecond
)

// guardWired says JobGuardMain has run: without it, StartJob would run
// this program's main again (a test binary its tests) as the guard.
var guardWired atomic.Bool

// JobGuardMain runs the guard of a job and exits, when this process was
// started as one by StartJob; otherwise it returns at once. Call it first
// thing in main, and in TestMain of tests that start jobs.
func JobGuardMain() {
	guardWired.Store(true)
	spec, ok := os.LookupEnv(guardEnv)
	if !ok {
		return
	}
	os.Exit(runGuard(spec, os.Args))
}

// runGuard is the guard's life: args are guardName, the job's program
// (its path, found by gputop) and the job's argv.
func runGuard(spec string, args []string) int {
	// The job's parent-death signal fires when the thread that forked it
	// exits: this goroutine keeps that thread, and ends only with the guard.
	runtime.LockOSThread()
	runtime.GOMAXPROCS(1)
	var pgid int
	var killAfter int64
	if n, err := fmt.Sscanf(spec, guardSpec, &pgid, &killAfter); n != 2 || err != nil || len(args) < 3 {
		fmt.Fprintf(os.Stderr, "gputop: %s=%q is not what this gputop's guard takes\n", guardEnv, spec)
		return 125
	}
	for fd := 3; fd <= 4; fd++ {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			fmt.Fprintf(os.Stderr, "gputop: %s is set, but this gputop was not started as a job's guard\n", guardEnv)
			return 125
		}
	}
	status, control := os.NewFile(3, "status"), os.NewFile(4, "control")
	syscall.CloseOnExec(3) // the job gets 0, 1 and 2, and nothing of ours
	syscall.CloseOnExec(4)
	// Caught, so that the job starts with them at their defaults (an
	// ignored signal would stay ignored in it), and never acted on.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
		syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	go func() {
		for range sigs {
		}
	}()
	os.WriteFile("/proc/self/comm", []byte(guardName), 0) // a name for ps; the default would be "exe"
	// Linux 3.4 and later. Without it the job's own process and its
	// children in their parents' lifetimes are still found.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, guardEnv+"=") })
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		errno, _ := err.(syscall.Errno)
		fmt.Fprintf(status, "error %d\n", errno)
		return 0
	}
	fmt.Fprintf(status, "pid %d\n", pid)
	// The job has its streams: let go of ours, so that gputop sees the
	// end of its output when the job's processes close theirs.
	if null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		for fd := range 3 {
			unix.Dup3(null, fd, 0)
		}
		unix.Close(null)
	}
	go watchGputop(control, time.Duration(killAfter))
	return reapAll(pid, status)
}

// reapAll waits for every child of the guard, the job and the processes it
// adopted, sends the job's wait status to gputop, and returns when the
// guard has no child left: nothing is left to guard.
func reapAll(jobPID int, status *os.File) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD
			return 0
		case pid == jobPID:
			// gputop may be gone; then nobody needs the answer.
			fmt.Fprintf(status, "exit %d\n", uint32(ws))
		}
	}
}

// watchGputop waits for the end of the control pipe: gputop has exited.
// Released, the guard leaves whatever is left; otherwise gputop died
// without ending the job, and the guard ends it.
func watchGputop(control *os.File, killAfter time.Duration) {
	released := false
	buf := make([]byte, 8)
	for {
		n, err := control.Read(buf)
		released = released || bytes.IndexByte(buf[:n], guardRelease) >= 0
		if err != nil {
			break
		}
	}
	if released {
		os.Exit(0)
	}
	endTreeOf(os.Getpid(), killAfter)
	// reapAll ends the guard when the last of them has been reaped.
}

// endTreeOf sends SIGTERM to every process under root (not root itself),
// and to those that appear later, until none is left; after killAfter
// (unless it is 0, never) it sends SIGKILL to what remains, until none is
// left.
func endTreeOf(root int, killAfter time.Duration) {
	scanner := newProcScanner("/proc")
	var members []procEntry
	var buf []byte
	under := func() []procEntry {
		entries, _ := scanner.scan() // a process that could not be read is looked for again next time
		members, _ = treeOf(root, entries, members)
		return slices.DeleteFunc(members[min(1, len(members)):], func(e procEntry) bool { return e.zombie })
	}
	type key struct {
		pid   int
		start uint64
	}
	termed := map[key]bool{}
	deadline := time.Now().Add(killAfter)
	for live := under(); len(live) > 0; live = under() {
		if killAfter > 0 && !time.Now().Before(deadline) {
			for len(live) > 0 {
				for _, e := range live {
					buf, _ = signalPinned(e, syscall.SIGKILL, buf)
				}
				time.Sleep(guardPoll / 4)
				live = under()
			}
			return
		}
		for _, e := range live {
			if k := (key{e.pid, e.startTime}); !termed[k] {
				termed[k] = true
				buf, _ = signalPinned(e, syscall.SIGTERM, buf)
			}
		}
		time.Sleep(guardPoll)
	}
}

// signalPinned sends sig to the process e describes, only if it is still
// that process: it is pinned with a pidfd, and its start time checked,
// before the signal goes, so that a pid reused since the scan is never
// signalled. Kernels without pidfds (before 5.3) get a plain kill. buf is
// scratch space, returned for reuse.
func signalPinned(e procEntry, sig syscall.Signal, buf []byte) ([]byte, error) {
	fd, err := unix.PidfdOpen(e.pid, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return buf, nil // gone
	case err != nil:
		err = syscall.Kill(e.pid, sig)
		if errors.Is(err, syscall.ESRCH) {
			err = nil
		}
		return buf, err
	}
	defer unix.Close(fd)
	buf, err = readFileInto(fmt.Sprintf("/proc/%d/stat", e.pid), buf)
	if err != nil {
		return buf, nil // exited since it was pinned
	}
	if st, err := parsePidStat(buf); err != nil || st.startTime != e.startTime {
		return buf, nil // a later process with the same pid: not ours
	}
	err = unix.PidfdSendSignal(fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		err = nil
	}
	return buf, err
}
