package recordings

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// fileIndex is what a clean close writes after the last segment, so that a
// reader finds every segment and the recording's span without scanning the
// file.
type fileIndex struct {
	segments []segmentRef
	last     int64 // time of the last sample, Unix nanoseconds
	samples  int64
}

// appendIndex appends the index frame and the trailer that points to it.
// The index frame's content: uvarint segment count; per segment the
// uvarint offset change and varint first-time change from the one before
// (from 0 for the first); varint last sample time; uvarint sample count;
// CRC-32C. The trailer's: the index frame's offset (uint64) and
// trailerMagic.
func appendIndex(b []byte, idx fileIndex, at int64) []byte {
	c := binary.AppendUvarint(nil, uint64(len(idx.segments)))
	var off, first int64
	for _, s := range idx.segments {
		c = binary.AppendUvarint(c, uint64(s.offset-off))
		c = binary.AppendVarint(c, s.first-first)
		off, first = s.offset, s.first
	}
	c = binary.AppendVarint(c, idx.last)
	c = binary.AppendUvarint(c, uint64(idx.samples))
	c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, castagnoli))
	b = appendSkippable(b, frameIndex, c)
	t := binary.LittleEndian.AppendUint64(nil, uint64(at))
	return appendSkippable(b, frameTrailer, append(t, trailerMagic...))
}

var errNoIndex = errors.New("no index")

// maxIndexLen is the longest index the segments in data bytes could have:
// each takes at least a segment header frame and 5 bytes of zstd frame,
// and its entry at most 20 bytes (two varints), with 30 more for the
// count, the last time, the sample count and the CRC.
func maxIndexLen(data int64) int64 {
	return data/(segmentFrame+5)*20 + 30
}

// readIndex finds the trailer at the end of the file and the index it
// points to, and returns the index and where the segments' data ends.
// errNoIndex means the file was not closed cleanly, or its end is damaged:
// the caller scans for the segments instead.
func readIndex(r io.ReaderAt, dataStart, size int64) (fileIndex, int64, error) {
	if size-dataStart < trailerFrame {
		return fileIndex{}, 0, errNoIndex
	}
	tail := make([]byte, trailerFrame)
	if _, err := r.ReadAt(tail, size-trailerFrame); err != nil {
		return fileIndex{}, 0, err
	}
	if binary.LittleEndian.Uint32(tail) != skippableMagic|frameTrailer ||
		binary.LittleEndian.Uint32(tail[4:]) != trailerContent ||
		string(tail[skippableHeader+8:]) != trailerMagic {
		return fileIndex{}, 0, errNoIndex
	}
	at := int64(binary.LittleEndian.Uint64(tail[skippableHeader:]))
	end := size - trailerFrame
	if at < dataStart || at > end-skippableHeader {
		return fileIndex{}, 0, errNoIndex
	}
	// The frame's own header first, and what it says checked against the
	// trailer and the file, before anything is sized by it: a trailer that
	// points far back into a sparse file would otherwise have the reader
	// allocate all that lies between.
	var head [skippableHeader]byte
	if _, err := r.ReadAt(head[:], at); err != nil {
		return fileIndex{}, 0, err
	}
	length := end - at - skippableHeader
	if binary.LittleEndian.Uint32(head[:]) != skippableMagic|frameIndex ||
		int64(binary.LittleEndian.Uint32(head[4:])) != length || length > min(maxIndexBytes, maxIndexLen(at-dataStart)) {
		return fileIndex{}, 0, errNoIndex
	}
	content := make([]byte, length)
	if _, err := r.ReadAt(content, at+skippableHeader); err != nil {
		return fileIndex{}, 0, err
	}
	if len(content) < 4 || crc32.Checksum(content[:len(content)-4], castagnoli) != binary.LittleEndian.Uint32(content[len(content)-4:]) {
		return fileIndex{}, 0, errNoIndex
	}
	c := cursor{b: content[:len(content)-4]}
	n := c.count(2)
	idx := fileIndex{segments: make([]segmentRef, 0, n)}
	var off, first int64
	for i := range n {
		step := int64(c.uvarint())
		off += step
		first += c.varint()
		if (i > 0 && step < segmentFrame) || off < dataStart || off+segmentFrame > at {
			return fileIndex{}, 0, errNoIndex
		}
		idx.segments = append(idx.segments, segmentRef{offset: off, first: first})
	}
	idx.last = c.varint()
	idx.samples = int64(c.uvarint())
	if c.err != nil {
		return fileIndex{}, 0, errNoIndex
	}
	return idx, at, nil
}
