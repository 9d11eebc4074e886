package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/export"
	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui"
)

func cmdSnapshot(args []string, e *env) error {
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON (fields in docs/snapshot.md)")
	var demo demoFlag
	fs.Var(&demo, "demo", "read 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	log.SetOutput(io.Discard)
	// Two readings a quarter second apart: rates (power from energy, CPU
	// shares) need a difference.
	machine, err := demo.machine(probes.RealClock{})
	if err != nil {
		return err
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: 250 * time.Millisecond, Machine: machine})
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var readings [2]timeline.Sample
	for i := range readings {
		if readings[i], err = sess.Next(ctx); err != nil {
			return err
		}
	}
	snap := report.NewSnapshot(&readings[1], &readings[0], sess.Info())
	if *asJSON {
		return writeSnapshotJSON(e.stdout, snap)
	}
	return snap.WriteText(e.stdout)
}

// writeSnapshotJSON writes snap as docs/snapshot.md describes.
func writeSnapshotJSON(w io.Writer, snap report.Snapshot) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(snap)
}

func cmdImport(args []string, e *env) error {
	if len(args) > 0 && args[0] == "prometheus" {
		return cmdImportPrometheus(args[1:], e)
	}
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	out := fs.String("o", "", "write the recording to `FILE` (required)")
	format := fs.String("format", "auto", "the log's `FORMAT`: auto, "+formatNames())
	start := fs.String("start", "", "for logs without dates: when the log began, a `TIME` like 2026-11-22 14:03:00 (by default the log ends at its file's modification time)")
	interval := fs.Duration("interval", 0, "for logs without times: the spacing of their rows (default 1s)")
	columns := fs.String("columns", "", "for a headerless nvidia-smi CSV: its --query-gpu `LIST`")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
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

func formatNames() string {
	names := make([]string, len(importer.Formats))
	for i, f := range importer.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// reserveTemp creates the empty temporary file a recording of path is
// written to before it is renamed into place.
func reserveTemp(path string) (string, error) {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %v", path, errors.Unwrap(err))
	}
	return tmp, f.Close()
}

// writeEach writes a whole recording to tmp (from reserveTemp) and renames
// it to path, so a failed import leaves no partial file behind. each calls
// write with every sample in order, made one at a time.
func writeEach(tmp, path string, h recordings.Header, each func(write func(*timeline.Sample) error) error) error {
	w, err := recordings.Create(tmp, h, true)
	if err != nil {
		os.Remove(tmp)
		return err
	}
	err = each(w.Write)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
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

func cmdReport(args []string, e *env) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	format := fs.String("format", "text", "`FORMAT`: text, markdown or json (fields in docs/report.md)")
	from := fs.String("from", "", "report from `TIME` on: 14:03, +10m (after the start), -5m (before the end), or a date and time")
	to := fs.String("to", "", "report up to `TIME` (as --from): what the screen said with its cursor there")
	phases := fs.String("phases", "", "`all`: list every phase in text and markdown (default: the 20 longest of each table, the rest summed up; JSON lists all)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{"give one recording to report on"}
	}
	write, ok := map[string]func(*report.Report, io.Writer) error{
		"text": (*report.Report).WriteText, "markdown": (*report.Report).WriteMarkdown, "json": (*report.Report).WriteJSON,
	}[*format]
	if !ok {
		return usageError{fmt.Sprintf("unknown --format %q (text, markdown or json)", *format)}
	}
	var opts report.ReportOptions
	switch *phases {
	case "":
	case "all":
		opts.PhaseRows = -1
	default:
		return usageError{fmt.Sprintf("--phases %q: the only value is all", *phases)}
	}
	opts.TextWidth = textWidth(e.stdout)
	rep, warn, err := reportWith(rest[0], *from, *to, opts)
	if err != nil {
		return err
	}
	if warn != nil {
		fmt.Fprintf(e.stderr, "warning: %v\n", warn)
	}
	return write(rep, e.stdout)
}

// reportOf reads a recording at full resolution and reports on the
// stretch [from, to] of it (times as replay --start takes them; "" for its
// first or last sample): the figures, the phases and the hints, as the
// screen showed them with its cursor at to, for a session that began at
// from. Damage is a warning: the report covers everything that could be
// read.
func reportOf(path, from, to string) (*report.Report, error, error) {
	return reportWith(path, from, to, report.ReportOptions{})
}

// reportWith is reportOf with the report's options (--phases all).
func reportWith(path, from, to string, opts report.ReportOptions) (*report.Report, error, error) {
	r, err := recordings.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	lo, hi, err := reportStretch(r, from, to)
	if err != nil {
		return nil, nil, err
	}
	store, eng, warn, err := loadRecording(r, path, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	return report.NewReport(store, eng.Info(), report.Analyse(eng), opts), warn, nil
}

// reportStretch is the stretch --from and --to name, checked against the
// recording's span; a zero time where one is not given, for no bound.
func reportStretch(r *recordings.Reader, from, to string) (lo, hi time.Time, err error) {
	if from == "" && to == "" {
		return lo, hi, nil
	}
	first, last := r.Span()
	for _, f := range []struct {
		name, arg string
		t         *time.Time
	}{{"--from", from, &lo}, {"--to", to, &hi}} {
		if f.arg == "" {
			continue
		}
		t, err := ui.ParseTime(f.arg, first.Local(), first, last)
		if err != nil {
			return lo, hi, badTime(f.name, f.arg)
		}
		if t.Before(first) || t.After(last) {
			return lo, hi, usageError{fmt.Sprintf("%s %s is outside the recording (%s to %s)", f.name, f.arg,
				first.Local().Format(time.DateTime), last.Local().Format(time.DateTime))}
		}
		*f.t = t
	}
	if !hi.IsZero() && hi.Before(lo) {
		return lo, hi, usageError{fmt.Sprintf("--from %s is after --to %s", from, to)}
	}
	return lo, hi, nil
}

// loadRecording reads the samples of a recording from lo to hi (zero: no
// bound) into a store that keeps them all and an Engine that judges them,
// which ends with the source's description as it stood at the last of
// them. warn is damage: what was lost, said in one line; everything else
// was read.
func loadRecording(r *recordings.Reader, path string, lo, hi time.Time) (store *timeline.Store, eng *analysis.Engine, warn, err error) {
	store = timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.FileRawSamples, RawValues: timeline.FileRawValues, Reserve: expectedSamples(r)})
	eng = analysis.NewEngine(r.Info())
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var damaged *recordings.DamagedError
			if errors.As(err, &damaged) {
				warn = err
				break
			}
			return nil, nil, nil, err
		}
		if s.At.Before(lo) {
			continue
		}
		// The samples the screen with its cursor at hi judged.
		if !hi.IsZero() && !s.At.Before(analysis.SamplesUntil(r.Info(), hi)) {
			break
		}
		// The description as of this sample: a GPU found later, a limit
		// now known.
		eng.SetInfo(r.Info())
		store.Add(&s)
		eng.Add(&s)
	}
	if store.Len() == 0 {
		return nil, nil, nil, fmt.Errorf("%s: the recording has no samples", path)
	}
	return store, eng, warn, nil
}

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
