package recordings

import (
	"fmt"
	"time"
)

// Version is a recording format version. A reader reads every minor version
// of its own major version (it skips record and frame types it does not
// know); a newer major version is refused.
type Version struct {
	Major, Minor uint16
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// FormatVersion is the version this package writes.
var FormatVersion = Version{Major: 1, Minor: 4}

// fileMagic opens the header frame's content: `head -c 40 run.gtr | xxd`
// shows what the file is.
const fileMagic = "gputop-recording"

// The file is a sequence of zstd frames, so `zstd -dc run.gtr` prints the
// records. Everything that is not compressed records travels in zstd
// skippable frames (magic 0x184D2A50 + n, a 4-byte length, content), whose
// low nibble n says what the frame holds. A reader skips nibbles it does not
// know.
const (
	skippableMagic  = 0x184D2A50
	skippableMask   = 0xFFFFFFF0
	zstdFrameMagic  = 0xFD2FB528
	frameHeader     = 0x0 // file header: magic, version, JSON
	frameSegment    = 0x1 // segment header: first sample time
	frameIndex      = 0x2 // index of segments, written at a clean close
	frameTrailer    = 0x3 // fixed-size pointer to the index, last in the file
	skippableHeader = 8   // magic + length
)

// trailerMagic ends a cleanly closed file.
const trailerMagic = "gputopix"

// Sizes of the fixed-size frames.
const (
	segmentContent = 8 + 4 + 4 // first sample time, sequence number, CRC
	trailerContent = 8 + 8     // index offset, trailerMagic
	segmentFrame   = skippableHeader + segmentContent
	trailerFrame   = skippableHeader + trailerContent
)

// Record types inside a segment's compressed frame. A record is a type byte,
// a uvarint payload length and the payload. Records that describe a sample
// (statuses, processes, markers) come before the sample record that
// completes it; key and probe definitions come before their first use.
const (
	recKeyDef    = 1 // a metric key: kind, name, device; ids count up from 0 in each segment
	recSample    = 2 // time and metric values: completes a sample
	recStatus    = 3 // the sample's probe statuses
	recProbeDef  = 4 // a (probe, device) pair; ids count up from 0 in each segment
	recProcesses = 5 // the sample's process list
	recMarkers   = 6 // the sample's markers
	recHint      = 7 // a snapshot of the hints shown (1.1; a 1.0 reader skips it)
	recCheck     = 8 // CRC-32C of the records since the previous check: ends a chunk
	recInfo      = 9 // the source's description, grown since the header (1.2; older readers skip it)
)

// Writer policy. These are choices of the writer, not rules of the format:
// a reader takes segments of any length.
const (
	// segmentSpan is how much sample time one segment covers at most. A
	// seek decodes from the start of a segment, so this bounds its cost;
	// each segment repeats its key definitions, so longer is smaller.
	segmentSpan = 5 * time.Minute
	// segmentBytes bounds a segment's uncompressed size, for fast intervals.
	segmentBytes = 1 << 20
	// flushEvery is the most sample time that may sit unwritten: a kill -9
	// loses at most this much.
	flushEvery = time.Second
)

// maxSegmentBytes bounds what a reader decompresses for one segment, so
// that a hostile file cannot exhaust memory.
const maxSegmentBytes = 64 << 20

// maxHeaderBytes bounds the header frame a reader accepts.
const maxHeaderBytes = 1 << 20
