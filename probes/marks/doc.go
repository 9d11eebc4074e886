// Package marks carries markers to the running sessions of one user: each
// session that samples (the live view, record, run) listens on a Unix
// socket of its own, mode 0600, in the user's runtime directory, which
// only that user can enter; `gputop mark TEXT` and a wrapped job's own
// code (through SocketEnv) send a marker to every one of them. The protocol is one line of text and one
// line of answer, plain enough for three lines of Python (docs/run.md).
//
//	gputop mark ──Send──▶ SessionDir() ──▶ <pid>.sock ──Listen──▶ deliver(text) ──▶ the session's next sample
//
// SessionDir and Dir apply one rule (dir.go), so a session and a mark
// started in the same environment meet, and a mark never reaches the
// sessions of another runtime directory.
//
// It imports only the standard library.
package marks
