// Package report turns a timeline into what a person reads after the fact:
// the Report of a recording (per-GPU and per-phase figures, markers,
// hints), written as text, markdown or JSON (JSON is a contract:
// docs/report.md); the Report also as one self-contained HTML page and
// as its timeline alone in SVG (html.go, svg.go), drawn from the same
// Report and its Timeline (timeline.go: each GPU's series resampled).
// timeline/report/diff compares two Reports; timeline/report/snapshot is
// the Snapshot of one reading (gputop snapshot), in the same numbers.
//
//	timeline.Store + analysis (phases, hints) ──▶ NewReport ──▶ WriteText, WriteMarkdown, WriteJSON, WriteHTML, WriteSVG
//
// It imports timeline and timeline/analysis. gputop's commands import it;
// the screen does not (ui shows the analysis itself, drawn its own way).
package report
