package recordings

import (
	"fmt"
	"time"
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
		e.Path, e.Found, FormatVersion.Major)
}

// DamagedError says a recording ends early: cut short (kill -9, a full
// disk), damaged, or never closed. Every sample before Good was read whole;
// nothing after it is returned. Callers show it as a warning.
type DamagedError struct {
	Path string
	// Good is the time of the last sample read whole; zero if none was.
	Good time.Time
	// Offset is where damage starts, as near as the reader can tell (the
	// start of the damaged segment). It is zero for a file that is only
	// cut short or not closed: there Good says all a reader needs, and a
	// byte offset (the start of the last, unfinished segment) would read
	// as if everything after it were lost.
	Offset int64
	// Reason says what is wrong, in a few words.
	Reason string
}

func (e *DamagedError) Error() string {
	upTo := "no sample could be read"
	if !e.Good.IsZero() {
		upTo = "read up to " + e.Good.Format("2006-01-02 15:04:05.000")
	}
	at := ""
	if e.Offset > 0 {
		at = fmt.Sprintf(" at byte %d", e.Offset)
	}
	return fmt.Sprintf("%s: recording %s%s; %s", e.Path, e.Reason, at, upTo)
}
