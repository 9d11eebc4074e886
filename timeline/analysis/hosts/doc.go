// Package hosts holds the hint rules across the hosts of a session of
// several (a Prometheus import of a cluster, gputop --hosts): host-idle,
// host-late, straggler-host and uneven-memory, one file per rule, each a
// frame.Rule. A multi-node job is one job: its hosts should work alike, and
// where one does not, the whole job waits for it or wastes it.
//
// They judge each host by its GPUs together (columns.go: per column, how
// many of its GPUs are idle, working or busy-waiting, and the means of
// their figures, kept for the closed columns in blocks), and compare it with
// the other hosts; rules.go holds their thresholds and Suppress, which
// drops the one-GPU candidates a cross-host one explains. In a session of
// one host they never fire.
//
// The Engine lists them after the rules of one host (hintRules in
// timeline/analysis/hints.go) and calls Suppress; they register nothing.
// They are tested through the Engine, in timeline/analysis
// (hints_hosts_test.go, hints_cross_test.go).
//
// It imports only the standard library, timeline, units and the frame.
package hosts
