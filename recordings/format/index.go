package format

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// Index is what a clean close writes after the last segment, so that a
// reader finds every segment and the recording's span without scanning the
// file.
type Index struct {
	Segments []SegmentRef
	Last     int64 // time of the last sample, Unix nanoseconds
	Samples  int64
}

// AppendIndex appends the index frame and the trailer that points to it.
// The index frame's content: uvarint segment count; per segment the
// uvarint offset change and varint first-time change from the one before
// (from 0 for the first); varint last sample time; uvarint sample count;
// CRC-32C. The trailer's: the index frame's offset (uint64) and
// TrailerMagic.
func AppendIndex(b []byte, idx Index, at int64) []byte {
	c := binary.AppendUvarint(nil, uint64(len(idx.Segments)))
	var off, first int64
	for _, s := range idx.Segments {
		c = binary.AppendUvarint(c, uint64(s.Offset-off))
		c = binary.AppendVarint(c, s.First-first)
		off, first = s.Offset, s.First
	}
	c = binary.AppendVarint(c, idx.Last)
	c = binary.AppendUvarint(c, uint64(idx.Samples))
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, Castagnoli))
	b = AppendSkippable(b, FrameIndex, c)
	t := binary.LittleEndian.AppendUint64(nil, uint64(at))
	return AppendSkippable(b, FrameTrailer, append(t, TrailerMagic...))
}

// ErrNoIndex says that a file has no index a reader can use (it was not
// closed cleanly, or its end is damaged): a reader then scans for its
// segments.
var ErrNoIndex = errors.New("no index")

// maxIndexLen is the longest index the segments in data bytes could have:
// each takes at least a segment header frame and 5 bytes of zstd frame,
// and its entry at most 20 bytes (two varints), with 30 more for the
// count, the last time, the sample count and the CRC.
func maxIndexLen(data int64) int64 {
	return data/(SegmentFrame+5)*20 + 30
}

// ReadIndex finds the trailer at the end of the file and the index it
// points to, and returns the index and where the segments' data ends.
// ErrNoIndex means the file was not closed cleanly, or its end is damaged:
// the caller scans for the segments instead.
func ReadIndex(r io.ReaderAt, dataStart, size int64) (Index, int64, error) {
	if size-dataStart < TrailerFrame {
		return Index{}, 0, ErrNoIndex
	}
	tail := make([]byte, TrailerFrame)
	if _, err := r.ReadAt(tail, size-TrailerFrame); err != nil {
		return Index{}, 0, err
	}
	if binary.LittleEndian.Uint32(tail) != SkippableMagic|FrameTrailer ||
		binary.LittleEndian.Uint32(tail[4:]) != TrailerContent ||
		string(tail[SkippableHeader+8:]) != TrailerMagic {
		return Index{}, 0, ErrNoIndex
	}
	at := int64(binary.LittleEndian.Uint64(tail[SkippableHeader:]))
	end := size - TrailerFrame
	if at < dataStart || at > end-SkippableHeader {
		return Index{}, 0, ErrNoIndex
	}
	// The frame's own header first, and what it says checked against the
	// trailer and the file, before anything is sized by it: a trailer that
	// points far back into a sparse file would otherwise have the reader
	// allocate all that lies between.
	var head [SkippableHeader]byte
	if _, err := r.ReadAt(head[:], at); err != nil {
		return Index{}, 0, err
	}
	length := end - at - SkippableHeader
	if binary.LittleEndian.Uint32(head[:]) != SkippableMagic|FrameIndex ||
		int64(binary.LittleEndian.Uint32(head[4:])) != length || length > min(maxIndexBytes, maxIndexLen(at-dataStart)) {
		return Index{}, 0, ErrNoIndex
	}
	content := make([]byte, length)
	if _, err := r.ReadAt(content, at+SkippableHeader); err != nil {
		return Index{}, 0, err
	}
	if len(content) < 4 || crc32.Checksum(content[:len(content)-4], Castagnoli) != binary.LittleEndian.Uint32(content[len(content)-4:]) {
		return Index{}, 0, ErrNoIndex
	}
	c := cursor{b: content[:len(content)-4]}
	n := c.count(2)
	idx := Index{Segments: make([]SegmentRef, 0, n)}
	var off, first int64
	for i := range n {
		step := int64(c.uvarint())
		off += step
		first += c.varint()
		if (i > 0 && step < SegmentFrame) || off < dataStart || off+SegmentFrame > at {
			return Index{}, 0, ErrNoIndex
		}
		idx.Segments = append(idx.Segments, SegmentRef{Offset: off, First: first})
	}
	idx.Last = c.varint()
	idx.Samples = int64(c.uvarint())
	if c.err != nil {
		return Index{}, 0, ErrNoIndex
	}
	return idx, at, nil
}
