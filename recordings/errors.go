package recordings

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline/units"
)

// NotRecordingError says a file is not a gputop recording: empty, text,
// random bytes, or a header that does not parse. Its message is one line.
type NotRecordingError struct {
	Path   string
	Reason string // "empty file", "unknown format", ...
}

func (e *NotRecordingError) Error() string {
	return fmt.Sprintf("%s: not a gputop recording (%s)", e.Path, e.Reason)
}

// VersionError says a recording was written in a newer major format
// version than this gputop reads.
type VersionError struct {
	Path  string
	Found Version
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s: recording format %s is newer than this gputop reads (%d.x); upgrade gputop to read it",
		e.Path, e.Found, format.FormatVersion.Major)
}

// Gap is a stretch of a recording that could not be read: damage between
// two good samples. Decoding cannot restart inside a segment, so one spot
// of damage loses the rest of its segment (at most five minutes).
type Gap struct {
	// From is the last good sample before the damage; zero if none was
	// read before it (damage at the start, or right after a seek).
	From time.Time
	// To is the first good sample after the damage; zero if none follows:
	// the damage runs to the end.
	To time.Time
}

// DamagedError says a recording could not be read whole: damaged in
// places (Gaps), cut short (kill -9, a full disk), never closed, or
// damaged up to its end (Reason). Every sample outside the gaps, up to
// Good, was read; none was made up. Callers show it as a warning.
type DamagedError struct {
	Path string
	// Good is the time of the last sample read whole; zero if none was.
	Good time.Time
	// Offset is where damage that runs to the end starts, as near as the
	// reader can tell (the start of the damaged segment). It is zero for
	// a file that is only cut short or not closed: there Good says all a
	// reader needs, and a byte offset (the start of the last, unfinished
	// segment) would read as if everything after it were lost.
	Offset int64
	// Reason says what is wrong at the end, in a few words ("cut short",
	// "damaged (checksum mismatch)"); empty when only Gaps were lost.
	Reason string
	// Gaps are the damaged stretches, in order. The last one's To is zero
	// when the damage runs to the end (Reason says "damaged").
	Gaps []Gap
	// Interval is the recording's sample interval (zero if unknown): a
	// gap from From to To lost To − From − Interval of samples.
	Interval time.Duration
	// Header says, in a few words, what was wrong with the file's header
	// ("checksum mismatch"), when the copy of it that opens a segment was
	// read instead; empty when the header was read.
	Header string
	// Order says what was out of time order (segments moved in the file,
	// samples behind the one before), each in a few words; nothing else
	// need be wrong.
	Order []string

	// clock says to print times of day alone: the whole recording lies
	// within one day.
	clock bool
}

// Error is one line that says what was lost first:
//
//	run.gtr: header damaged (checksum mismatch), its copy read instead; nothing else lost
//	run.gtr: 12s unreadable at 02:14:10 (damaged); the rest was read
//	run.gtr: 3 damaged stretches, 40s unreadable in all, the first at 02:14:10; the rest was read
//	run.gtr: recording cut short; read up to 02:20:00
//	run.gtr: 12s unreadable at 02:14:10 (damaged); then cut short, read up to 02:20:00
func (e *DamagedError) Error() string {
	msg := e.lost()
	if len(e.Order) == 0 {
		return msg
	}
	order := strings.Join(e.Order, "; ")
	if e.Reason == "" && len(e.Gaps) == 0 && e.Header == "" {
		return e.Path + ": " + order
	}
	return msg + "; " + order
}

// lost is Error without Order.
func (e *DamagedError) lost() string {
	layout := time.DateTime
	if e.clock {
		layout = time.TimeOnly
	}
	upTo := "no sample could be read"
	if !e.Good.IsZero() {
		upTo = "read up to " + e.Good.Format(layout)
	}
	end := cmp.Or(e.Reason, "damaged")
	if e.Offset > 0 {
		end += fmt.Sprintf(" at byte %d", e.Offset)
	}
	closed := slices.DeleteFunc(slices.Clone(e.Gaps), func(g Gap) bool { return g.To.IsZero() })
	head := ""
	if e.Header != "" {
		head = "header damaged (" + e.Header + "), its copy read instead; "
		if e.Reason == "" && len(closed) == 0 {
			return e.Path + ": " + head + "nothing else lost"
		}
	}
	switch {
	case len(closed) == 0:
		return fmt.Sprintf("%s: %srecording %s; %s", e.Path, head, end, upTo)
	case e.Reason == "":
		return fmt.Sprintf("%s: %s%s; the rest was read", e.Path, head, e.stretches(closed, layout))
	}
	return fmt.Sprintf("%s: %s%s; then %s, %s", e.Path, head, e.stretches(closed, layout), end, upTo)
}

// stretches says how much the closed gaps lost, and where the first is.
// A gap with no good sample before it lost an unknown amount.
func (e *DamagedError) stretches(gaps []Gap, layout string) string {
	where := "before " + gaps[0].To.Format(layout)
	if !gaps[0].From.IsZero() {
		where = "at " + gaps[0].From.Add(e.Interval).Format(layout)
	}
	var total time.Duration
	unknown := false
	for _, g := range gaps {
		if g.From.IsZero() {
			unknown = true
			continue
		}
		total += max(g.To.Sub(g.From)-e.Interval, 0)
	}
	if len(gaps) == 1 {
		switch {
		case unknown:
			return "unreadable " + where + " (damaged)"
		case total == 0:
			return "damaged " + where + ", no sample lost"
		}
		return roughDuration(total) + " unreadable " + where + " (damaged)"
	}
	amount := roughDuration(total) + " unreadable in all, "
	switch {
	case unknown && total > 0:
		amount = "at least " + amount
	case unknown:
		amount = ""
	case total == 0:
		amount = "no sample lost, "
	}
	return fmt.Sprintf("%d damaged stretches, %sthe first %s", len(gaps), amount, where)
}

// roughDuration says d in whole seconds, as everything else says a
// length of time (timeline/units).
func roughDuration(d time.Duration) string {
	if d < time.Second {
		return "under 1s"
	}
	return units.Duration(d.Round(time.Second))
}
