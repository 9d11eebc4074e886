package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/export"
)

func cmdExport(args []string, e *env) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "", "`FORMAT`: csv or jsonl (columns in docs/export.md); required")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
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
	w := e.stdout
	if *out != "" {
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	err = export.Write(r, w, export.Format(*format))
	var damaged *recordings.DamagedError
	if errors.As(err, &damaged) {
		fmt.Fprintf(e.stderr, "warning: %v\n", err)
		return nil
	}
	return err
}
