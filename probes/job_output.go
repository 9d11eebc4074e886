package probes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// jobStreams are the job's stdin, stdout and stderr as the files its guard
// hands on (job_guard.go), and the copying between them and the readers
// and writers gputop gave. os/exec would do this copying, but it waits for
// it in Cmd.Wait, which waits for the guard: the guard outlives the job
// (it lets gputop go on deciding about what the job left running), and the
// job's output must be over when the job is.
//
// An *os.File is handed over as it is (a terminal stays the job's
// terminal); nil is /dev/null; anything else gets a pipe and a goroutine
// that copies, as exec gives it. Two equal writers share one pipe, as
// exec's Stdout and Stderr do, so the job's lines keep their order.
type jobStreams struct {
	files [3]*os.File // the guard's fds 0, 1 and 2
	// theirs are the child's ends of pipes and the /dev/null opened here,
	// closed once the guard has them.
	theirs []*os.File
	// ours are the pipes' other ends, closed when the output is over, or
	// given up on.
	ours    []*os.File
	copying sync.WaitGroup // the output copiers; the stdin copier is not waited for

	mu  sync.Mutex
	err error // the first error passing output on
}

// newJobStreams opens what the job's three streams need.
func newJobStreams(stdin io.Reader, stdout, stderr io.Writer) (*jobStreams, error) {
	s := &jobStreams{}
	var err error
	if s.files[0], err = s.input(stdin); err != nil {
		s.closeAll()
		return nil, err
	}
	if s.files[1], err = s.output(stdout); err != nil {
		s.closeAll()
		return nil, err
	}
	if sameWriter(stdout, stderr) {
		s.files[2] = s.files[1]
	} else if s.files[2], err = s.output(stderr); err != nil {
		s.closeAll()
		return nil, err
	}
	return s, nil
}

func (s *jobStreams) input(r io.Reader) (*os.File, error) {
	switch r := r.(type) {
	case *os.File:
		return r, nil
	case nil:
		return s.devNull(os.O_RDONLY)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.theirs, s.ours = append(s.theirs, pr), append(s.ours, pw)
	go func() {
		// The job may never read it: an error here (the pipe closed when
		// the job ended) is nobody's business, as with exec's stdin.
		io.Copy(pw, r)
		pw.Close()
	}()
	return pr, nil
}

func (s *jobStreams) output(w io.Writer) (*os.File, error) {
	switch w := w.(type) {
	case *os.File:
		return w, nil
	case nil:
		return s.devNull(os.O_WRONLY)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.theirs, s.ours = append(s.theirs, pw), append(s.ours, pr)
	s.copying.Go(func() {
		_, err := io.Copy(w, pr)
		if err != nil && !errors.Is(err, os.ErrClosed) { // ErrClosed: given up on (wait)
			s.mu.Lock()
			if s.err == nil {
				s.err = err
			}
			s.mu.Unlock()
		}
	})
	return pw, nil
}

func (s *jobStreams) devNull(flag int) (*os.File, error) {
	f, err := os.OpenFile(os.DevNull, flag, 0)
	if err != nil {
		return nil, err
	}
	s.theirs = append(s.theirs, f)
	return f, nil
}

// started closes the ends the guard now holds: the job's output ends when
// the last of its processes closes its copy.
func (s *jobStreams) started() {
	for _, f := range s.theirs {
		f.Close() // our copy of what the guard has: closing it loses nothing
	}
	s.theirs = nil
}

// errOutputHeld is wait's error when output was still coming after grace.
func errOutputHeld(grace time.Duration) error {
	return fmt.Errorf("the job exited, but a process it left running still holds its output open; "+
		"stopped passing that output on %v later", grace)
}

// wait waits, once the job has exited, until its output has all been
// passed on, or grace has passed: something the job left running may hold
// its stdout for hours, and the report must not wait for it. Then it
// closes gputop's ends of the pipes.
func (s *jobStreams) wait(grace time.Duration) error {
	done := make(chan struct{})
	go func() {
		s.copying.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
		s.mu.Lock()
		if s.err != nil {
			err = fmt.Errorf("passing the job's output on: %w", s.err)
		}
		s.mu.Unlock()
	case <-time.After(grace):
		err = errOutputHeld(grace)
	}
	s.closeAll()
	<-done // closing the pipes ends the copying
	return err
}

// closeAll closes every file opened for the job's streams.
func (s *jobStreams) closeAll() {
	for _, f := range append(s.theirs, s.ours...) {
		f.Close() // done with; a pipe's close has nothing to report
	}
	s.theirs, s.ours = nil, nil
}
