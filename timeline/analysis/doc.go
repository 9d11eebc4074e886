// Package analysis says what the timeline means: the phases of a job
// (busy, stalled, idle, and those its markers name) and the bottleneck
// hints with their evidence. Everything here is a pure function of a
// timeline.Store and its SourceInfo: the screen, the report and the
// recordings' hint snapshots all ask the same functions, so they say the
// same things.
//
//	timeline.Store ──▶ Segment ─────────▶ phases
//	               └─▶ EvaluateHints ───▶ hints (rules in hints_*.go, one
//	                   ActiveHints          file per group of rules, thresholds
//	                   HintTracker          in HintOptions and docs/report.md)
//
// In a session of several hosts the rules of hints_hosts.go compare the
// hosts (host-idle, host-late, straggler-host, uneven-memory), and GPUs
// are named by host in evidence (GPUNamesOf).
//
// It imports only the standard library and timeline. The ui, the report
// and gputop's commands import it; it never formats anything for a
// particular output beyond the one-line evidence a hint carries.
package analysis
