package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/ui"
)

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
