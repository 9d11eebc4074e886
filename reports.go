package main

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/load"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/ui/playback"
)

// reportWith reads a recording at full resolution and reports on the
// stretch [from, to] of it (times as replay --start takes them; "" for its
// first or last sample): the figures, the phases and the hints, as the
// screen showed them with its cursor at to, for a session that began at
// from. Damage is a warning: the report covers everything that could be
// read.
// opts are the report's options (--phases all).
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
	store, eng, warn, err := load.Recording(r, path, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	return report.NewReportOf(store, eng, opts), warn, nil
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
		t, err := playback.ParseTime(f.arg, first.Local(), first, last)
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
