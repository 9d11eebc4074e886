// Package frame is what the hint rules read: the Engine's timeline on a
// regular grid of columns (Frame: one per sampling interval, at least a
// second wide), each GPU's figures and state per column (GPU: idle, low,
// busy, waiting, unknown; classified once, when the column is filled), the
// host's (Host), and a view of it cut at the moment asked about
// (Frame.View), so that what a rule says of a moment rests only on the
// samples up to it.
//
// Around the columns, the machinery every rule judges with: windows on the
// clock's grid and the trailing one (Frame.Windows), hysteresis over them
// (Frame.Holds, Frame.PerGPU), candidates grouped into episodes (Cand,
// Groups), the counts and statistics the evidence quotes (Counts, Stats,
// Activity, Range), the thresholds (Options), and what the Engine keeps
// between questions (Kept: the grid windows' verdicts, the job's progress
// and markers, the figures that froze, the hosts' layout, and what each
// rule keeps of its own under its id, Keep).
//
//	timeline/analysis (the Engine: fills the columns, lists the rules, asks them)
//	  ├─▶ timeline/analysis/rules (one host's GPUs)  ─┐
//	  └─▶ timeline/analysis/hosts (across hosts)     ─┴─▶ frame (this package)
//
// A Rule (rule.go) is an id, Find (candidates over a frame) and Describe
// (a hint for an episode); the rules are variables of the rules and hosts
// packages, listed by the Engine (hintRules in timeline/analysis/hints.go).
//
// It imports only the standard library, timeline and units; the Engine and
// every rule import it, so it can name neither.
package frame
