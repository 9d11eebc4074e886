package probes

import (
	"bufio"
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

	"github.com/gputop-dev/gputop/probes/progress"
)

// JobConfig says what job `gputop run` wraps and where its output goes.
type JobConfig struct {
	// Command is the program (looked up in PATH) and its arguments.
	Command []string
	// Phases turn lines of the job's output into markers; nil makes
	// none, and then, without Progress either, the job writes straight to
	// Stdout and Stderr when they are files (a terminal stays the job's
	// terminal).
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
	// Progress reads the job's progress from the same lines (probes/progress:
	// tqdm bars, Keras, Hugging Face, "step N", ...); nil reads none.
	// OnProgress gets each reading, one at a time, from the goroutines
	// copying the output: it must not block.
	Progress   *progress.Parser
	OnProgress func(progress.Reading)
	// Env is added to gputop's environment for the job, replacing
	// variables of the same name: GPUTOP_MARK_SOCKET=<path>.
	Env []string
	// Stdin is given to the job. An *os.File (os.Stdin) is handed over
	// as it is, so the job reads the terminal itself: a pdb prompt works,
	// and end of input is the job's own. Nil is /dev/null.
	Stdin io.Reader
	// KillAfter is how long the job's processes have between SIGTERM and
	// SIGKILL when gputop dies without ending the job (0: SIGTERM only).
	KillAfter time.Duration
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

// Job is the process `gputop run` started, under its guard (job_guard.go).
type Job struct {
	guard          *exec.Cmd
	guardStart     uint64 // the guard's start time, to tell its pid reused after Close
	pid            int
	streams        *jobStreams
	control        *os.File      // to the guard; its end tells the guard gputop is gone
	stdout, stderr *lineSplitter // nil without Phases
	// delivered says whether the terminal or its hang-up already sent sig
	// to the job (job_signal.go); tests replace it.
	delivered func(sig os.Signal, jobPID int) Delivery

	exited chan struct{} // closed when the guard has said how the job ended, or died
	status syscall.WaitStatus
	lost   error // the guard died before saying

	treeMu    sync.Mutex
	scanner   *procScanner
	signalled []procEntry // the tree when last signalled

	waitOnce sync.Once
	code     int
	err      error

	closeOnce sync.Once
	closeErr  error
}

// StartJob starts the job, under a guard that ends it should gputop die
// (job_guard.go); call Close when done with it. With Phases its output
// goes through pipes that gputop reads, so the job's stdout is not a
// terminal; Python then buffers print() output in blocks of kilobytes, and
// its lines (and markers) would come late and in bursts, so
// PYTHONUNBUFFERED=1 is set unless the environment already says otherwise.
func StartJob(cfg JobConfig) (*Job, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	if !guardWired.Load() {
		return nil, errors.New("the job's guard is not wired: JobGuardMain must run first in main (and TestMain)")
	}
	// The program is looked up here, with gputop's PATH, for exec's own
	// errors ("executable file not found in $PATH").
	lookup := exec.Command(cfg.Command[0])
	if lookup.Err != nil {
		return nil, lookup.Err
	}
	env := append(os.Environ(), cfg.Env...) // a later entry wins
	hadTerminal := hasTerminal()
	j := &Job{scanner: newProcScanner("/proc"), exited: make(chan struct{}), delivered: func(sig os.Signal, pid int) Delivery {
		return deliveredToJob(sig, pid, hadTerminal)
	}}
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if cfg.Phases != nil || cfg.Progress != nil {
		var m *phaseMatcher
		if cfg.Phases != nil {
			m = newPhaseMatcher(cfg.Phases, cfg.OnMarker)
		}
		j.stdout, j.stderr = &lineSplitter{m: m}, &lineSplitter{m: m}
		if cfg.Progress != nil && cfg.OnProgress != nil {
			j.stdout.progress, j.stderr.progress = cfg.Progress, cfg.Progress.Clone()
			j.stdout.onProgress, j.stderr.onProgress = cfg.OnProgress, cfg.OnProgress
		}
		out := &outputTee{dst: orDiscard(cfg.Stdout), lines: j.stdout}
		stdout, stderr = out, &outputTee{dst: orDiscard(cfg.Stderr), lines: j.stderr}
		if sameWriter(cfg.Stdout, cfg.Stderr) {
			stderr = out // one pipe for both, as a shell's 2>&1
		}
		if !hasEnv(env, "PYTHONUNBUFFERED") {
			env = append(env, "PYTHONUNBUFFERED=1")
		}
	}
	var err error
	if j.streams, err = newJobStreams(cfg.Stdin, stdout, stderr); err != nil {
		return nil, err
	}
	if err := j.startGuard(lookup.Path, cfg, env); err != nil {
		j.streams.closeAll()
		return nil, err
	}
	return j, nil
}

// startGuard starts the guard, which starts the job, and reads the job's
// pid from it.
func (j *Job) startGuard(path string, cfg JobConfig, env []string) error {
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	controlR, controlW, err := os.Pipe()
	if err != nil {
		statusR.Close()
		statusW.Close()
		return err
	}
	g := exec.Command("/proc/self/exe")
	g.Args = append([]string{guardName, path}, cfg.Command...)
	g.Env = append(env, fmt.Sprintf(guardEnv+"="+guardSpec, syscall.Getpgrp(), cfg.KillAfter.Nanoseconds()))
	g.Stdin, g.Stdout, g.Stderr = j.streams.files[0], j.streams.files[1], j.streams.files[2]
	g.ExtraFiles = []*os.File{statusW, controlR}
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = g.Start()
	statusW.Close() // the guard's now, as is controlR
	controlR.Close()
	j.streams.started()
	if err != nil {
		statusR.Close()
		controlW.Close()
		return fmt.Errorf("starting the job's guard: %w", err)
	}
	j.guard, j.control = g, controlW
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", g.Process.Pid)); err == nil {
		if st, err := parsePidStat(b); err == nil {
			j.guardStart = st.startTime
		}
	}
	status := bufio.NewReader(statusR)
	line, readErr := status.ReadString('\n')
	var n int
	switch {
	case sscan(line, "pid %d\n", &n):
		j.pid = n
	case sscan(line, "error %d\n", &n):
		err = &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
	default:
		err = fmt.Errorf("the job's guard ended before starting the job (%v)", readErr)
	}
	if err != nil {
		statusR.Close()
		controlW.Close()
		g.Wait() // it has exited, or exits now that the control pipe is closed
		return err
	}
	go j.readStatus(status, statusR)
	return nil
}

