package recordings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// segmentRef is where one segment starts and the time of its first sample.
type segmentRef struct {
	offset int64 // of its skippable segment-header frame
	first  int64 // Unix nanoseconds
}

// appendSegmentHeader appends the skippable frame that opens a segment.
func appendSegmentHeader(b []byte, first int64, seq uint32) []byte {
	c := binary.LittleEndian.AppendUint64(make([]byte, 0, segmentContent), uint64(first))
	c = binary.LittleEndian.AppendUint32(c, seq)
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, castagnoli))
	return appendSkippable(b, frameSegment, c)
}

// parseSegmentHeader checks a segment header frame's bytes and returns its
// first sample time.
func parseSegmentHeader(b []byte) (int64, error) {
	if len(b) != segmentFrame ||
		binary.LittleEndian.Uint32(b) != skippableMagic|frameSegment ||
		binary.LittleEndian.Uint32(b[4:]) != segmentContent {
		return 0, errors.New("no segment header")
	}
	c := b[skippableHeader:]
	if crc32.Checksum(c[:12], castagnoli) != binary.LittleEndian.Uint32(c[12:]) {
		return 0, errors.New("segment header checksum mismatch")
	}
	return int64(binary.LittleEndian.Uint64(c)), nil
}

// segmentNeedle is how every segment header frame begins: its magic and
// its content length.
var segmentNeedle = binary.LittleEndian.AppendUint32(
	binary.LittleEndian.AppendUint32(nil, skippableMagic|frameSegment), segmentContent)

// zstdMagic is how a zstd frame begins.
var zstdMagic = binary.LittleEndian.AppendUint32(nil, zstdFrameMagic)

// scanWindow is how much of the file findSegments reads at a time.
const scanWindow = 1 << 20

// findSegments finds the segments of a file without an index by scanning
// its bytes from start on for segment headers: the magic, a length of 16
// and a matching CRC-32C, followed by a zstd frame (or the end of the
// file, cut there). Scanning, unlike following each frame's length, finds
// every segment whose header is intact, whatever damage lies between: a
// damaged block header cannot lead it astray. A false match (the 28 bytes
// of a valid header inside compressed data) is practically impossible.
func findSegments(ra io.ReaderAt, start, size int64) ([]segmentRef, error) {
	// Windows overlap so that a header and the magic after it are seen
	// whole; a window shorter than that ends where the file does.
	const overlap = segmentFrame + 4 - 1
	var segs []segmentRef
	buf := make([]byte, min(scanWindow+overlap, max(size-start, 0)))
	next := start // no header starts before this: the last one found ends here
	for pos := start; pos < size; pos += scanWindow {
		b := buf[:min(int64(len(buf)), size-pos)]
		if _, err := ra.ReadAt(b, pos); err != nil && !(errors.Is(err, io.EOF) && pos+int64(len(b)) == size) {
			return nil, err
		}
		for i := max(next-pos, 0); i < int64(min(len(b), scanWindow)); {
			j := bytes.Index(b[i:], segmentNeedle)
			if j < 0 || i+int64(j) >= scanWindow {
				break
			}
			at := i + int64(j)
			if first, ok := segmentHeaderAt(b[at:]); ok {
				segs = append(segs, segmentRef{offset: pos + at, first: first})
				next = pos + at + segmentFrame
				i = at + segmentFrame
				continue
			}
			i = at + 1
		}
	}
	return segs, nil
}

// segmentHeaderAt says whether b starts with a valid segment header
// followed by the magic of a zstd frame. A b too short to hold the magic
// ends where the file ends: what is left of the magic is enough.
func segmentHeaderAt(b []byte) (int64, bool) {
	if len(b) < segmentFrame {
		return 0, false
	}
	first, err := parseSegmentHeader(b[:segmentFrame])
	if err != nil {
		return 0, false
	}
	return first, bytes.HasPrefix(zstdMagic, b[segmentFrame:min(len(b), segmentFrame+len(zstdMagic))])
}

// maxBlockSize is the largest zstd block (RFC 8878, 3.1.1.2.4).
const maxBlockSize = 128 << 10

// zstdFrameLen returns the length of the zstd frame at the start of b,
// from its frame header and block headers, without decompressing. It
// returns errCutShort if the frame runs past the end of b. See RFC 8878,
// section 3.1.1.
func zstdFrameLen(b []byte) (int, error) {
	if len(b) < len(zstdMagic)+1 {
		return 0, errCutShort
	}
	if !bytes.Equal(b[:len(zstdMagic)], zstdMagic) {
		return 0, errors.New("no zstd frame")
	}
	fhd := b[len(zstdMagic)]
	singleSegment := fhd&0x20 != 0
	headerLen := [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	headerLen += [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && singleSegment {
		headerLen++ // a one-byte content size
	}
	if !singleSegment {
		headerLen++ // window descriptor
	}
	if fhd&0x08 != 0 {
		return 0, errors.New("bad zstd frame header") // reserved bit
	}
	pos := len(zstdMagic) + 1 + headerLen
	for {
		if pos+3 > len(b) {
			return 0, errCutShort
		}
		h := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		pos += 3
		size := int(h >> 3)
		if size > maxBlockSize {
			return 0, errors.New("bad zstd block")
		}
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3:
			return 0, errors.New("bad zstd block")
		}
		pos += size
		if pos > len(b) {
			return 0, errCutShort
		}
		if h&1 != 0 {
			break // the last block
		}
	}
	if fhd&0x04 != 0 { // content checksum
		pos += 4
	}
	if pos > len(b) {
		return 0, errCutShort
	}
	return pos, nil
}

// errBetweenSegments says there are bytes between a segment's zstd frame
// and the next segment that are no frame of a known length: most likely a
// damaged segment header, and the segment behind it.
var errBetweenSegments = errors.New("bad segment header")

// otherFrames checks the bytes between segments, from from to to: only
// whole skippable frames (a later minor version's) belong there, up to the
// index or trailer, which end the segments' data (closed then says the
// writer got as far as closing the file). A segment header there is a
// damaged one, else the scan would have found it. A frame running past to
// returns errCutShort; anything else, errBetweenSegments.
func otherFrames(ra io.ReaderAt, from, to int64) (closed bool, err error) {
	var head [skippableHeader]byte
	for from < to {
		if to-from < skippableHeader {
			return false, errCutShort
		}
		if _, err := ra.ReadAt(head[:], from); err != nil {
			return false, err
		}
		magic := binary.LittleEndian.Uint32(head[:])
		kind := magic &^ skippableMask
		n := int64(binary.LittleEndian.Uint32(head[4:]))
		switch {
		case magic&skippableMask != skippableMagic:
			return false, errBetweenSegments
		case kind == frameIndex || kind == frameTrailer:
			return true, nil
		case n > to-from-skippableHeader:
			return false, errCutShort // a segment header too, cut inside
		case kind == frameSegment:
			return false, errBetweenSegments
		}
		from += skippableHeader + n
	}
	return false, nil
}
