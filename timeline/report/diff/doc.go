// Package diff compares two reports of the same job (`gputop diff A B`):
// the figures over every GPU (duration, busy share, utilisation and its
// tails, SM activity, power, energy, memory peak), the time in each phase
// kind and marked phase, and the hints that appeared, went or changed
// severity; written as text, markdown, HTML or JSON (docs/diff.md). Its
// conditions (`--fail-if 'busy<-5%'`) turn a diff into a check for CI.
//
//	report.Report A, report.Report B ──▶ New ──▶ WriteText, WriteMarkdown, WriteHTML, WriteJSON
//	"energy>+10%" ──▶ ParseCondition ──▶ Condition.Check(diff)
//
// It reads reports, never samples: a diff is as fast as the two reports.
// It imports timeline, timeline/units and timeline/report, and
// timeline/report/render for its page's style and its tables (PageHead,
// Table), so a diff's page reads as the report's; gputop's commands
// import it.
package diff
