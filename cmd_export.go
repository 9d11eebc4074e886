package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/export"
)

func cmdExport(e *env) *cobra.Command {
	c := newCommand("export FILE --format csv|jsonl [-o OUT]",
		"a recording as tidy data for pandas, jq or a spreadsheet",
		"gputop export run.gtr --format csv -o run.csv", "gputop export run.gtr --format jsonl | jq .")
	fs := c.Flags()
	format := fs.String("format", "", "`FORMAT`: csv or jsonl (columns in docs/export.md); required")
	out := fs.StringP("o", "o", "", "write to `FILE` instead of standard output (- is standard output)")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		switch {
		case len(rest) != 1:
			return usageError{"give one recording to export"}
		case *format == "":
			return usageError{"--format csv or --format jsonl is required"}
		case *format != string(export.CSV) && *format != string(export.JSONL):
			return usageError{fmt.Sprintf("unknown --format %q (csv or jsonl)", *format)}
		}
		r, err := recordings.Open(rest[0])
		if err != nil {
			return err
		}
		defer r.Close()
		if *out == "" || *out == "-" { // "-" is standard output, as for every Unix tool, not a file named "-"
			return exportTo(r, e.stdout, *format, e)
		}
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		err = exportTo(r, f, *format, e)
		// A close that fails (a full disk) loses the export's end: say so.
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		return err
	}
	return c
}

// exportTo writes r's export to w; a damaged recording is exported up to
// the damage, with a warning.
func exportTo(r *recordings.Reader, w io.Writer, format string, e *env) error {
	err := export.Write(r, w, export.Format(format))
	var damaged *recordings.DamagedError
	if errors.As(err, &damaged) {
		fmt.Fprintf(e.stderr, "warning: %s\n", oneLine(err))
		return nil
	}
	return err
}
