package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
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
type session struct {
	id      string // the socket's name without its suffix: the recorder's pid
	sock    string
	started time.Time // when the socket was made: when the recording started
}

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
	var out []session
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+recordings.SessionSuffix))
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Type() != os.ModeSocket {
			continue
		}
		c, err := net.DialTimeout("unix", p, time.Second)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				os.Remove(p) // stale: its recorder died without removing it
			}
			continue
		}
		c.Close()
		out = append(out, session{id: strings.TrimSuffix(filepath.Base(p), recordings.SessionSuffix), sock: p, started: fi.ModTime()})
	}
	slices.SortStableFunc(out, func(a, b session) int { return b.started.Compare(a.started) })
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
		if s.id == id || s.sock == id {
			return s, false, nil
		}
	}
	if len(all) == 0 {
		return session{}, false, errNoSession
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.id
	}
	return session{}, false, fmt.Errorf("no running gputop session %s of yours (running: %s; see gputop attach --list)", id, strings.Join(ids, ", "))
}

// commandLine is the recorder's own command line, from /proc, for a person
// to tell sessions apart: "gputop run -o train.gtr -- python train.py".
func (s session) commandLine() string {
	pid, err := strconv.Atoi(strings.SplitN(s.id, "-", 2)[0])
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	return strings.Join(args, " ")
}

// describe says which session this is, in one line.
func (s session) describe() string {
	what := s.commandLine()
	if what == "" {
		what = "pid " + s.id
	}
	return fmt.Sprintf("session %s (%s), started %s", s.id, what, s.started.Format("2006-01-02 15:04:05"))
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
	src, err := dialSession(s)
	if err != nil {
		return err
	}
	defer src.Close()
	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()
	return runUI(ctx, src, ui.Options{ASCII: *ascii, Notice: "attached to " + s.describe() + "; q leaves it running",
		Settings: settings})
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
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.id, s.started.Format("2006-01-02 15:04:05"), s.commandLine())
	}
	return tw.Flush()
}

// errRecorderEnded is what the attached view says when the recording it
// follows is closed: it keeps what it has, as a replay that finished.
var errRecorderEnded = errors.New("the recording ended (its gputop stopped); this is what it recorded")

// sessionSource is a running recording as the screen's source: its history
// in batches as fast as the screen takes them, then each sample as it is
// written. m marks the recording.
type sessionSource struct {
	conn    net.Conn
	header  recordings.Header
	samples chan timeline.Sample
	done    chan struct{} // closed once err is set: no more samples
	err     error

	mu   sync.Mutex
	info timeline.SourceInfo
}

// dialSession connects to a session and reads its stream's header.
func dialSession(s session) (*sessionSource, error) {
	conn, err := net.DialTimeout("unix", s.sock, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("cannot attach to session %s: %v", s.id, innermost(err))
	}
	// All of its history, at once (without the request the recorder waits
	// a second for one).
	conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(conn, "history all\n"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot attach to session %s: %v", s.id, innermost(err))
	}
	// The header comes with the recording's first sample: a recorder that
	// has just started may take a few seconds to find its GPUs.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	sr, err := recordings.NewStreamReader(conn, "session "+s.id)
	if err != nil {
		conn.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("session %s has recorded nothing yet; try again in a moment", s.id)
		}
		return nil, fmt.Errorf("cannot attach to session %s: %v", s.id, err)
	}
	conn.SetReadDeadline(time.Time{})
	src := &sessionSource{conn: conn, header: sr.Header(), info: sr.Header().Info,
		samples: make(chan timeline.Sample, 256), done: make(chan struct{})}
	go src.read(sr)
	return src, nil
}

func (s *sessionSource) read(sr *recordings.StreamReader) {
	defer close(s.done)
	defer sr.Close()
	for {
		ev, err := sr.Next()
		switch {
		case errors.Is(err, io.EOF):
			s.err = errRecorderEnded
			return
		case errors.Is(err, net.ErrClosed):
			s.err = context.Canceled
			return
		case err != nil:
			s.err = fmt.Errorf("the recording stopped: %v", err)
			return
		}
		switch ev.Item {
		case recordings.StreamInfo:
			s.mu.Lock()
			s.info = ev.Info
			s.mu.Unlock()
		case recordings.StreamSample:
			s.samples <- ev.Sample // waits for the screen: the socket then waits for us
		}
	}
}

// Info is the recording's description, as it grew.
func (s *sessionSource) Info() timeline.SourceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// Next waits for the next sample.
func (s *sessionSource) Next(ctx context.Context) (timeline.Sample, error) {
	select {
	case smp := <-s.samples:
		return smp, nil
	case <-ctx.Done():
		return timeline.Sample{}, ctx.Err()
	case <-s.done:
		select {
		case smp := <-s.samples:
			return smp, nil
		default:
		}
		return timeline.Sample{}, s.err
	}
}

// NextBatch waits for one sample, then takes those that are there already:
// the history arrives in batches, as a replay's file does.
func (s *sessionSource) NextBatch(ctx context.Context, max int) ([]timeline.Sample, error) {
	first, err := s.Next(ctx)
	if err != nil {
		return nil, err
	}
	out := []timeline.Sample{first}
	for len(out) < max {
		select {
		case smp := <-s.samples:
			out = append(out, smp)
		default:
			return out, nil
		}
	}
	return out, nil
}

// Mark marks the recording: the recorder takes it as its own m.
func (s *sessionSource) Mark(text string) {
	text = strings.ReplaceAll(text, "\n", " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, _ = io.WriteString(s.conn, "mark "+text+"\n")
}

// Close leaves the session; the recording goes on.
func (s *sessionSource) Close() error {
	err := s.conn.Close()
	for {
		select {
		case <-s.samples: // let the reader see the close
		case <-s.done:
			return err
		}
	}
}

// attachStream is gputop stream on a host where this user records already:
// the recording's bytes, history first, go to stdout as they are written,
// and stdin's lines go to the recorder, so one sampler serves both.
// history > 0 asks for the recording from the segment that holds the time
// history ago on (whole five-minute segments), not all of it.
func attachStream(s session, history time.Duration, e *env) error {
	conn, err := net.DialTimeout("unix", s.sock, 2*time.Second)
	if err != nil {
		return fmt.Errorf("cannot attach to session %s: %v", s.id, innermost(err))
	}
	defer conn.Close()
	request := "history all\n"
	if history > 0 {
		request = "history " + history.String() + "\n"
	}
	if _, err := io.WriteString(conn, request); err != nil {
		return fmt.Errorf("cannot attach to session %s: %v", s.id, innermost(err))
	}
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
	select {
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
