package recordings

import (
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/klauspost/compress/zstd"
)

// maxSegmentRead bounds the bytes read for one segment: its compressed
// frame, which cannot be much larger than format.MaxSegmentBytes, and what
// follows it up to the next segment.
const maxSegmentRead = format.MaxSegmentBytes + 1<<20

// Recycle hands back the values of a sample Read returned that the
// caller is done with (format.Decoder.Recycle): the next sample is read
// into them. A reader that keeps every sample it reads must not.
func (r *Reader) Recycle(v []float64) { r.dec.Recycle(v) }

// RecycleProbes hands back the probe statuses (Sample.Probes) of a sample
// Read returned that the caller is done with
// (format.Decoder.RecycleProbes).
func (r *Reader) RecycleProbes(p []timeline.ProbeStatus) { r.dec.RecycleProbes(p) }

// load reads and decompresses segment i into dec. A segment cut short or
// damaged keeps whatever decompressed before the trouble, and segErr says
// what the trouble was. segErr also says when the bytes after the
// segment's zstd frame are not what belongs there (a damaged segment
// header, in a file without index): its samples are good, but those of
// the segment whose header it was are lost.
func (r *Reader) load(i int) {
	r.cur, r.loaded, r.segErr, r.segClosed = i, true, nil, false
	r.data = r.data[:0]
	r.dec.Reset(nil)
	start, end := r.segments[i].Offset, r.endOf(i)
	if end-start < format.SegmentFrame {
		r.segErr = format.ErrCutShort
		return
	}
	// The header first: a segment that is not one (an index that lies)
	// costs a few bytes read, not a segment's worth.
	var head [format.SegmentFrame]byte
	if _, r.segErr = r.file.ReadAt(head[:], start); r.segErr != nil {
		return
	}
	if _, r.segErr = format.ParseSegmentHeader(head[:]); r.segErr != nil {
		return
	}
	size := int(min(end-start, maxSegmentRead))
	r.comp = slices.Grow(r.comp[:0], size)[:size]
	if _, r.segErr = r.file.ReadAt(r.comp, start); r.segErr != nil {
		return
	}
	frame := r.comp[format.SegmentFrame:]
	var after error
	if n, err := format.ZstdFrameLen(frame); err == nil {
		// Decompress the frame alone, so that what follows it cannot fail
		// the frame's samples; it is checked here instead.
		r.segClosed, after = format.OtherFrames(bytes.NewReader(frame[n:]), 0, int64(len(frame)-n))
		if (r.segClosed && !r.lastInFile(i)) || int64(len(r.comp)) < end-start {
			after = format.ErrBetweenSegments
		}
		frame = frame[:n]
	}
	if r.zdec == nil { // shed
		if r.zdec, r.segErr = newDecompressor(); r.segErr != nil {
			return
		}
	}
	if r.segErr = r.zdec.Reset(bytes.NewReader(frame)); r.segErr != nil {
		return
	}
	r.data, r.segErr = readAtMost(r.zdec, r.data, format.MaxSegmentBytes)
	if r.segErr == nil {
		r.segErr = after
	}
	r.dec.Reset(r.data)
}

// newDecompressor is a reader's zstd decoder, a stream's too. The frame
// checksum is not checked: it comes at the end of a segment, too late to
// refuse anything, and each chunk's CRC already guards what is decoded. A
// damaged checksum would only fail good data.
func newDecompressor() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.IgnoreChecksum(true),
		zstd.WithDecoderMaxMemory(format.MaxSegmentBytes), zstd.WithDecoderMaxWindow(8<<20))
}

// shed lets go of the segment the reader holds and of its decoder's
// window, about 4 MB, for a reader that reads now and then (Recaller);
// the next read loads its segment again.
func (r *Reader) shed() {
	r.comp, r.data, r.loaded = nil, nil, false
	r.dec.Reset(nil)
	if r.zdec != nil {
		r.zdec.Close()
		r.zdec = nil
	}
}

// readAtMost reads src to its end into buf, up to limit bytes. It keeps
// what it read when src fails, and returns the failure.
func readAtMost(src io.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		// Checked before the buffer's room: growing it may have taken it past
		// limit, and a read into nothing reads nothing, forever.
		if len(buf) >= limit {
			var one [1]byte
			if _, err := io.ReadFull(src, one[:]); errors.Is(err, io.EOF) {
				return buf, nil // exactly limit
			}
			return buf, errors.New("segment too large")
		}
		buf = slices.Grow(buf, 1)
		n, err := src.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
