// Package render writes a report.Report for people: as text for a
// terminal (80 columns, what `gputop run` prints when the job ends), as
// markdown for an issue, as one self-contained HTML page, and its timeline
// alone as SVG (docs/report.md). It reads the Report and nothing under it,
// so every form says what the JSON says; the JSON itself is the report's
// (report.Report.WriteJSON), the contract.
//
//	report.Report ──▶ Text, Markdown, HTML, SVG (and HintLine, one hint for --fail-on)
//
// It imports timeline, timeline/units and timeline/report; gputop's
// commands import it, and timeline/report/diff for its page's style and
// tables (PageHead, Table). The screen does not.
package render
