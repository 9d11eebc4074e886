package recordings

import (
	"bufio"
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

// walkResult is what walking a file's frames found.
type walkResult struct {
	segments []segmentRef
	// end is where the segments' data ends: the index frame, the end of
	// the file, or the first byte that is not a frame.
	end int64
	// problem says why the walk stopped early, if it did: a frame cut
	// short, or bytes that are no frame. A walk that reaches the end of
	// the file after whole frames has none (the file was not closed, but
	// nothing is damaged).
	problem error
}

// walk reads frame headers from offset start on, without decompressing
// anything: a skippable frame says its length; a zstd frame is skipped
// block by block, from each block's 3-byte header. It finds segments in a
// file whose index is missing (a torn file) or unreadable.
func walk(r io.ReaderAt, start, size int64) walkResult {
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	w := walkResult{end: start}
	pos := start
	var head [skippableHeader]byte
	for pos < size {
		w.end = pos
		if _, err := io.ReadFull(br, head[:4]); err != nil {
			w.problem = errCutShort
			return w
		}
		magic := binary.LittleEndian.Uint32(head[:4])
		switch {
		case magic&skippableMask == skippableMagic:
			if _, err := io.ReadFull(br, head[4:]); err != nil {
				w.problem = errCutShort
				return w
			}
			n := int64(binary.LittleEndian.Uint32(head[4:]))
			kind := magic &^ skippableMask
			if kind == frameIndex || kind == frameTrailer {
				return w // the data ends here; the index is checked elsewhere
			}
			if pos+skippableHeader+n > size {
				w.problem = errCutShort
				return w
			}
			if kind == frameSegment {
				frame := make([]byte, segmentFrame)
				copy(frame, head[:])
				if _, err := io.ReadFull(br, frame[skippableHeader:]); err != nil || n != segmentContent {
					w.problem = errors.New("bad segment header")
					return w
				}
				first, err := parseSegmentHeader(frame)
				if err != nil {
					w.problem = err
					return w
				}
				w.segments = append(w.segments, segmentRef{offset: pos, first: first})
			} else if _, err := br.Discard(int(n)); err != nil {
				w.problem = errCutShort
				return w
			}
			pos += skippableHeader + n
		case magic == zstdFrameMagic && len(w.segments) > 0:
			n, err := skipZstdFrame(br)
			pos += 4 + n
			if err != nil {
				w.end = pos
				w.problem = err
				return w
			}
		default:
			w.problem = errors.New("unknown data")
			return w
		}
	}
	w.end = pos
	return w
}

// skipZstdFrame reads past one zstd frame whose magic was just read, and
// returns how many bytes it read. See RFC 8878, section 3.1.1.
func skipZstdFrame(br *bufio.Reader) (int64, error) {
	fhd, err := br.ReadByte()
	if err != nil {
		return 0, errCutShort
	}
	read := int64(1)
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
		return read, errors.New("bad zstd frame header") // reserved bit
	}
	if n, err := br.Discard(headerLen); err != nil {
		return read + int64(n), errCutShort
	}
	read += int64(headerLen)
	var bh [3]byte
	for {
		if n, err := io.ReadFull(br, bh[:]); err != nil {
			return read + int64(n), errCutShort
		}
		read += 3
		h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		size := int(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3:
			return read, errors.New("bad zstd block")
		}
		n, err := br.Discard(size)
		read += int64(n)
		if err != nil {
			return read, errCutShort
		}
		if h&1 != 0 {
			break // the last block
		}
	}
	if fhd&0x04 != 0 { // content checksum
		n, err := br.Discard(4)
		read += int64(n)
		if err != nil {
			return read, errCutShort
		}
	}
	return read, nil
}
