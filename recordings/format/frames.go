package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
)

// SegmentRef is where one segment starts and the time of its first sample.
type SegmentRef struct {
	Offset int64 // of its skippable segment-header frame
	First  int64 // Unix nanoseconds
}

// AppendSegmentHeader appends the skippable frame that opens a segment.
func AppendSegmentHeader(b []byte, first int64, seq uint32) []byte {
	c := binary.LittleEndian.AppendUint64(make([]byte, 0, SegmentContent), uint64(first))
	c = binary.LittleEndian.AppendUint32(c, seq)
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, Castagnoli))
	return AppendSkippable(b, FrameSegment, c)
}

// ParseSegmentHeader checks a segment header frame's bytes and returns its
// first sample time.
func ParseSegmentHeader(b []byte) (int64, error) {
	if len(b) != SegmentFrame ||
		binary.LittleEndian.Uint32(b) != SkippableMagic|FrameSegment ||
		binary.LittleEndian.Uint32(b[4:]) != SegmentContent {
		return 0, errors.New("no segment header")
	}
	c := b[SkippableHeader:]
	if crc32.Checksum(c[:12], Castagnoli) != binary.LittleEndian.Uint32(c[12:]) {
		return 0, errors.New("segment header checksum mismatch")
	}
	return int64(binary.LittleEndian.Uint64(c)), nil
}

// segmentNeedle is how every segment header frame begins: its magic and
// its content length.
var segmentNeedle = binary.LittleEndian.AppendUint32(
	binary.LittleEndian.AppendUint32(nil, SkippableMagic|FrameSegment), SegmentContent)

// ZstdMagic is how a zstd frame begins.
var ZstdMagic = binary.LittleEndian.AppendUint32(nil, zstdFrameMagic)

// scanWindow is how much of the file FindSegments reads at a time.
const scanWindow = 1 << 20

// FindSegments finds the segments of a file without an index by scanning
// its bytes from start on for segment headers: the magic, a length of 16
// and a matching CRC-32C, followed by a zstd frame (or the end of the
// file, cut there). Scanning, unlike following each frame's length, finds
// every segment whose header is intact, whatever damage lies between: a
// damaged block header cannot lead it astray. A false match (the 28 bytes
// of a valid header inside compressed data) is practically impossible.
// seqs are the sequence numbers the segments' headers hold, in the same
// order (FindSegmentsInOrder).
func FindSegments(ra io.ReaderAt, start, size int64) (segs []SegmentRef, seqs []uint32, err error) {
	// Windows overlap so that a header and the magic after it are seen
	// whole; a window shorter than that ends where the file does.
	const overlap = SegmentFrame + 4 - 1
	buf := make([]byte, min(scanWindow+overlap, max(size-start, 0)))
	next := start // no header starts before this: the last one found ends here
	for pos := start; pos < size; pos += scanWindow {
		b := buf[:min(int64(len(buf)), size-pos)]
		if _, err := ra.ReadAt(b, pos); err != nil && !(errors.Is(err, io.EOF) && pos+int64(len(b)) == size) {
			return nil, nil, err
		}
		for i := max(next-pos, 0); i < int64(min(len(b), scanWindow)); {
			j := bytes.Index(b[i:], segmentNeedle)
			if j < 0 || i+int64(j) >= scanWindow {
				break
			}
			at := i + int64(j)
			if first, ok := segmentHeaderAt(b[at:]); ok {
				segs = append(segs, SegmentRef{Offset: pos + at, First: first})
				seqs = append(seqs, binary.LittleEndian.Uint32(b[at+SkippableHeader+8:]))
				next = pos + at + SegmentFrame
				i = at + SegmentFrame
				continue
			}
			i = at + 1
		}
	}
	return segs, seqs, nil
}

// FindSegmentsInOrder is FindSegments, the segments in the order they were
// written: by the sequence number each header holds, where the file has
// them in another (two segments swapped, one of them once lost silently,
// its samples older than those read before). moved says they were.
func FindSegmentsInOrder(ra io.ReaderAt, start, size int64) (segs []SegmentRef, moved bool, err error) {
	segs, seqs, err := FindSegments(ra, start, size)
	if err != nil {
		return nil, false, err
	}
	if slices.IsSorted(seqs) {
		return segs, false, nil
	}
	seq := make(map[int64]uint32, len(segs)) // by offset, each segment's own
	for i, s := range segs {
		seq[s.Offset] = seqs[i]
	}
	slices.SortStableFunc(segs, func(a, b SegmentRef) int { return cmp.Compare(seq[a.Offset], seq[b.Offset]) })
	return segs, true, nil
}

