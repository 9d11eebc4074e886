package recordings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// Writer writes a recording. It is not safe for concurrent use: the Recorder
// calls it from its own goroutine, off the sampling path.
//
// Samples are encoded as they come and handed to the compressor in chunks;
// each chunk ends with a check record and a zstd block flush, so what is
// on disk always decodes up to the last flush. A flush happens whenever
// the oldest unflushed sample would otherwise wait a second or more.
type Writer struct {
	path  string
	file  io.WriteCloser
	ident os.FileInfo // the open file's identity, to notice it being removed; nil for no file
	out   countingWriter
	enc   *zstd.Encoder
	seg   format.Encoder

	interval   time.Duration // the source's, to flush before a second's worth waits
	span       time.Duration // sample time per segment: segmentSpan (tests make it short)
	inSegment  bool
	segFirst   int64
	segBytes   int
	seq        uint32
	chunk      []byte // records not yet given to the compressor
	chunkFirst int64  // time of the oldest sample in chunk
	index      format.Index
	// lastHints is the last hint snapshot written, carried into each new
	// segment so that a seek finds the hints current there.
	lastHints   []timeline.Hint
	lastHintsAt int64
	hasHints    bool
	// lastInfo is the last info record's payload, carried into each new
	// segment so that a seek finds the source's description current there.
	lastInfo []byte
	// headerCopy opens each segment, so that a damaged header costs no more
	// than a segment (headercopy.go); nil leaves it out, as writers before
	// it did (the golden files of older versions).
	headerCopy []byte

	err    error // the first write error: the Writer is dead after it
	closed bool
}

// countingWriter knows the file offset, for segment references.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Create creates a recording at path and writes its header. It refuses a
// file that exists unless force is set, and then only a regular file (or a
// link to one), whose content it replaces. Its errors are one line.
func Create(path string, h Header, force bool) (*Writer, error) {
	f, err := createFile(path, force)
	if err != nil {
		return nil, err
	}
	return startWriter(f, path, h)
}

// recFile is a recording's file as createFile opened it. made says that
// createFile made it: only then may a failure remove it. A file there
// before (--force), a device node or a link is not gputop's to remove:
// `record -o /dev/full --force` as root once deleted /dev/full.
type recFile struct {
	*os.File
	made bool
}

// createFile creates the file of a recording (a *recFile), refusing one
// that exists unless force is set. The Recorder creates it when recording
// starts, so a path that cannot be written fails at once, and writes the
// header later.
//
// With force, a path that exists must be a regular file (a link is
// followed to one): it is opened without blocking (a named pipe with no
// reader would block even the open), checked as opened, and only then
// emptied. A device, a pipe or a socket is refused in one line.
func createFile(path string, force bool) (io.WriteCloser, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return &recFile{File: f, made: true}, nil
	}
	if errors.Is(err, fs.ErrExist) && !force {
		// No advice about --force: the r key of the live view meets this
		// too, and the commands that have the flag say so themselves.
		return nil, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cannot create recording: %w", err)
	}
	// Checked before the open (a pipe without a reader refuses a
	// non-blocking one) and after it (a file swapped in between).
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot create recording: %s is %s", path, NotRegular(fi))
	}
	f, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot overwrite recording: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("cannot create recording: %s is %s", path, NotRegular(fi))
	} else if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close() // opened for writing, nothing written: a close error changes nothing
		return nil, err
	}
	return &recFile{File: f}, nil
}

// NotRegular says what a file that is not a regular one is, for a
// refusal: "a device, not a regular file".
func NotRegular(fi os.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe, not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	case m&fs.ModeDevice != 0:
		return "a device, not a regular file"
	}
	return "not a regular file"
}

// LinkTarget is the file a link at path names (followed to the end), or
// path itself: a recording written elsewhere and renamed into place (an
// import) goes onto the target, never over the link, which is not
// gputop's to replace. A link to nothing is path: the caller refuses it.
func LinkTarget(path string) string {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return path
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		return target
	}
	return path
}

