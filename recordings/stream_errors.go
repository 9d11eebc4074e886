package recordings

import (
	"fmt"
	"io"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
)

// StreamVersionError says a stream is in a format version this gputop does
// not read: a newer major version, or a version older than streams
// (MinStreamVersion). It names both, and the sender's gputop when its
// header says.
type StreamVersionError struct {
	Found Version
	// Gputop is the sender's gputop version ("" if its header did not
	// say, or could not be read).
	Gputop string
}

func (e *StreamVersionError) Error() string {
	who := "the sender"
	if e.Gputop != "" {
		who = "gputop " + e.Gputop
	}
	if e.Found.Major > format.FormatVersion.Major {
		return fmt.Sprintf("%s streams format %s, newer than this gputop reads (%d.x); upgrade gputop here",
			who, e.Found, format.FormatVersion.Major)
	}
	return fmt.Sprintf("%s streams format %s; this gputop reads %s; upgrade gputop there", who, e.Found, e.Want())
}

// Want says which versions this gputop reads, for a message of the
// caller's own: "1.4 to 1.x".
func (e *StreamVersionError) Want() string {
	return fmt.Sprintf("%s to %d.x", MinStreamVersion, format.FormatVersion.Major)
}

// StreamError says a stream could not be read on: it ended before the
// sender closed the recording (the sender stopped, the connection
// dropped: Cut, and errors.Is(err, io.ErrUnexpectedEOF)), or its bytes are
// damaged. Every sample returned before it was good; none was made up.
type StreamError struct {
	Cut    bool
	Reason string    // "cut short", "damaged (checksum mismatch)", ...
	Good   time.Time // the last sample read whole; zero if none was
}

func (e *StreamError) Error() string {
	upTo := "no sample was read"
	if !e.Good.IsZero() {
		upTo = "read up to " + e.Good.Format(time.TimeOnly)
	}
	return fmt.Sprintf("stream %s; %s", e.Reason, upTo)
}

// Unwrap makes a cut stream io.ErrUnexpectedEOF.
func (e *StreamError) Unwrap() error {
	if e.Cut {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// damaged is a *StreamError for bytes that are not what the format says.
func damaged(why string) error { return &StreamError{Reason: "damaged (" + why + ")"} }
