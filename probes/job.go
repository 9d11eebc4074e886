package probes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"
)

// JobConfig says what job `gputop run` wraps and where its output goes.
type JobConfig struct {
	// Command is the program (looked up in PATH) and its arguments.
	Command []string
	// Phases turn lines of the job's output into markers; nil makes
	// none, and then the job writes straight to Stdout and Stderr when they
	// are files (a terminal stays the job's terminal).
	Phases *PhaseRules
	// OnMarker gets each marker's text: the regex's capture groups that
	// took part in the match, joined by spaces, or the whole line when
	// none did (so `(epoch \d+)` makes "epoch 3" of "epoch 3 step 400
	// loss 1.2", and `checkpoint` makes the whole line). Terminal escapes
	// are removed first, and the text is cut to marks.MaxBytes. A marker
	// with the same text as the one before it is dropped, so a line
	// printed at every step makes one marker when it changes, not one per
	// step. "\r" ends a line as "\n" does (progress bars). Calls come one
	// at a time, from the goroutines copying the output: it must not
	// block, or the job's output stalls.
	OnMarker func(text string)
	// Env is added to gputop's environment for the job, replacing
	// variables of the same name: GPUTOP_MARK_SOCKET=<path>.
	Env []string
	// Stdin is given to the job. An *os.File (os.Stdin) is handed over
	// as it is, so the job reads the terminal itself: a pdb prompt works,
	// and end of input is the job's own. Nil is /dev/null.
	Stdin io.Reader
	// Stdout and Stderr receive the job's output, each byte for byte and in
	// order, as it arrives; nil discards it. When they are the same writer
	// the job gets one pipe (or file) for both, as a shell's 2>&1 gives it,
	// so its lines keep exactly the order it wrote them in. Otherwise the
	// two streams are separate pipes, and how lines of one interleave with
	// lines of the other is as the timing of two readers makes it.
	Stdout, Stderr io.Writer
}

// outputGrace is how long Wait keeps passing output on after the job has
// exited, when something the job left running still holds its stdout or
// stderr open: long enough for worker processes that are dying with the
// job to say their last words, short enough that a daemon the job started
// does not hold up the report.
const outputGrace = 2 * time.Second

// Job is the process `gputop run` started.
type Job struct {
	cmd            *exec.Cmd
	stdout, stderr *lineSplitter // nil without Phases
	// delivered says whether the terminal or its hang-up already sent sig
	// to the job (job_signal.go); tests replace it.
	delivered func(sig os.Signal, jobPID int) Delivery
	rootStart uint64 // the job's start time, to tell its pid reused

	treeMu    sync.Mutex
	scanner   *procScanner
	signalled []procEntry // the tree when last signalled

	waitOnce sync.Once
	code     int
	err      error
}

// StartJob starts the job. With Phases its output goes through
// pipes that gputop reads, so the job's stdout is not a terminal; Python
// then buffers print() output in blocks of kilobytes, and its lines (and
// markers) would come late and in bursts, so PYTHONUNBUFFERED=1 is set
// unless the environment already says otherwise.
func StartJob(cfg JobConfig) (*Job, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(os.Environ(), cfg.Env...) // a later entry wins
	cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Stdin, cfg.Stdout, cfg.Stderr
	cmd.WaitDelay = outputGrace
	hadTerminal := hasTerminal()
	j := &Job{cmd: cmd, scanner: newProcScanner("/proc"), delivered: func(sig os.Signal, pid int) Delivery {
		return deliveredToJob(sig, pid, hadTerminal)
	}}
	if cfg.Phases != nil {
		m := newPhaseMatcher(cfg.Phases, cfg.OnMarker)
		j.stdout, j.stderr = &lineSplitter{m: m}, &lineSplitter{m: m}
		// A writer that is not an *os.File makes exec copy from a pipe as
		// data arrives (a read returns whatever the job has written).
		stdout := &outputTee{dst: orDiscard(cfg.Stdout), lines: j.stdout}
		cmd.Stdout, cmd.Stderr = stdout, &outputTee{dst: orDiscard(cfg.Stderr), lines: j.stderr}
		if sameWriter(cfg.Stdout, cfg.Stderr) {
			// exec gives the job one pipe for two equal writers.
			cmd.Stderr = stdout
		}
		if !hasEnv(cmd.Env, "PYTHONUNBUFFERED") {
			cmd.Env = append(cmd.Env, "PYTHONUNBUFFERED=1")
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if entries, _ := j.scanner.scan(); len(entries) > 0 {
		for _, e := range entries {
			if e.pid == cmd.Process.Pid {
				j.rootStart = e.startTime
			}
		}
	}
	return j, nil
}

// sameWriter says whether a and b are one writer, without comparing
// values that cannot be compared.
func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) || !reflect.TypeOf(a).Comparable() {
		return false
	}
	return a == b
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// PID is the job's process id, the root of its process tree.
func (j *Job) PID() int { return j.cmd.Process.Pid }

// Wait waits for the job to exit and its output to be passed on, and
// returns its exit code: its exit status, or 128 plus the signal's number
// when a signal killed it (as a shell reports it: 137 for SIGKILL). The
// error is nil when the job ran and its output went through, whatever its
// exit code; otherwise it says what went wrong, and the code is still the
// job's when it is known (-1 when not). Later calls return the same.
func (j *Job) Wait() (exitCode int, err error) {
	j.waitOnce.Do(func() {
		err := j.cmd.Wait()
		if j.stdout != nil {
			// The copying is over: the last lines, had they no newline,
			// are complete now.
			j.stdout.flush()
			j.stderr.flush()
		}
		j.code, j.err = exitStatus(j.cmd.ProcessState, err)
	})
	return j.code, j.err
}

func exitStatus(ps *os.ProcessState, err error) (int, error) {
	if ps == nil {
		return -1, err
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		err = nil // a failing job is the job's answer, not gputop's error
	case errors.Is(err, exec.ErrWaitDelay):
		err = fmt.Errorf("the job exited, but a process it left running still holds its output open; "+
			"stopped passing that output on %v later", outputGrace)
	case err != nil:
		err = fmt.Errorf("passing the job's output on: %w", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), err
	}
	return ps.ExitCode(), err
}
