package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/charmbracelet/x/term"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/marks"
)

// gputop stream is the remote end of gputop --hosts: `ssh node3 gputop
// stream` samples node3 and writes the recording, as it is written, to
// stdout (docs/recording-format.md, Streams). Its stdin carries markers
// the other way, one line each:
//
//	mark <text>    a marker, as m in the viewer would drop it
//
// Other lines are ignored, so a later viewer may send more. The end of
// stdin ends the stream: ssh closes it when the viewer goes away, and
// nothing must be left sampling on the host. The recording is then
// closed as any other (the verdict, the index), as far as stdout still
// takes it, and gputop exits 0.

// maxStreamLine bounds a line on stream's stdin; a longer one is dropped.
const maxStreamLine = 4 << 10

// errStdinClosed ends a stream whose stdin ended.
var errStdinClosed = errors.New("stdin closed")

// errStdinEmpty is a stream whose stdin ended before it sent anything.
var errStdinEmpty = errors.New("stdin closed before the first sample: nothing sent (--duration D streams for D)")

// stdinAtEnd says whether stdin is known to be at its end before anything
// is read: /dev/null (`< /dev/null`, a cron job's) or an empty regular
// file. A pipe or a terminal may carry lines later: not known.
func stdinAtEnd(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if fi.Mode().IsRegular() {
		off, err := f.Seek(0, io.SeekCurrent)
		return err == nil && off >= fi.Size()
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

func cmdStream(e *env) *cobra.Command {
	c := newCommand("stream [--interval 1s] [--demo[=SCENARIO]] [--duration D] [--session ID] [--new] [--history D]",
		"write the recording to stdout as it is written (following a running session of yours, or sampling), for gputop --hosts over ssh",
		"gputop stream --demo=imbalance --duration 1m > run.gtr", "ssh node3 gputop stream  # what gputop --hosts runs")
	fs := c.Flags()
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	demoVar(fs, &demo, "stream 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	duration := fs.Duration("duration", 0, "stop on the last sample within this long, whether stdin ends or not (default: until stdin ends, or a signal)")
	sessionID := fs.String("session", "", "follow this running session of yours (gputop attach --list), not the newest")
	fresh := fs.Bool("new", false, "sample anew even where a session of yours records already")
	history := fs.Duration("history", 0, "following a session: send only its last `D` (in whole 5-minute segments), not all of it")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		switch {
		case len(rest) > 0:
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		case *duration < 0 || (*duration == 0 && fs.Changed("duration")):
			return usageError{"--duration must be more than 0 (without it: until Ctrl-C)"}
		case *history < 0:
			return usageError{"--history must be positive"}
		}
		if err := checkInterval(*interval); err != nil {
			return err
		}
		if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
			return errors.New("stdout is a terminal; the stream is binary, for gputop --hosts (or redirect it: gputop stream > run.gtr)")
		}
		if *sessionID != "" && (*fresh || demo.scenario != "") {
			return usageError{"--session follows a running session; it goes with neither --new nor --demo"}
		}
		// Where this user records already, follow that recording rather than
		// sample the GPUs a second time: one sampler, its whole history.
		if !*fresh && demo.scenario == "" {
			s, several, err := pickSession(*sessionID)
			if err == nil && s.Stopped() {
				// A suspended recorder sends nothing: following it, the viewer
				// would wait for ever.
				if *sessionID != "" {
					return s.StoppedError()
				}
				fmt.Fprintf(e.stderr, "gputop stream: %s; sampling anew\n", oneLine(s.StoppedError()))
				err = errNoSession
			}
			switch {
			case err == nil:
				newest := ""
				if several {
					newest = ", the newest (--session picks another)"
				}
				fmt.Fprintf(e.stderr, "gputop stream: following %s%s\n", s.describe(), newest)
				return attachStream(s, *history, e)
			case *sessionID != "":
				return err
			}
		}
		if *duration == 0 && stdinAtEnd(e.stdin) {
			// Decided before sampling, not by whether the first sample or
			// stdin's end came first: that was the scheduler's call, and CI
			// once lost it.
			return errStdinEmpty
		}
		log.SetOutput(io.Discard)
		// A viewer that went away closes the pipe: writing then fails with
		// EPIPE, which ends the stream, instead of SIGPIPE killing gputop
		// before it could close anything.
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, syscall.SIGPIPE)
		defer signal.Stop(pipe)

		ctx, stopSignals := endOnSignal(e)
		defer stopSignals()
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		// Every host of a --hosts view samples on the same whole seconds: the
		// viewer compares them moment for moment and reads them in one burst.
		session, err := openLocal(demo, probes.SessionConfig{Interval: *interval, AlignTicks: true}, func(w string) {
			fmt.Fprintf(e.stderr, "gputop stream: %s\n", w)
		})
		if err != nil {
			return err
		}
		defer session.close()
		rec := newPipeline(defaultHistoryBudget()).recorder(session, nil, false, false)
		name := "stdout"
		if f, ok := e.stdout.(*os.File); ok {
			name = f.Name() // as a write error names it: "/dev/stdout: broken pipe"
		}
		if err := rec.StartWriter(name, nopCloser{e.stdout}); err != nil {
			return err
		}
		if e.stdin != nil {
			stdinEnds := func() { cancel(errStdinClosed) }
			if *duration > 0 {
				stdinEnds = func() {} // a set time: stdin only carries markers
			}
			go readStreamInput(e.stdin, session.PendingSession, e.stderr, stdinEnds)
		}
		runErr := rec.Run(ctx, *duration)
		sum, err := rec.Stop()
		switch {
		case errors.Is(context.Cause(ctx), errStdinClosed) && sum.Samples == 0:
			// Run by hand with stdin closed (a pipe closed at once): it
			// stopped before its first sample, so say why nothing came.
			return errStdinEmpty
		case errors.Is(context.Cause(ctx), errStdinClosed):
			return nil // the viewer is gone: nobody to tell about the close
		case runErr != nil:
			return runErr
		case sum.Failed != nil:
			return sum.Failed
		}
		return err
	}
	return watches(c)
}

