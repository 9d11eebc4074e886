// Package analysis says what the timeline means: the phases of a job
// (busy, stalled, idle, and those its markers name) and the bottleneck
// hints with their evidence. One Engine per session takes each sample once
// as it arrives (Add) and answers for any moment up to the last: the
// screen, the report and a recording's hint snapshots all ask it, so they
// say the same things, and what it says of a moment depends only on the
// samples up to it.
//
//	sample ──Engine.Add──▶ columns of the frame (each GPU's state classified once;
//	                       │      engine.go fills analysis/frame's Frame)
//	                       ├─▶ Engine.Hints(t) ──▶ the rules (hintRules in hints.go: one
//	                       │      explicit list of analysis/rules and analysis/hosts,
//	                       │      one file per rule, thresholds in HintOptions and
//	                       │      docs/report.md) ──▶ hints, worst first
//	                       │   and the events it logs (Xids, lost GPUs, PCIe and
//	                       │      NVLink: hints_errors.go, hints_nvlink.go)
//	                       └─▶ Engine.Phases(from, to) ──▶ busy, stalled, idle (phases_engine.go,
//	                              shaped by analysis/phases; thresholds in PhaseOptions)
//
// Around it: Judge (judge.go: the one analysis of a process that samples),
// Shown and SameHints (what the screen lists), HintTracker (what a
// recording keeps as the hints change), SamplesUntil (the samples the
// screen at a moment has judged), SortHints, and, from below it (api.go),
// HintOptions, ProvisionalMin, RateLevels, WarmUp and GPUNamesOf.
//
// A new hint rule is a frame.Rule (id, Find, Describe, YieldsTo) in a file
// of its own in analysis/rules (or analysis/hosts, if it compares hosts),
// and a line in hintRules. In a session of several hosts the rules of
// analysis/hosts compare the hosts, and GPUs are named by host in evidence
// (GPUNamesOf).
//
// It imports only the standard library, timeline, units and its own
// packages (phases, frame, rules, hosts). The ui, the report, the exporter
// and gputop's commands import it; it never formats anything for a
// particular output beyond the one-line evidence a hint carries.
package analysis
