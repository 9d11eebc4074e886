package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/ui"
)

// gputop attach shows a recording that a record, run, serve -o or live
// view of this user is writing on this host, through the socket it
// listens on (recordings/share.go): the whole history, then live. The
// viewer is a client: quitting it leaves the recording alone, and m marks
// the recording.

// errNoSession is attach's answer when nothing of this user records here.
var errNoSession = errors.New("no running gputop session of yours to attach to; start one with gputop record")

// session is a recording being written that this user may attach to.
type session struct{ recordings.Session }

// An attached session hands the screen its history many samples at a
// time, as a replay does: the screen finds that out by a type assertion,
// so make sure of it here.
var _ ui.BatchSource = (*recordings.SessionSource)(nil)

// findSessions lists this user's recordings being written on this host,
// newest first, in the runtime directory (probes/marks): the one every
// session of this environment shares its recording in. Sockets that nobody
// listens on any more (a recorder that was killed) are removed on the way.
// err says why there is no directory to look in.
func findSessions() ([]session, error) {
	dir, err := marks.SessionDir()
	if err != nil {
		return nil, err
	}
	found := recordings.FindSessions(dir)
	out := make([]session, len(found))
	for i, s := range found {
		out[i] = session{s}
	}
	return out, nil
}

// pickSession finds the session named id (its pid, or its socket's path),
// or the newest when id is empty. several says there was more than one
// to choose from.
func pickSession(id string) (s session, several bool, err error) {
	all, err := findSessions()
	if err != nil {
		return session{}, false, err
	}
	if id == "" {
		if len(all) == 0 {
			return session{}, false, errNoSession
		}
		return all[0], len(all) > 1, nil
	}
	for _, s := range all {
		if s.ID == id || s.Sock == id {
			return s, false, nil
		}
	}
	if len(all) == 0 {
		return session{}, false, errNoSession
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.ID
	}
	return session{}, false, fmt.Errorf("no running gputop session %s of yours (running: %s; see gputop attach --list)", id, strings.Join(ids, ", "))
}

// describe says which session this is, in one line.
func (s session) describe() string {
	what := s.CommandLine()
	if what == "" {
		what = "pid " + s.ID
	}
	return fmt.Sprintf("session %s (%s), started %s", s.ID, what, s.Started.Format("2006-01-02 15:04:05"))
}

func cmdAttach(args []string, e *env) error {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	list := fs.Bool("list", false, "list this user's running sessions on this host, newest first, and exit")
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[1])}
	}
	if *list {
		if len(rest) > 0 {
			return usageError{"--list takes no SESSION"}
		}
		return listSessions(e.stdout)
	}
	id := ""
	if len(rest) == 1 {
		id = rest[0]
	}
	s, several, err := pickSession(id)
	if err != nil {
		return err
	}
	settings, err := screenSettings()
	if err != nil {
		return err
	}
	if err := checkTerminal(); err != nil {
		return err
	}
	closeLog, err := openLog(*logPath)
	if err != nil {
		return err
	}
	defer closeLog()
	if several {
		fmt.Fprintf(e.stderr, "gputop attach: %s, the newest; gputop attach --list shows the others\n", s.describe())
	}
	src, err := s.Attach()
	if err != nil {
		return err
	}
	defer src.Close()
	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()
	// A view attached to a session left running is a live one: its
	// history within the default budget.
	return runUI(ctx, src, ui.Options{ASCII: *ascii, Notice: "attached to " + s.describe() + "; q leaves it running",
		Settings: settings, Store: newLiveStore(defaultHistoryBudget())})
}

// listSessions prints the running sessions, newest first.
func listSessions(w io.Writer) error {
	all, err := findSessions()
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return errNoSession
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tCOMMAND")
	for _, s := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID, s.Started.Format("2006-01-02 15:04:05"), s.CommandLine())
	}
	return tw.Flush()
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
