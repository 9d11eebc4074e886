package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline/units"
)

func cmdImport(e *env) *cobra.Command {
	c := newCommand("import LOG -o FILE [--format auto|nvidia-smi-csv|dmon|dcgmi-csv] | prometheus URL|FILE.json -o FILE [--from T] [--to T] [--match SELECTOR] [--step 15s]",
		"turn nvidia-smi, dmon or dcgmi logs, or a cluster's GPU series in Prometheus, into a recording",
		"gputop import nvidia-smi.csv -o old.gtr",
		"gputop import gpu.dmon --format dmon --start '2026-11-22 14:03:00' -o old.gtr",
		"gputop import prometheus http://prom:9090 --from -6h --to -2h -o job.gtr",
		"gputop import prometheus answer.json -o job.gtr")
	c.AddCommand(cmdImportPrometheus(e))
	fs := c.Flags()
	out := fs.StringP("o", "o", "", "write the recording to `FILE` (required)")
	format := fs.String("format", "auto", "the log's `FORMAT`: auto, "+formatNames())
	start := fs.String("start", "", "for logs without dates: when the log began, a `TIME` like 2026-11-22 14:03:00 (by default the log ends at its file's modification time)")
	interval := fs.Duration("interval", 0, "for logs without times: the spacing of their rows (default 1s)")
	columns := fs.String("columns", "", "for a headerless nvidia-smi CSV: its --query-gpu `LIST`")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		var err error
		switch {
		case len(rest) != 1:
			return usageError{"give one LOG to import"}
		case *out == "":
			return usageError{"-o FILE is required"}
		case *format != "auto" && !slices.Contains(importer.Formats, importer.Format(*format)):
			return usageError{fmt.Sprintf("unknown --format %q (auto, %s)", *format, formatNames())}
		}
		opts := importer.Options{Format: importer.Format(*format), Interval: *interval, Columns: *columns, Origin: filepath.Base(rest[0])}
		if *start != "" {
			if opts.Start, err = parseWallTime(*start); err != nil {
				return usageError{err.Error()}
			}
		}
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
		f, err := importer.OpenFile(rest[0])
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			opts.ModTime = st.ModTime()
		}
		// The file it goes to first, before a big log is parsed: a path that
		// cannot be written fails at once.
		tmp, err := reserveTemp(*out)
		if err != nil {
			return err
		}
		// The log's samples are made one at a time as they are written: a
		// million-line log never sits in memory as samples.
		res, err := importer.Read(f, opts)
		if err == nil && res.Samples == 0 {
			err = errors.New("no samples in the log")
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("%s: %v", rest[0], err)
		}
		if err := writeEach(tmp, *out, recordingHeader(res.Info, res.First), res.Each); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "imported %s of %s over %s from %s (%s) into %s\n",
			units.Count(res.Samples, "sample"), units.Count(len(res.Info.GPUs), "GPU"), units.Duration(res.Last.Sub(res.First)),
			rest[0], res.Format, *out)
		for _, n := range res.Info.Notes {
			printNote(e.stderr, n)
		}
		return nil
	}
	return c
}

func formatNames() string {
	names := make([]string, len(importer.Formats))
	for i, f := range importer.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// parseWallTime reads a date and time given on the command line, in the
// local zone unless it says otherwise.
func parseWallTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date and time; try 2026-11-22 14:03:00", s)
}
