package main

import (
	"fmt"
	"io"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
)

// The checks for CI: `report --fail-on` and `run --fail-on` exit with
// exitCheck when the report holds a hint of a given severity or worse, and
// say which, one line each on stderr (docs/report.md, Checks for CI).

// failOnFlag is --fail-on SEVERITY: warning or critical; unset, no check.
type failOnFlag struct{ severity string }

func (f *failOnFlag) String() string { return f.severity }

func (f *failOnFlag) Type() string { return "severity" }

func (f *failOnFlag) Set(v string) error {
	if v != "warning" && v != "critical" {
		return fmt.Errorf("%q is not a severity to fail on (warning or critical)", v)
	}
	f.severity = v
	return nil
}

// severityRank orders the severities a hint can have.
var severityRank = map[string]int{"info": 0, "warning": 1, "critical": 2}

// failing lists the report's hints at the flag's severity or worse.
func (f *failOnFlag) failing(rep *report.Report) []report.ReportHint {
	if f.severity == "" {
		return nil
	}
	var out []report.ReportHint
	for _, h := range rep.Hints {
		if severityRank[h.Severity] >= severityRank[f.severity] {
			out = append(out, h)
		}
	}
	return out
}

// check says which hints fail the check, one line each on w, and returns
// exitStatus(exitCheck) if any does; nil otherwise.
func (f *failOnFlag) check(rep *report.Report, who string, w io.Writer) error {
	bad := f.failing(rep)
	if len(bad) == 0 {
		return nil
	}
	for _, h := range bad {
		fmt.Fprintf(w, "%s: --fail-on %s: %s\n", who, f.severity, render.HintLine(rep, h))
	}
	return exitStatus(exitCheck)
}
