package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/diff"
)

// conditionsFlag collects --fail-if conditions, each checked as given.
type conditionsFlag []diff.Condition

func (c *conditionsFlag) String() string {
	var out []string
	for _, x := range *c {
		out = append(out, x.Text)
	}
	return strings.Join(out, " ")
}

func (c *conditionsFlag) Type() string { return "condition" }

func (c *conditionsFlag) Set(v string) error {
	cond, err := diff.ParseCondition(v)
	if err != nil {
		return fmt.Errorf("--fail-if %q: %w", v, err)
	}
	*c = append(*c, cond)
	return nil
}

func cmdDiff(e *env) *cobra.Command {
	c := newCommand("diff A B [--format text|markdown|html|json] [--fail-if CONDITION ...]",
		"two runs of the same job side by side: figures, phase times and the hints that appeared, went or changed; a check for CI",
		"gputop diff before.gtr after.gtr", "gputop diff before.gtr after.gtr --format markdown",
		"gputop diff a.gtr b.gtr --fail-if 'busy<-5%' --fail-if 'energy>+10%'")
	fs := c.Flags()
	format := fs.String("format", "text", "`FORMAT`: text, markdown, html or json (docs/diff.md)")
	var failIf conditionsFlag
	fs.Var(&failIf, "fail-if", "exit 3 if `CONDITION` holds of the change from A to B, such as 'busy<-5%' or 'energy>+10%' (repeatable; grammar in docs/diff.md)")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) != 2 {
			return usageError{"give two recordings: A, the baseline, and B, the run to compare with it"}
		}
		write, ok := map[string]func(*diff.Diff, io.Writer) error{
			"text": (*diff.Diff).WriteText, "markdown": (*diff.Diff).WriteMarkdown, "html": (*diff.Diff).WriteHTML,
			"json": (*diff.Diff).WriteJSON,
		}[*format]
		if !ok {
			return usageError{fmt.Sprintf("unknown --format %q (text, markdown, html or json)", *format)}
		}
		var reps [2]*report.Report
		for i, path := range rest {
			rep, warn, err := reportWith(path, "", "", report.ReportOptions{})
			if err != nil {
				return err
			}
			if warn != nil {
				fmt.Fprintf(e.stderr, "warning: %s\n", oneLine(warn))
			}
			reps[i] = rep
		}
		d := diff.New(rest[0], reps[0], rest[1], reps[1])
		if err := write(d, e.stdout); err != nil {
			return err
		}
		failed := false
		for _, c := range failIf {
			if holds, why := c.Check(d); holds {
				fmt.Fprintf(e.stderr, "gputop diff: --fail-if %s\n", why)
				failed = true
			}
		}
		if failed {
			return exitStatus(exitCheck)
		}
		return nil
	}
	return c
}
