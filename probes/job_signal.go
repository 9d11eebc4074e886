package probes

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The job runs in gputop's own process group: it must, to read the
// terminal (a background group that reads it is stopped). So "the job's
// process group" is gputop's too, and gputop cannot signal that group
// without signalling itself. Instead it signals the job's process tree: the
// job and every process it started, found in /proc, which is the part of
// the group that is the job's. That is what a terminal's Ctrl-C reaches.

// Delivery says how a signal gputop received reached its job.
type Delivery uint8

const (
	// Forwarded: gputop passed it on to the job's processes.
	Forwarded Delivery = iota
	// ByKeyboard: Ctrl-C or Ctrl-\ reached the job from the terminal, as
	// it reached gputop; what the job does about it is its own business.
	ByKeyboard
	// ByHangUp: the terminal hung up, and the hang-up reaches the job by
	// itself (see hangUpReachesJob).
	ByHangUp
)

// Signal passes sig, which gputop received, on to every process of the
// job's tree, unless the terminal (or the session's hang-up) has already
// sent it to all of them, and says which. Signalling a job that has
// already exited does nothing.
//
// Ctrl-C and Ctrl-\ reach every process of the terminal's foreground group:
// when gputop and the job are both in it, the job already has the signal,
// and sending it again would interrupt it twice (Python would raise a
// second KeyboardInterrupt in the middle of handling the first). A hang-up
// is similar: the session's leader gets SIGHUP, and a shell that leads it
// passes it to the process group of each of its jobs (gputop's, the job's
// too), as the kernel does to the foreground group when the leader exits.
// The one case this gets wrong is `kill -INT` aimed at a gputop in a
// terminal's foreground: the job does not hear it (signal the job, or
// `kill -INT -<pgid>`). SIGTERM and the rest never come from a terminal
// and are always passed on.
func (j *Job) Signal(sig os.Signal) (Delivery, error) {
	if d := j.delivered(sig, j.PID()); d != Forwarded {
		return d, nil
	}
	return Forwarded, j.signalTree(sig.(syscall.Signal))
}

// Kill sends SIGKILL to every process of the job's tree, and to those that
// were in it when it was last signalled and are still running though their
// parent has gone (orphans, adopted by init).
func (j *Job) Kill() error { return j.signalTree(syscall.SIGKILL) }

// signalTree signals the job's tree as it is now, and the processes last
// seen in it that are still there, and remembers who it signalled.
func (j *Job) signalTree(sig syscall.Signal) error {
	j.treeMu.Lock()
	defer j.treeMu.Unlock()
	members, scanErr := j.currentTree()
	var errs []error
	var buf []byte
	for _, m := range members {
		var err error
		if buf, err = signalPinned(m, sig, buf); err != nil {
			errs = append(errs, err)
		}
	}
	j.signalled = append(j.signalled[:0], members...)
	if len(members) == 0 {
		return scanErr // the job and its processes are gone: nothing to do
	}
	return errors.Join(errs...)
}

// currentTree is the job's tree as /proc shows it now: every process
// under its guard (the job, what it started, and what the guard adopted
// when a parent exited), together with every process signalled before
// that still runs (the same pid and start time) and its descendants.
// Called with treeMu held.
func (j *Job) currentTree() ([]procEntry, error) {
	entries, err := j.scanner.scan()
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	var out []procEntry
	guard := j.guard.Process.Pid
	seen := map[int]bool{guard: true} // the guard is not the job's
	add := func(root int) {
		var members []procEntry
		members, _ = treeOf(root, entries, members)
		for _, m := range members {
			if !seen[m.pid] && !m.zombie { // a zombie has exited already
				seen[m.pid] = true
				out = append(out, m)
			}
		}
	}
	// Once Close has reaped the guard, its pid may be another process's:
	// its start time tells.
	for _, e := range entries {
		if e.pid == guard && e.startTime == j.guardStart {
			add(guard)
			break
		}
	}
	for _, old := range j.signalled {
		for _, e := range entries {
			if e.pid == old.pid && e.startTime == old.startTime {
				add(e.pid)
				break
			}
		}
	}
	return out, err
}

// leftovers counts the processes signalled last that still run.
func (j *Job) leftovers() (int, error) {
	j.treeMu.Lock()
	defer j.treeMu.Unlock()
	members, err := j.currentTree()
	return len(members), err
}

// leftoverPoll is how often EndTree looks for the processes that remain.
const leftoverPoll = 50 * time.Millisecond

// EndTree is the end of a job that was signalled: once the job has exited
// (after Wait), the processes it started may still be shutting down. It
// waits until every process signalled is gone, or ctx is done, and then
// kills those that remain, so none is left orphaned when gputop exits.
// It returns how many it had to kill.
func (j *Job) EndTree(ctx context.Context) (int, error) {
	tick := time.NewTicker(leftoverPoll)
	defer tick.Stop()
	for {
		n, err := j.leftovers()
		if n == 0 {
			return 0, err
		}
		select {
		case <-ctx.Done():
			j.treeMu.Lock()
			members, _ := j.currentTree()
			j.treeMu.Unlock()
			return len(members), j.Kill()
		case <-tick.C:
		}
	}
}

// deliveredToJob says whether sig reached the job as well as gputop by
// way of the terminal or the session, so passing it on would deliver it
// twice; hadTerminal says whether gputop had a controlling terminal when
// the job started. When that cannot be told (no terminal, the job gone)
// the answer is Forwarded, to be passed on: one signal too many is better
// than a job that never hears it.
func deliveredToJob(sig os.Signal, jobPID int, hadTerminal bool) Delivery {
	switch {
	case (sig == syscall.SIGINT || sig == syscall.SIGQUIT) && keyboardSentToJob(jobPID):
		return ByKeyboard
	case sig == syscall.SIGHUP && hangUpReachesJob(jobPID, hadTerminal):
		return ByHangUp
	}
	return Forwarded
}

// keyboardSentToJob says whether gputop and the job are both in the
// foreground process group of gputop's controlling terminal, to which the
// terminal sends the signals of Ctrl-C and Ctrl-\.
func keyboardSentToJob(jobPID int) bool {
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false // no controlling terminal
	}
	defer tty.Close() // opened read-only, to ask one question
	foreground, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return false
	}
	jobGroup, err := syscall.Getpgid(jobPID)
	return err == nil && foreground == syscall.Getpgrp() && foreground == jobGroup
}

// hangUpReachesJob says whether a SIGHUP comes from the terminal hanging
// up and reaches the job by itself. A hang-up signals the session's leader
// and takes the controlling terminal away from every process of the
// session; the leader, a shell, passes SIGHUP to its jobs' process groups,
// and when it exits the kernel signals the group that was in the
// foreground. Either way the job, in gputop's group, hears it. Not so
// when gputop itself leads the session (`ssh -t host gputop run ...`):
// the kernel signals only gputop, and the job's group hears it only once
// gputop has exited. A SIGHUP while the terminal is still there was sent
// to gputop alone (kill -HUP).
func hangUpReachesJob(jobPID int, hadTerminal bool) bool {
	if !hadTerminal {
		return false
	}
	if tty, err := os.Open("/dev/tty"); err == nil {
		tty.Close() // opened to see whether it is there
		return false
	}
	if sid, err := unix.Getsid(0); err != nil || sid == os.Getpid() {
		return false
	}
	jobGroup, err := syscall.Getpgid(jobPID)
	return err == nil && jobGroup == syscall.Getpgrp()
}

// hasTerminal says whether gputop has a controlling terminal.
func hasTerminal() bool {
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	tty.Close() // opened to see whether it is there
	return true
}
