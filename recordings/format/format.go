package format

import "fmt"

// Version is a recording format version. A reader reads every minor version
// of its own major version (it skips record and frame types it does not
// know); a newer major version is refused.
type Version struct {
	Major, Minor uint16
}

// String is the version as docs and errors write it: "1.4".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// FormatVersion is the version this package writes.
var FormatVersion = Version{Major: 1, Minor: 4}

// FileMagic opens the header frame's content: `head -c 40 run.gtr | xxd`
// shows what the file is.
const FileMagic = "gputop-recording"

// The file is a sequence of zstd frames, so `zstd -dc run.gtr` prints the
// records. Everything that is not compressed records travels in zstd
// skippable frames (magic 0x184D2A50 + n, a 4-byte length, content), whose
// low nibble n says what the frame holds. A reader skips nibbles it does not
// know.
const (
	SkippableMagic  = 0x184D2A50
	SkippableMask   = 0xFFFFFFF0
	zstdFrameMagic  = 0xFD2FB528
	FrameHeader     = 0x0 // file header: magic, version, JSON
	FrameSegment    = 0x1 // segment header: first sample time
	FrameIndex      = 0x2 // index of segments, written at a clean close
	FrameTrailer    = 0x3 // fixed-size pointer to the index, last in the file
	SkippableHeader = 8   // magic + length
)

// TrailerMagic ends a cleanly closed file.
const TrailerMagic = "gputopix"

// Sizes of the fixed-size frames.
const (
	SegmentContent = 8 + 4 + 4 // first sample time, sequence number, CRC
	TrailerContent = 8 + 8     // index offset, TrailerMagic
	SegmentFrame   = SkippableHeader + SegmentContent
	TrailerFrame   = SkippableHeader + TrailerContent
)

// Record types inside a segment's compressed frame. A record is a type byte,
// a uvarint payload length and the payload. Records that describe a sample
// (statuses, processes, markers) come before the sample record that
// completes it; key and probe definitions come before their first use.
const (
	RecKeyDef    = 1  // a metric key: kind, name, device; ids count up from 0 in each segment
	RecSample    = 2  // time and metric values: completes a sample
	recStatus    = 3  // the sample's probe statuses
	recProbeDef  = 4  // a (probe, device) pair; ids count up from 0 in each segment
	recProcesses = 5  // the sample's process list
	recMarkers   = 6  // the sample's markers
	recHint      = 7  // a snapshot of the hints shown (1.1; a 1.0 reader skips it)
	RecCheck     = 8  // CRC-32C of the records since the previous check: ends a chunk
	RecInfo      = 9  // the source's description, grown since the header (1.2; older readers skip it)
	RecHeader    = 10 // a copy of the header, first in each segment (1.4; older readers skip it)
)

// SegmentBytes bounds a segment's uncompressed size, for fast intervals: a
// choice of the writer, not a rule of the format, but the bounds below on
// what a reader takes are sized by it.
const SegmentBytes = 1 << 20

// What a reader accepts, bounded by what a writer puts in a file, so that
// a few hostile KB cannot decompress into gigabytes or a million samples
// (docs/recording-format.md, Limits). Past a bound is damage, as a record
// that does not decode is.
const (
	// MaxSegmentBytes bounds a segment's decompressed records: the writer's
	// 1 MiB (SegmentBytes), the key definitions it does not count (about
	// 40 bytes a key, 10 MiB for MaxSegmentKeys), the carried copy of the
	// header and description (at most MaxHeaderBytes each) and hint
	// snapshot (at most 2 MiB of lists), and one more sample's values.
	MaxSegmentBytes = 32 << 20
	// MaxSegmentKeys bounds the distinct keys, and the distinct probes, one
	// segment defines: 256 for each of the 1,024 hosts a session may
	// have (timeline.MaxHosts); a node of 8 GPUs and 32 cores has 230.
	MaxSegmentKeys = 1 << 18
	// maxSegmentValues bounds the metric values and probe statuses one
	// segment holds: the writer's 1 MiB of records at a bit a value (a
	// reading that does not move) and nine a status, and one more sample.
	maxSegmentValues = 8*SegmentBytes + 10*MaxSegmentKeys
	// MaxSegmentSamples bounds its samples: a sample record takes at least
	// four bytes.
	MaxSegmentSamples = SegmentBytes/4 + 1
	// MaxListLen bounds one record's processes or markers, one snapshot's
	// hints, and a hint's or episode's GPUs and episodes.
	MaxListLen = 1 << 14
	// maxSegmentListBits bounds what one segment's lists hold, each thing
	// counted at the fewest bits the format stores it in (listBits): twice
	// the writer's 1 MiB, for the last sample's lists and the snapshots
	// after it.
	maxSegmentListBits = 16 * SegmentBytes
)

// listBits are the fewest bits a list's element takes, charged against
// maxSegmentListBits.
const (
	processBits = 9 * 8 // GPU, PID, user, command, four values, in job
	markerBits  = 3 * 8 // time, text, origin
	hintBits    = 8 * 8 // see readHints
	episodeBits = 5 * 8
	gpuBits     = 8
)

// MaxHeaderBytes bounds the header frame a reader accepts, and an info
// record's description: 16,384 GPUs (timeline.MaxGPUs) on 1,024 hosts,
// described as dcgm-exporter labels them, take 4.3 MB (263 bytes a GPU);
// 8 MiB holds them at up to 512 bytes each. (1 MiB, before, refused an
// import of 600 hosts of 8 GPUs.)
const MaxHeaderBytes = 8 << 20

// maxIndexBytes bounds the index frame a reader reads: a million
// segments, ten years of five-minute ones, take about 10 MB.
const maxIndexBytes = 16 << 20