// sscan says whether line is format, filling in args.
func sscan(line, format string, args ...any) bool {
	n, err := fmt.Sscanf(line, format, args...)
	return err == nil && n == len(args)
}

// readStatus reads the guard's last word: how the job ended.
func (j *Job) readStatus(status *bufio.Reader, f *os.File) {
	defer f.Close()
	defer close(j.exited)
	line, err := status.ReadString('\n')
	var ws uint32
	if sscan(line, "exit %d\n", &ws) {
		j.status = syscall.WaitStatus(ws)
		return
	}
	if err == nil {
		err = fmt.Errorf("unexpected %q", line)
	}
	j.lost = fmt.Errorf("the job's guard (pid %d) ended before the job did (%v); the job was killed with it", j.guard.Process.Pid, err)
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
func (j *Job) PID() int { return j.pid }

// Wait waits for the job to exit and its output to be passed on, and
// returns its exit code: its exit status, or 128 plus the signal's number
// when a signal killed it (as a shell reports it: 137 for SIGKILL). The
// error is nil when the job ran and its output went through, whatever its
// exit code; otherwise it says what went wrong, and the code is still the
// job's when it is known (-1 when not). Later calls return the same.
func (j *Job) Wait() (exitCode int, err error) {
	j.waitOnce.Do(func() {
		<-j.exited
		outErr := j.streams.wait(outputGrace)
		if j.stdout != nil {
			// The copying is over: the last lines, had they no newline,
			// are complete now.
			j.stdout.flush()
			j.stderr.flush()
		}
		switch {
		case j.lost != nil:
			j.code, j.err = -1, j.lost
		case j.status.Signaled():
			j.code, j.err = 128+int(j.status.Signal()), outErr
		default:
			j.code, j.err = j.status.ExitStatus(), outErr
		}
	})
	return j.code, j.err
}

// Close lets the guard go. Once the job has exited, what the job left
// running is left to run, as a shell leaves what a script started in the
// background; before, the guard ends the job as if gputop had died
// (SIGTERM, then SIGKILL KillAfter later), and Close waits for that. Later
// calls return the first call's result.
func (j *Job) Close() error {
	j.closeOnce.Do(func() {
		select {
		case <-j.exited:
			// A guard that exited already (nothing was left) does not read
			// it: EPIPE then says nothing new.
			j.control.Write([]byte{guardRelease})
		default:
		}
		j.control.Close()
		if err := j.guard.Wait(); err != nil {
			j.closeErr = fmt.Errorf("the job's guard: %w", err)
		}
	})
	return j.closeErr
}