// removeMade removes the file at path if createFile made it (f) and path
// still names it: never one that was there before, nor one put in its
// place since, nor a writer that is no file. Called before f is closed:
// it asks the open file what it is.
func removeMade(f io.WriteCloser, path string) error {
	rf, isFile := f.(*recFile)
	if !isFile || !rf.made {
		return nil
	}
	was, err := rf.Stat()
	if err != nil {
		return err
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(was, now) {
		return err
	}
	return os.Remove(path)
}

// startWriter writes the header to f and returns a Writer for the rest.
// For a file createFile made, the Writer notices the file being removed or
// replaced under it. On failure it closes f, and removes a file it made.
func startWriter(f io.WriteCloser, path string, h Header) (*Writer, error) {
	rf, isFile := f.(*recFile)
	w, err := newWriter(f, path, h)
	if err == nil && isFile {
		w.ident, err = rf.Stat()
		if err != nil {
			err = fmt.Errorf("cannot create recording: %w", err)
		}
	}
	if err != nil {
		rerr := removeMade(f, path)
		if cerr := f.Close(); cerr != nil {
			err = fmt.Errorf("%w (closing: %v)", err, cerr)
		}
		if rerr != nil {
			err = fmt.Errorf("%w (and could not remove it: %v)", err, rerr)
		}
		return nil, err
	}
	return w, nil
}

// newWriter writes the header to file and returns a Writer for the rest.
func newWriter(file io.WriteCloser, path string, h Header) (*Writer, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1), // Flush writes synchronously, no goroutines
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithWindowSize(1<<20),
		zstd.WithEncoderCRC(true))
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	w := &Writer{path: path, file: file, out: countingWriter{w: file}, enc: enc, interval: h.Info.Interval, span: segmentSpan}
	head, err := format.AppendHeaderFrame(nil, h)
	if err != nil {
		return nil, err
	}
	w.headerCopy = head[format.SkippableHeader : len(head)-4] // its body, without the CRC: each chunk has its own
	if _, err := w.out.Write(head); err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	return w, nil
}

var errClosed = errors.New("recording is closed")

// Write adds one sample. It returns the first write error again on every
// later call: a recording that failed stays failed, and what was written
// before the failure stays readable.
func (w *Writer) Write(s *timeline.Sample) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	at, err := unixNano(s.At)
	if err != nil {
		return err
	}
	for _, m := range s.Markers {
		if _, err := unixNano(m.At); err != nil {
			return err
		}
	}
	for _, p := range s.Progress {
		if _, err := unixNano(p.At); err != nil {
			return err
		}
	}
	if err := checkSample(s); err != nil {
		return err
	}
	s = ownersWithinBounds(s)
	if w.inSegment && (at-w.segFirst >= int64(w.span) || w.segBytes-w.seg.DefinedBytes() >= format.SegmentBytes || !w.seg.RoomFor(s)) {
		if err := w.endSegment(); err != nil {
			return err
		}
	}
	if len(w.chunk) == 0 {
		w.chunkFirst = at
	}
	if !w.inSegment {
		if err := w.startSegment(at); err != nil {
			return err
		}
		if w.headerCopy != nil {
			w.chunk = format.AppendRecord(w.chunk, format.RecHeader, w.headerCopy)
		}
		if w.lastInfo != nil {
			w.chunk = format.AppendRecord(w.chunk, format.RecInfo, w.lastInfo)
		}
		if w.hasHints {
			w.chunk = w.seg.AppendHints(w.chunk, w.lastHintsAt, format.HintsCarried, w.lastHints)
		}
	}
	// Neither the carried records nor the segment's key definitions count
	// against SegmentBytes: a thousand hosts carry a description of
	// megabytes, 64 hosts define 1.4 MB of keys, and counting either ended
	// every segment after one sample.
	n := len(w.chunk)
	w.chunk = w.seg.AppendSample(w.chunk, s)
	w.segBytes += len(w.chunk) - n
	w.index.Last = at
	w.index.Samples++
	if at-w.chunkFirst+int64(w.interval) >= int64(flushEvery) {
		return w.Flush()
	}
	return nil
}

