// Package analysis says what the timeline means: the phases of a job
// (busy, stalled, idle, and those its markers name) and the bottleneck
// hints with their evidence. One Engine per session takes each sample once
// as it arrives (Add) and answers for any moment up to the last: the
// screen, the report and a recording's hint snapshots all ask it, so they
// say the same things, and what it says of a moment depends only on the
// samples up to it.
//
//	sample ──Engine.Add──▶ columns (each GPU's state classified once; engine.go, hints_frame.go)
//	                       ├─▶ Engine.Hints(t) ──▶ the rules (hintRules in hints.go: one
//	                       │      table, one file per group, thresholds in Options and
//	                       │      docs/report.md) ──▶ hints, worst first
//	                       └─▶ Engine.Phases(from, to) ──▶ busy, stalled, idle (phases_engine.go,
//	                              shaped by timeline/analysis/phases; thresholds in PhaseOptions)
//
// Around it: Shown and SameHints (what the screen lists), HintTracker
// (what a recording keeps as the hints change), SamplesUntil (the samples
// the screen at a moment has judged), SortHints, GPUNamesOf.
//
// A new hint rule is a Rule (id, find, describe, yieldsTo) in the
// hints_*.go file of its group, listed in hintRules. In a session of
// several hosts the rules of hints_hosts.go compare the hosts (host-idle,
// host-late, straggler-host, uneven-memory), on the hosts' columns of
// hints_hosts_columns.go and hints_hostframe.go, and GPUs are named by host
// in evidence (GPUNamesOf).
//
// It imports only the standard library, timeline, units and its phases.
// The ui, the report, the exporter and gputop's commands import it; it
// never formats anything for a particular output beyond the one-line
// evidence a hint carries.
package analysis