// nopCloser leaves stdout open when the recording closes: gputop's, not
// the recording's.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// readStreamInput takes the stream's stdin line by line (mark <text>) until
// it ends, then calls end.
func readStreamInput(in io.Reader, session *probes.PendingSession, stderr io.Writer, end func()) {
	defer end()
	eachLine(in, func(line []byte, _ bool) bool {
		if text, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r\n"), "mark "); ok {
			if text, perr := marks.Parse([]byte(text)); perr == nil {
				session.MarkFrom("key", text)
			} else {
				fmt.Fprintf(stderr, "gputop stream: marker refused: %s\n", oneLine(perr))
			}
		}
		return true
	})
}

// eachLine calls fn with each line of r that fits in maxStreamLine (with
// its newline, and whether it had one: the last may not), until r ends or
// fn says stop. A longer line is too long for any command: it is dropped
// up to its end.
func eachLine(r io.Reader, fn func(line []byte, complete bool) bool) {
	br := bufio.NewReaderSize(r, maxStreamLine)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				return
			}
			continue
		}
		if len(line) > 0 && !fn(line, line[len(line)-1] == '\n') {
			return
		}
		if err != nil {
			return
		}
	}
}

// attachStream is gputop stream on a host where this user records already:
// the recording's bytes, history first, go to stdout as they are written,
// and stdin's lines go to the recorder, so one sampler serves both.
// history > 0 asks for the recording from the segment that holds the time
// history ago on (whole five-minute segments), not all of it.
func attachStream(s session, history time.Duration, e *env) error {
	conn, err := s.Follow(history)
	if err != nil {
		return err
	}
	defer conn.Close()
	stdinDone := make(chan struct{})
	if e.stdin != nil {
		go func() {
			defer close(stdinDone)
			copyLines(conn, e.stdin)
		}()
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(e.stdout, conn)
		copied <- err
	}()
	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()
	watchDone := make(chan struct{})
	defer close(watchDone)
	select {
	case err := <-s.WatchStopped(watchDone):
		return err // suspended: it would send nothing, for ever
	case err := <-copied:
		if err != nil && !errors.Is(err, net.ErrClosed) {
			return err // stdout failed: the viewer is gone
		}
		return nil // the recording ended: its trailer went out
	case <-stdinDone:
		return nil // the viewer went away
	case <-ctx.Done():
		return nil
	}
}

// copyLines passes stdin's lines to the recorder, which takes "mark TEXT"
// as gputop stream does; a line over maxStreamLine is dropped.
func copyLines(w io.Writer, r io.Reader) {
	eachLine(r, func(line []byte, complete bool) bool {
		if !complete {
			return true
		}
		_, err := w.Write(line)
		return err == nil
	})
}
