// Package report turns a timeline into what a person reads after the fact:
// the Report of a recording (per-GPU and per-phase figures, the hosts,
// health, processes, work and energy, markers, hints) and its JSON, which
// is a contract (docs/report.md); with ReportOptions.TimelineColumns, its
// Timeline too (timeline.go: each GPU's series resampled), for the forms
// that draw it. timeline/report/render writes the Report as text,
// markdown, HTML and SVG; timeline/report/diff compares two Reports;
// timeline/report/snapshot is the Snapshot of one reading (gputop
// snapshot), in the same numbers.
//
//	timeline.Store + analysis (phases, hints) ──▶ NewReport ──▶ Report ──▶ WriteJSON; render.Text, Markdown, HTML, SVG
//
// It imports timeline, timeline/units, timeline/xid and timeline/analysis.
// gputop's commands import it; the screen does not (ui shows the analysis
// itself, drawn its own way).
package report
