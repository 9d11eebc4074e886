package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/export"
)

func cmdExport(args []string, e *env) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "", "`FORMAT`: csv or jsonl (columns in docs/export.md); required")
	out := fs.String("o", "", "write to `FILE` instead of standard output (- is standard output)")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
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

// exportTo writes r's export to w; a damaged recording is exported up to
// the damage, with a warning.
func exportTo(r *recordings.Reader, w io.Writer, format string, e *env) error {
	err := export.Write(r, w, export.Format(format))
	var damaged *recordings.DamagedError
	if errors.As(err, &damaged) {
		fmt.Fprintf(e.stderr, "warning: %v\n", err)
		return nil
	}
	return err
}
