package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
)

func cmdReport(e *env) *cobra.Command {
	c := newCommand("report FILE [--format text|markdown|json|html|svg] [-o OUT] [--from T] [--to T] [--phases all] [--fail-on SEVERITY]",
		"per-GPU and per-phase figures, phases, markers and hints of a recording, or of a stretch of it; a page or a drawing to attach; a check for CI",
		"gputop report run.gtr", "gputop report run.gtr --format markdown", "gputop report run.gtr --format html -o run.html",
		"gputop report run.gtr --format svg -o timeline.svg", "gputop report run.gtr --from +10m --to +20m --format json",
		"gputop report run.gtr --fail-on critical")
	fs := c.Flags()
	format := fs.String("format", "text", "`FORMAT`: text, markdown, json, html or svg (docs/report.md)")
	out := fs.StringP("o", "o", "", "write to `FILE` instead of standard output")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	from := fs.String("from", "", "report from `TIME` on: 14:03, +10m (after the start), -5m (before the end), or a date and time")
	to := fs.String("to", "", "report up to `TIME` (as --from): what the screen said with its cursor there")
	phases := fs.String("phases", "", "`all`: list every phase in text, markdown and html (default: the 20 longest of each table, the rest summed up; JSON lists all)")
	var failOn failOnFlag
	fs.Var(&failOn, "fail-on", "exit 3 if a hint of `SEVERITY` (warning or critical) or worse is present, listing those hints on stderr")
	var price prices
	price.register(fs)
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) != 1 {
			return usageError{"give one recording to report on"}
		}
		write, ok := map[string]func(io.Writer, *report.Report) error{
			"text": render.Text, "markdown": render.Markdown, "json": writeJSON, "html": render.HTML, "svg": render.SVG,
		}[*format]
		if !ok {
			return usageError{fmt.Sprintf("unknown --format %q (text, markdown, json, html or svg)", *format)}
		}
		var opts report.ReportOptions
		switch *phases {
		case "":
		case "all":
			opts.PhaseRows = -1
		default:
			return usageError{fmt.Sprintf("--phases %q: the only value is all", *phases)}
		}
		if *format == "html" || *format == "svg" {
			opts.TimelineColumns = render.TimelineColumns
		}
		if *out != "" {
			if err := checkNewFile(*out, *force); err != nil {
				return err
			}
			opts.TextWidth = -1
		} else {
			opts.TextWidth = textWidth(e.stdout)
		}
		price.apply(&opts)
		// The store and the analysis of a day of 8 GPUs hold about 250 MB,
		// built up as it is read: the collector's pace follows what is live
		// (reportGCPercent).
		defer paceCollector(reportGCPercent)()
		rep, warn, err := reportWith(rest[0], *from, *to, opts)
		if err != nil {
			return err
		}
		if warn != nil {
			fmt.Fprintf(e.stderr, "warning: %s\n", oneLine(warn))
		}
		if err := writeReport(rep, write, *out, e.stdout); err != nil {
			return err
		}
		return failOn.check(rep, "gputop report", e.stderr)
	}
	return c
}

// writeJSON writes the report's JSON (the report's own: it is the
// contract) as render's writers write the other forms.
func writeJSON(w io.Writer, r *report.Report) error { return r.WriteJSON(w) }

// writeReport writes the report to path, or to stdout where path is "".
// A file is written whole or not at all: the report is made first.
func writeReport(rep *report.Report, write func(io.Writer, *report.Report) error, path string, stdout io.Writer) error {
	if path == "" {
		return write(stdout, rep)
	}
	var b bytes.Buffer
	if err := write(&b, rep); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("cannot write the report: %s", innermost(err))
	}
	return nil
}
