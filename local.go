package main

import (
	"io"
	"log"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/probes/progress"
)

// localSession is a session sampling this machine (or a demo's simulated
// one) together with the socket `gputop mark` reaches it by: what the live
// view, record, serve, stream and run each open before their pipeline.
type localSession struct {
	*probes.PendingSession
	// marks is gputop mark's listener; a no-op one where none could be
	// opened (the warning said why).
	marks io.Closer
}

// openLocal opens a local session on cfg, the machine being the demo's
// when one was asked for (on cfg.Clock, the wall clock if nil), and its
// marker socket. A socket that cannot be opened does not stop sampling:
// its one-line warning goes to warn.
func openLocal(demo demoFlag, cfg probes.SessionConfig, warn func(string)) (*localSession, error) {
	if cfg.Clock == nil {
		cfg.Clock = probes.RealClock{}
	}
	machine, err := demo.machine(cfg.Clock)
	if err != nil {
		return nil, err
	}
	cfg.Machine = machine
	session := probes.OpenPending(cfg)
	listener, warning := openMarks(session)
	if warning != "" {
		warn(warning)
	}
	return &localSession{PendingSession: session, marks: listener}, nil
}

// close stops the marker socket, then the session, logging what went
// wrong: nobody is waiting for either by then.
func (s *localSession) close() {
	closeSession(s.marks)
	closeSession(s.PendingSession)
}

// openMarks makes `gputop mark` reach session: a listener to close when
// the session ends (a no-op one if none could be opened, which the log
// says), and a one-line warning when the usual marker directory could not
// be used or none at all.
func openMarks(session *probes.PendingSession) (io.Closer, string) {
	l, warning, err := marks.Open(func(text string) {
		// "progress 1200 steps" is the job's progress, not a marker.
		if r, ok := progress.ParseMark(text); ok {
			session.Progress("mark", r)
			return
		}
		session.MarkFrom("mark", text)
	})
	if err != nil {
		return io.NopCloser(nil), "markers from gputop mark will not arrive: " + err.Error()
	}
	return l, warning
}

// closeSession closes a session, logging what went wrong: nobody is
// waiting for it by then.
func closeSession(s io.Closer) {
	if err := s.Close(); err != nil {
		log.Printf("closing: %v", err)
	}
}