// WriteHints records the hints gputop shows at sample time at: the whole
// set (a snapshot, not a change), nil or empty when it shows none. The
// live view calls it whenever the set changes; gputop record and run call
// it once at the end, with the hints over the whole run. It keeps its own
// copy of hints.
//
// at is the time of the sample the hints are current with, so it may not
// be before the last sample written, nor come before the first: such a
// call, and hints the format cannot keep (a confidence outside 0..1 or
// NaN, a start or end unset or outside 1678-2262), return an error and
// write nothing, and the Writer goes on. The snapshot is flushed with the
// next sample, by Flush, or by Close.
func (w *Writer) WriteHints(at time.Time, hints []timeline.Hint) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	ns, err := unixNano(at)
	if err != nil {
		return err
	}
	if w.index.Samples == 0 {
		return errHintsBeforeSamples
	}
	if ns < w.index.Last {
		return fmt.Errorf("cannot record hints at %v, before the last sample written (%v)", at, time.Unix(0, w.index.Last))
	}
	if err := checkHints(hints); err != nil {
		return err
	}
	if len(w.chunk) == 0 {
		w.chunkFirst = ns
	}
	n := len(w.chunk)
	w.chunk = w.seg.AppendHints(w.chunk, ns, 0, hints)
	w.segBytes += len(w.chunk) - n
	w.lastHints, w.lastHintsAt, w.hasHints = cloneHints(hints), ns, true
	return nil
}

// WriteInfo records the source's description as it is now known, when it
// has grown since the header was written (a GPU found later, a host
// added): the whole description, not a change. It describes the samples
// from the next one written on, and may come before the first. It is
// carried into each later segment, so that a seek finds it.
//
// A description the format cannot keep (over 1 MiB as JSON) returns an
// error and writes nothing, and the Writer goes on. The record is flushed
// with the next sample, by Flush, or by Close; one written before any
// sample is kept only once a sample follows, since it describes samples.
func (w *Writer) WriteInfo(info timeline.SourceInfo) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	p, err := format.MarshalInfo(info)
	if err != nil {
		return err
	}
	if w.inSegment {
		if len(w.chunk) == 0 {
			w.chunkFirst = w.index.Last
		}
		n := len(w.chunk)
		w.chunk = format.AppendRecord(w.chunk, format.RecInfo, p)
		w.segBytes += len(w.chunk) - n
	}
	w.lastInfo = p // before the first sample, written when its segment starts
	return nil
}

// checkSample refuses a sample larger than a reader takes
// (docs/recording-format.md, Limits): more metrics or statuses than a
// segment may define keys or probes, more processes or markers than a
// record may list.
func checkSample(s *timeline.Sample) error {
	switch {
	case s.Len() != s.Columns.Len():
		return fmt.Errorf("cannot record a sample of %d values in %d columns", s.Len(), s.Columns.Len())
	case s.Len() > format.MaxSegmentKeys:
		return fmt.Errorf("cannot record a sample of %d metrics, more than %d", s.Len(), format.MaxSegmentKeys)
	case len(s.Probes) > format.MaxSegmentKeys:
		return fmt.Errorf("cannot record a sample of %d probe statuses, more than %d", len(s.Probes), format.MaxSegmentKeys)
	case len(s.Processes) > format.MaxListLen:
		return fmt.Errorf("cannot record a sample of %d processes, more than %d", len(s.Processes), format.MaxListLen)
	case len(s.Markers) > format.MaxListLen:
		return fmt.Errorf("cannot record a sample of %d markers, more than %d", len(s.Markers), format.MaxListLen)
	case len(s.Progress) > format.MaxListLen:
		return fmt.Errorf("cannot record a sample of %d progress readings, more than %d", len(s.Progress), format.MaxListLen)
	}
	return nil
}

