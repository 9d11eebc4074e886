package recordings

import "github.com/gputop-dev/gputop/recordings/format"

// The format itself is recordings/format's; these are the names of it that
// this package's API hands out, kept here so that its callers (and the
// Recorder) name them as before.

// Header is format.Header: what a recording says about itself, first in
// the file and again at the start of every segment.
type Header = format.Header

// Version is format.Version: a recording format version.
type Version = format.Version

// HintSnapshot is format.HintSnapshot: the set of hints gputop showed from
// a time on, as Reader.Hints returns them.
type HintSnapshot = format.HintSnapshot
