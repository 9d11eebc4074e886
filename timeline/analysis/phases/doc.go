// Package phases is how a run of judged windows becomes the phases of a
// job: windows of one kind join into a Run, a run shorter than the
// shortest phase is absorbed into its neighbours, shortest first (Absorb,
// on a heap: a day of 5 s windows can start as 17,280 runs), windows
// without data take the kind beside them (FillGaps), and a job's markers
// name phases of their own (FromMarkers).
//
// What kind each window is (busy, stalled, idle: analysis.PhaseOptions'
// thresholds) is the Engine's to judge, as samples arrive
// (analysis/phases_engine.go); this package only shapes the result, so it
// imports timeline alone and is tested on runs written by hand. The Engine
// and the report (the phases its markers name) import it.
package phases