// ownersWithinBounds is s, or a copy of it whose owners leave out those a
// reader would not take: of a GPU no recording numbers, past the
// MaxListLen a record lists. The probe never makes them, and owners are
// not worth a recording that stops: they are left out, not refused.
func ownersWithinBounds(s *timeline.Sample) *timeline.Sample {
	bad := func(o timeline.Owner) bool { return o.GPU < 0 || o.GPU >= timeline.MaxGPUs }
	if len(s.Owners) <= format.MaxListLen && !slices.ContainsFunc(s.Owners, bad) {
		return s
	}
	c := *s
	c.Owners = slices.DeleteFunc(slices.Clone(s.Owners), bad)
	c.Owners = c.Owners[:min(len(c.Owners), format.MaxListLen)]
	return &c
}

// unixNano is t in Unix nanoseconds, if t fits (years 1678 to 2262).
func unixNano(t time.Time) (int64, error) {
	ns := t.UnixNano()
	if t.IsZero() || !time.Unix(0, ns).Equal(t) {
		return 0, fmt.Errorf("cannot record a time outside 1678-2262: %v", t)
	}
	return ns, nil
}

// Pending says whether samples wait to be flushed.
func (w *Writer) Pending() bool { return len(w.chunk) > 0 }

// Flush writes the samples written so far to the file as a complete zstd
// block, ended by a check record, so that they survive a kill -9.
func (w *Writer) Flush() error {
	if w.err != nil || len(w.chunk) == 0 {
		return w.err
	}
	w.chunk = format.AppendRecord(w.chunk, format.RecCheck, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(w.chunk, format.Castagnoli)))
	if _, err := w.enc.Write(w.chunk); err != nil {
		return w.fail(err)
	}
	if err := w.enc.Flush(); err != nil {
		return w.fail(err)
	}
	w.chunk = w.chunk[:0]
	return w.checkFile()
}

// checkFile notices the file being removed or replaced under the writer:
// writes would still succeed, into a file nobody can open.
func (w *Writer) checkFile() error {
	if w.ident == nil {
		return nil
	}
	fi, err := os.Stat(w.path)
	if err != nil || !os.SameFile(fi, w.ident) {
		return w.fail(errors.New("the file was removed or replaced"))
	}
	return nil
}

// fail stops the Writer for good. Its error names the file and the cause,
// "run.gtr: no space left on device", for the caller to say what stopped:
// a write error of the file names it already.
func (w *Writer) fail(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == w.path {
		err = pe.Err
	}
	w.err = fmt.Errorf("%s: %w", w.path, err)
	return w.err
}

func (w *Writer) startSegment(at int64) error {
	w.index.Segments = append(w.index.Segments, format.SegmentRef{Offset: w.out.n, First: at})
	if _, err := w.out.Write(format.AppendSegmentHeader(nil, at, w.seq)); err != nil {
		return w.fail(err)
	}
	w.seq++
	w.enc.Reset(&w.out)
	w.seg.Reset()
	w.inSegment, w.segFirst, w.segBytes = true, at, 0
	return nil
}

func (w *Writer) endSegment() error {
	if err := w.Flush(); err != nil {
		return err
	}
	w.inSegment = false
	if err := w.enc.Close(); err != nil {
		return w.fail(err)
	}
	return nil
}

// Close flushes what is left, ends the last segment, writes the index and
// the trailer, and closes the file. After a write error it only closes the
// file. It returns the Writer's first error, if it met one.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err == nil && w.inSegment {
		w.err = w.endSegment()
	}
	if w.err == nil {
		if _, err := w.out.Write(format.AppendIndex(nil, w.index, w.out.n)); err != nil {
			w.err = w.fail(err)
		}
	}
	if err := w.file.Close(); err != nil && w.err == nil {
		w.fail(err)
	}
	return w.err
}
