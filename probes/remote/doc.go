// Package remote follows several hosts at once for `gputop --hosts`: it runs
// `ssh HOST gputop stream` for each (through the user's own ssh, or the
// --ssh-command that replaces it), reads each host's stream, and merges them
// into one timeline.Source that the screen and the Recorder take like any
// other, with the session-wide GPU numbering of a multi-host recording.
//
//	ssh node1 gputop stream ─▶ host goroutine ─▶ latest samples (≤ 4) ─┐
//	ssh node2 gputop stream ─▶ host goroutine ─▶ latest samples (≤ 4) ─┼─▶ Source.Next, on the viewer's tick
//	...                                                                 ┘   (gpuN renumbered, host@NAME, "remote" status)
//
// Files: hostlist.go (node[3-8] lists), command.go (the transport's command
// line, split as a shell splits it), transport.go (the child processes, with
// bounded stderr and a kill of the whole process group), stream.go (a
// host's stream read with recordings.NewStreamReader), host.go (one host:
// connect, read, fail, back off, reconnect; when a sample is due),
// source.go (the merge).
//
// Faults never reach past their host: a host that cannot be reached, lacks
// gputop, runs an older one, hangs or drops is one ProbeStatus{Probe:
// "remote"} with the reason and the retry, and a gap in its series; its
// goroutine holds at most a few samples, and quitting kills and reaps every
// child. docs/hosts.md says it for users.
//
// It imports timeline and the standard library (and recordings, for the
// stream's reader); the UI never imports it.
package remote
