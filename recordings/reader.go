package recordings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/timeline"
)

// Reader reads a recording: its header, then its samples in order from
// any time on. It holds one segment (five minutes of samples) in memory at
// a time, so a day-long file replays in a few megabytes. It is not safe
// for concurrent use.
type Reader struct {
	path     string
	file     io.ReaderAt
	closer   io.Closer
	header   Header
	segments []segmentRef
	dataEnd  int64 // where the segments' data ends
	// indexed says the file was closed cleanly and its index read.
	indexed bool
	index   fileIndex
	// walkProblem is the damage the walk found, for a file without index.
	walkProblem error

	zdec    *zstd.Decoder
	comp    []byte // one segment, compressed
	data    []byte // one segment, decompressed
	dec     segmentDecoder
	loaded  bool  // dec holds segment cur
	segErr  error // why decompressing segment cur stopped early, if it did
	cur     int
	next    int   // the segment to load next
	seekTo  int64 // skip samples before this time (after SeekTime)
	seeking bool
	good    time.Time // the last sample decoded whole
	ended   error     // what Read returns from now on, once the end was reported
	// hints are the snapshots passed since Open or the last SeekTime.
	hints []HintSnapshot
	// fresh says the next segment loaded is the first since Open or
	// SeekTime: its carried snapshot is news.
	fresh bool

	spanDone            bool
	spanFirst, spanLast time.Time
}

// Open opens a recording for reading. Its errors are one line: the file's
// own (missing, unreadable), or a *NotRecordingError, *VersionError or
// *DamagedError (a header cut short or damaged).
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		_, err = identifyDir(path)
	}
	if err == nil {
		var r *Reader
		if r, err = newReader(f, fi.Size(), path); err == nil {
			r.closer = f
			return r, nil
		}
	}
	if cerr := f.Close(); cerr != nil {
		err = fmt.Errorf("%w (closing: %v)", err, cerr)
	}
	return nil, err
}

// newReader reads the header and finds the segments: from the index if the
// file was closed cleanly, else by walking the frames.
func newReader(ra io.ReaderAt, size int64, path string) (*Reader, error) {
	prefix := make([]byte, min(size, int64(prefixLen)))
	if size > 0 { // some ReaderAts say io.EOF for nothing read at the end
		if _, err := ra.ReadAt(prefix, 0); err != nil {
			return nil, err
		}
	}
	_, n, err := identify(path, prefix)
	if err != nil {
		return nil, err
	}
	if n > maxHeaderBytes {
		return nil, &NotRecordingError{Path: path, Reason: "header too large"}
	}
	dataStart := skippableHeader + n
	if dataStart > size {
		return nil, &DamagedError{Path: path, Reason: "cut short inside its header"}
	}
	content := make([]byte, n)
	if _, err := ra.ReadAt(content, skippableHeader); err != nil {
		return nil, err
	}
	h, err := parseHeaderContent(content)
	if err != nil {
		return nil, &DamagedError{Path: path, Reason: "header damaged (" + err.Error() + ")"}
	}
	zdec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxSegmentBytes), zstd.WithDecoderMaxWindow(8<<20))
	if err != nil {
		return nil, err
	}
	r := &Reader{path: path, file: ra, header: h, zdec: zdec, fresh: true}
	idx, end, err := readIndex(ra, dataStart, size)
	switch {
	case err == nil:
		r.indexed, r.index, r.segments, r.dataEnd = true, idx, idx.segments, end
	case errors.Is(err, errNoIndex):
		w := walk(ra, dataStart, size)
		r.segments, r.dataEnd, r.walkProblem = w.segments, w.end, w.problem
	default:
		zdec.Close()
		return nil, err
	}
	return r, nil
}

// Header returns the recording's header.
func (r *Reader) Header() Header { return r.header }

// Span returns the times of the first and last samples that can be read,
// both zero if there are none. A cleanly closed file answers from its
// index; otherwise the first and last segments are decoded.
func (r *Reader) Span() (first, last time.Time) {
	if r.indexed {
		if r.index.samples == 0 || len(r.segments) == 0 {
			return time.Time{}, time.Time{}
		}
		return time.Unix(0, r.segments[0].first), time.Unix(0, r.index.last)
	}
	if !r.spanDone {
		r.spanDone = true
		// A reader of its own buffers, so the read position stays put.
		side := &Reader{path: r.path, file: r.file, segments: r.segments, dataEnd: r.dataEnd, zdec: r.zdec}
		for i := range r.segments {
			if s, ok := side.firstIn(i); ok {
				r.spanFirst = s
				break
			}
		}
		for i := len(r.segments) - 1; i >= 0 && r.spanLast.IsZero(); i-- {
			r.spanLast = side.lastIn(i)
		}
	}
	return r.spanFirst, r.spanLast
}

// firstIn is the time of segment i's first good sample, if it has one.
func (r *Reader) firstIn(i int) (time.Time, bool) {
	r.load(i)
	s, ok, err := r.dec.next()
	return s.At, ok && err == nil
}

// lastIn is the time of segment i's last good sample: damage ends them.
func (r *Reader) lastIn(i int) time.Time {
	r.load(i)
	var last time.Time
	for {
		s, ok, err := r.dec.next()
		if !ok || err != nil {
			return last
		}
		last = s.At
	}
}