// segmentHeaderAt says whether b starts with a valid segment header
// followed by the magic of a zstd frame. A b too short to hold the magic
// ends where the file ends: what is left of the magic is enough.
func segmentHeaderAt(b []byte) (int64, bool) {
	first, err := ParseSegmentHeader(b[:min(len(b), SegmentFrame)]) // too short: no header
	if err != nil {
		return 0, false
	}
	return first, bytes.HasPrefix(ZstdMagic, b[SegmentFrame:min(len(b), SegmentFrame+len(ZstdMagic))])
}

// MaxBlockSize is the largest zstd block (RFC 8878, 3.1.1.2.4).
const MaxBlockSize = 128 << 10

// ZstdFrameLen returns the length of the zstd frame at the start of b,
// from its frame header and block headers, without decompressing. It
// returns ErrCutShort if the frame runs past the end of b. See RFC 8878,
// section 3.1.1.
func ZstdFrameLen(b []byte) (int, error) {
	if len(b) < len(ZstdMagic)+1 {
		return 0, ErrCutShort
	}
	if !bytes.Equal(b[:len(ZstdMagic)], ZstdMagic) {
		return 0, errors.New("no zstd frame")
	}
	fhd := b[len(ZstdMagic)]
	singleSegment := fhd&0x20 != 0
	headerLen := [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	headerLen += [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 || !singleSegment {
		headerLen++ // window descriptor, or a one-byte content size when single-segment
	}
	if fhd&0x08 != 0 {
		return 0, errors.New("bad zstd frame header") // reserved bit
	}
	pos := len(ZstdMagic) + 1 + headerLen
	for {
		if pos+3 > len(b) {
			return 0, ErrCutShort
		}
		h := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		pos += 3
		size, typ := int(h>>3), (h>>1)&3
		if size > MaxBlockSize || typ == 3 { // type 3 is reserved
			return 0, errors.New("bad zstd block")
		}
		if typ == 1 { // RLE: one byte, repeated size times
			size = 1
		}
		pos += size // past the end of b: the check of the next header, or after the last block, says so
		if h&1 != 0 {
			break // the last block
		}
	}
	if fhd&0x04 != 0 { // content checksum
		pos += 4
	}
	if pos > len(b) {
		return 0, ErrCutShort
	}
	return pos, nil
}

// ErrBetweenSegments says there are bytes between a segment's zstd frame
// and the next segment that are no frame of a known length: most likely a
// damaged segment header, and the segment behind it.
var ErrBetweenSegments = errors.New("bad segment header")

// OtherFrames checks the bytes between segments, from from to to: only
// whole skippable frames (a later minor version's) belong there, up to the
// index or trailer, which end the segments' data (closed then says the
// writer got as far as closing the file). A segment header there is a
// damaged one, else the scan would have found it. A frame running past to
// returns ErrCutShort; anything else, ErrBetweenSegments.
func OtherFrames(ra io.ReaderAt, from, to int64) (closed bool, err error) {
	var head [SkippableHeader]byte
	for from < to {
		if to-from < SkippableHeader {
			return false, ErrCutShort
		}
		if _, err := ra.ReadAt(head[:], from); err != nil {
			return false, err
		}
		magic := binary.LittleEndian.Uint32(head[:])
		kind := magic &^ SkippableMask
		n := int64(binary.LittleEndian.Uint32(head[4:]))
		switch {
		case magic&SkippableMask != SkippableMagic:
			return false, ErrBetweenSegments
		case kind == FrameIndex || kind == FrameTrailer:
			return true, nil
		case n > to-from-SkippableHeader:
			return false, ErrCutShort // a segment header too, cut inside
		case kind == FrameSegment:
			return false, ErrBetweenSegments
		}
		from += SkippableHeader + n
	}
	return false, nil
}
