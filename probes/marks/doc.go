// Package marks carries markers to the running sessions of one user: each
// session that samples (the live view, record, run) listens on a Unix
// socket of its own, mode 0600, in a directory only that user can enter;
// `gputop mark TEXT` and a wrapped job's own code (through SocketEnv) send
// a marker to every one of them. The protocol is one line of text and one
// line of answer, plain enough for three lines of Python (README).
//
//	gputop mark ──Send──▶ Dirs() ──▶ <pid>.sock ──Listen──▶ deliver(text) ──▶ the session's next sample
//
// It imports only the standard library.
package marks