// SeekTime makes the next Read return the first sample at or after t. It
// starts decoding at the segment that holds t, found by its first time, so
// it reads at most one segment more than it returns. Hints starts again
// from the snapshot current at t.
func (r *Reader) SeekTime(t time.Time) error {
	if r.file == nil {
		return errClosed
	}
	ns := clampNano(t)
	i := sort.Search(len(r.segments), func(i int) bool { return r.segments[i].first > ns }) - 1
	r.next = max(i, 0)
	r.loaded, r.ended, r.seeking, r.seekTo, r.good = false, nil, true, ns, time.Time{}
	r.hints, r.fresh = nil, true
	return nil
}

// Hints returns the hint snapshots recorded (format 1.1) among what Read
// has passed, in the order they were written; since the last SeekTime(t),
// from the snapshot current at t on. Read reads on past a sample to the
// snapshots stamped with its time, so after Read returns a sample, Hints
// holds every snapshot current with it; after Read returns the end, every
// snapshot in the file. The last one is the recorded verdict; HintsAt
// finds the one current at a time. A 1.0 file has none.
//
// The slice is shared, not copied, so a replay may ask at every frame: it
// stays as it is when the Reader reads on, and must not be modified.
func (r *Reader) Hints() []HintSnapshot { return r.hints[:len(r.hints):len(r.hints)] }

// takeHints moves the snapshots the decoder found into r.hints. While
// seeking, it keeps only the one current at the target and those after.
func (r *Reader) takeHints() {
	if len(r.dec.hints) == 0 {
		return
	}
	r.hints = append(r.hints, r.dec.hints...)
	clear(r.dec.hints)
	r.dec.hints = r.dec.hints[:0]
	if r.seeking {
		i := len(r.hints) - 1
		for i > 0 && r.hints[i].At.UnixNano() > r.seekTo {
			i--
		}
		r.hints = r.hints[i:] // not in place: the caller may hold the slice
	}
}

// clampNano is t in Unix nanoseconds, saturated outside 1678-2262.
func clampNano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// Read returns the next sample. At the end it returns io.EOF for a cleanly
// closed file, or once a *DamagedError (cut short, damaged, or not closed)
// after every good sample, and io.EOF after that.
func (r *Reader) Read() (timeline.Sample, error) {
	for {
		if r.ended != nil {
			return timeline.Sample{}, r.ended
		}
		if r.file == nil {
			return timeline.Sample{}, errClosed
		}
		if !r.loaded {
			if r.next >= len(r.segments) {
				return timeline.Sample{}, r.end(r.tailProblem())
			}
			r.load(r.next)
			r.dec.keepCarried, r.fresh = r.fresh, false
			r.next++
		}
		s, ok, err := r.dec.next()
		r.takeHints()
		if ok {
			r.good = s.At
			if r.seeking && s.At.UnixNano() < r.seekTo {
				continue
			}
			r.seeking = false
			return s, nil
		}
		if err == nil {
			err = r.segErr
		}
		if err != nil {
			return timeline.Sample{}, r.end(r.damaged(r.segments[r.cur].offset, err))
		}
		r.loaded = false
	}
}

// tailProblem says what is wrong at the end of the segments, if anything.
func (r *Reader) tailProblem() error {
	switch {
	case r.indexed:
		return nil
	case r.walkProblem != nil:
		return r.damaged(r.dataEnd, r.walkProblem)
	}
	return &DamagedError{Path: r.path, Good: r.good, Reason: "not closed (gputop stopped before closing it)"}
}

func (r *Reader) damaged(at int64, err error) error {
	if errors.Is(err, errCutShort) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &DamagedError{Path: r.path, Good: r.good, Reason: "cut short"}
	}
	return &DamagedError{Path: r.path, Good: r.good, Offset: at, Reason: "damaged (" + err.Error() + ")"}
}

// end reports err (nil for a clean end) once; io.EOF follows.
func (r *Reader) end(err error) error {
	r.ended = io.EOF
	if err == nil {
		return io.EOF
	}
	return err
}

// load reads and decompresses segment i into dec. A segment cut short or
// damaged keeps whatever decompressed before the trouble, and segErr says
// what the trouble was.
func (r *Reader) load(i int) {
	r.cur, r.loaded, r.segErr = i, true, nil
	r.data = r.data[:0]
	r.dec.reset(nil)
	start, end := r.segments[i].offset, r.dataEnd
	if i+1 < len(r.segments) {
		end = r.segments[i+1].offset
	}
	if end-start < segmentFrame {
		r.segErr = errCutShort
		return
	}
	r.comp = grow(r.comp, int(end-start))
	if _, err := r.file.ReadAt(r.comp, start); err != nil {
		r.segErr = err
		return
	}
	if _, err := parseSegmentHeader(r.comp[:segmentFrame]); err != nil {
		r.segErr = err
		return
	}
	if err := r.zdec.Reset(bytes.NewReader(r.comp[segmentFrame:])); err != nil {
		r.segErr = err
		return
	}
	r.data, r.segErr = readAtMost(r.zdec, r.data, maxSegmentBytes)
	r.dec.reset(r.data)
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// readAtMost reads src to its end into buf, up to limit bytes. It keeps
// what it read when src fails, and returns the failure.
func readAtMost(src io.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				return buf, errors.New("segment too large")
			}
			buf = append(buf, 0)[:len(buf)]
		}
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

// Close closes the file.
func (r *Reader) Close() error {
	if r.file == nil {
		return nil
	}
	r.file = nil
	r.zdec.Close()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
