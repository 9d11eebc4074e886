package recordings

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// A stream is a recording read as it is written, from a pipe or a socket
// (`ssh node3 gputop stream`, an attach to a running recorder): the same
// bytes as a file, read front to back with no seeking, each chunk decoded
// as soon as its check arrives. Its header frame is the version handshake:
// the reader refuses a stream it cannot read, before any sample, with a
// *StreamVersionError that names both versions.

// MinStreamVersion is the oldest format version a stream may have: the
// first gputop that streams wrote it.
var MinStreamVersion = Version{Major: 1, Minor: 4}

// StreamItem says what a StreamEvent carries.
type StreamItem int

const (
	// StreamSample is a sample, with its markers, statuses and processes.
	StreamSample StreamItem = iota + 1
	// StreamHints is a snapshot of the hints the sender shows, current
	// with the sample before it.
	StreamHints
	// StreamInfo is the source's whole description, grown since the
	// header (a GPU found late): it describes the samples from the next
	// one on, and comes right before it.
	StreamInfo
)

// StreamEvent is one thing read from a stream.
type StreamEvent struct {
	Item   StreamItem
	Sample timeline.Sample     // StreamSample
	Hints  HintSnapshot        // StreamHints
	Info   timeline.SourceInfo // StreamInfo
}

// StreamReader reads a recording from an io.Reader as it arrives. It holds
// about one chunk (a second of samples) and one zstd window in memory,
// however long the stream runs. It is not safe for concurrent use.
type StreamReader struct {
	src    *bufio.Reader
	header Header
	zdec   *zstd.Decoder
	frame  frameReader
	dec    format.Decoder
	buf    []byte

	inSegment bool
	frameDone bool // the segment's zstd frame has ended
	segBytes  int  // decompressed so far in the segment
	queue     []StreamEvent
	info      timeline.SourceInfo // current with the last sample returned
	lastInfo  timeline.SourceInfo // the last one queued
	good      time.Time           // the last sample returned
	sawIndex  bool
	// segmentSeen says a segment was read: the carried records of the
	// next ones are repeats.
	segmentSeen bool
	closed      bool  // the trailer of a clean close arrived
	ended       error // what Next returns from now on

	// stop is set by Close, which may come from another goroutine while
	// Next decodes: Next checks it between chunks and returns. running is
	// held while Next runs, so that whichever of the two ends last
	// releases the decoder (release), once.
	stop     atomic.Bool
	running  sync.Mutex
	released sync.Once
}

// NewStreamReader reads a stream's header from r, waiting for it as long
// as r does. Its errors: r's own, a *NotRecordingError (name is the path
// in its message) for bytes that are no recording (a shell's message, an
// older gputop's usage), a *StreamVersionError, or a *StreamError for a
// header cut short or damaged.
func NewStreamReader(r io.Reader, name string) (*StreamReader, error) {
	src := bufio.NewReaderSize(r, 64<<10)
	prefix := make([]byte, format.PrefixLen)
	n, err := io.ReadFull(src, prefix)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return nil, &NotRecordingError{Path: name, Reason: "empty stream"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		if cutInPrefix(prefix[:n]) {
			return nil, &StreamError{Cut: true, Reason: "cut short inside its header"}
		}
	case err != nil:
		return nil, err
	}
	v, size, err := format.ParsePrefix(prefix[:n])
	if err != nil {
		reason := "unknown format"
		if looksLikeText(prefix[:n]) {
			reason = fmt.Sprintf("text: %q", firstLine(prefix[:n], src))
		}
		return nil, &NotRecordingError{Path: name, Reason: reason}
	}
	if size > format.MaxHeaderBytes || size < int64(len(format.FileMagic)+4+4) {
		return nil, &StreamError{Reason: "damaged (bad header length)"}
	}
	content := make([]byte, size)
	copy(content, prefix[format.SkippableHeader:])
	if _, err := io.ReadFull(src, content[len(prefix)-format.SkippableHeader:]); err != nil {
		if isCut(err) || errors.Is(err, io.EOF) {
			return nil, &StreamError{Cut: true, Reason: "cut short inside its header"}
		}
		return nil, err
	}
	if v.Major != format.FormatVersion.Major || v.Minor < MinStreamVersion.Minor {
		return nil, &StreamVersionError{Found: v, Gputop: senderVersion(content)}
	}
	h, err := format.ParseHeaderContent(content)
	if err != nil {
		return nil, &StreamError{Reason: "damaged (header: " + err.Error() + ")"}
	}
	zdec, err := newDecompressor()
	if err != nil {
		return nil, err
	}
	s := &StreamReader{src: src, header: h, zdec: zdec, info: h.Info, lastInfo: h.Info, buf: make([]byte, 32<<10)}
	s.dec.Streaming = true
	s.frame.src = src
	return s, nil
}

// firstLine is the first line of text that began with b, at most 80
// bytes: what a shell or an older gputop said instead of streaming.
func firstLine(b []byte, rest *bufio.Reader) string {
	line := append([]byte(nil), b...)
	if more, err := rest.Peek(min(rest.Buffered(), 80)); err == nil {
		line = append(line, more...) // buffered already: no wait
	}
	line, _, _ = bytes.Cut(line, []byte{'\n'})
	return string(bytes.TrimSpace(line[:min(len(line), 80)]))
}

// senderVersion is the gputop version in a header's JSON, if it can be
// read whatever the format version (for the message of a version error),
// from content as long as a magic, a version and a CRC at least.
func senderVersion(content []byte) string {
	var hj struct {
		V string `json:"gputop_version"`
	}
	if json.Unmarshal(content[len(format.FileMagic)+4:len(content)-4], &hj) != nil {
		return ""
	}
	return hj.V
}

// Header returns the stream's header: the sender's gputop version, the
// source's description when the stream started, its start time.
func (s *StreamReader) Header() Header { return s.header }

// Info returns the source's description current with the last sample Next
// returned.
func (s *StreamReader) Info() timeline.SourceInfo { return s.info }

// Next returns the next sample, hint snapshot or description, waiting for
// it as long as the underlying reader does. Each chunk (at most a second
// of samples) is returned as soon as it arrived whole and its check
// matched. At the sender's clean close (the recording's index) it returns
// io.EOF; a stream that ends before that, or damaged bytes, end in one
// *StreamError; an error of the reader comes back as it is. After an error
// every call returns it again.
//
// Its work is linear in the bytes read, and a call reads at most one
// segment (format.MaxSegmentBytes of records) without returning, so closing the
// underlying reader ends a Next that waits on it at once, and Close from
// another goroutine ends a busy one within a chunk.
func (s *StreamReader) Next() (StreamEvent, error) {
	s.running.Lock()
	ev, err := s.next()
	s.running.Unlock()
	if s.stop.Load() {
		s.release()
	}
	return ev, err
}

func (s *StreamReader) next() (StreamEvent, error) {
	for {
		if s.stop.Load() {
			return StreamEvent{}, errClosed
		}
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = StreamEvent{}
			s.queue = s.queue[1:]
			switch ev.Item {
			case StreamSample:
				s.good = ev.Sample.At
			case StreamInfo:
				s.info = ev.Info
			}
			return ev, nil
		}
		if s.ended != nil {
			return StreamEvent{}, s.ended
		}
		var err error
		if s.inSegment {
			err = s.decode()
		} else {
			err = s.nextFrame()
		}
		if err != nil {
			s.ended = s.failure(err)
		}
	}
}

// failure turns what stopped the stream into the error Next returns.
func (s *StreamReader) failure(err error) error {
	var se *StreamError
	switch {
	case errors.Is(err, io.EOF) && !s.closed:
		return &StreamError{Cut: true, Reason: "cut short (the sender stopped before closing it)", Good: s.good}
	case errors.Is(err, io.EOF):
		return io.EOF
	case errors.As(err, &se):
		se.Good = s.good
		return se
	case isCut(err):
		return &StreamError{Cut: true, Reason: "cut short", Good: s.good}
	case errors.Is(err, format.ErrCorrupt), errors.Is(err, format.ErrBadCheck), errors.Is(err, format.ErrBetweenSegments), errors.Is(err, format.ErrPastBounds):
		return &StreamError{Reason: "damaged (" + err.Error() + ")", Good: s.good}
	}
	return err
}

// nextFrame reads the frame that follows a segment or the header: a
// segment header (then its zstd frame), the index and trailer of a clean
// close, or a skippable frame of a later minor version, skipped.
func (s *StreamReader) nextFrame() error {
	var head [format.SkippableHeader]byte
	n, err := io.ReadFull(s.src, head[:])
	if n == 0 && errors.Is(err, io.EOF) {
		return io.EOF // between frames: the stream stopped (or closed, after the index)
	}
	if err != nil {
		return err
	}
	magic := binary.LittleEndian.Uint32(head[:])
	size := int64(binary.LittleEndian.Uint32(head[4:]))
	if magic&format.SkippableMask != format.SkippableMagic {
		return damaged("no frame where one should start")
	}
	switch magic &^ format.SkippableMask {
	case format.FrameSegment:
		if size != format.SegmentContent {
			return damaged("bad segment header")
		}
		b := make([]byte, format.SegmentFrame)
		copy(b, head[:])
		if _, err := io.ReadFull(s.src, b[format.SkippableHeader:]); err != nil {
			return err
		}
		if _, err := format.ParseSegmentHeader(b); err != nil {
			return damaged(err.Error())
		}
		s.startSegment()
		return nil
	case format.FrameIndex:
		s.sawIndex = true
	case format.FrameTrailer:
		if size != format.TrailerContent {
			return damaged("bad trailer")
		}
		b := make([]byte, format.TrailerContent)
		if _, err := io.ReadFull(s.src, b); err != nil {
			return err
		}
		if string(b[8:]) != format.TrailerMagic {
			return damaged("bad trailer")
		}
		if !s.sawIndex {
			return damaged("trailer without index")
		}
		s.closed = true
		return io.EOF // closed: no need to wait for the transport to end
	case format.FrameHeader:
		return damaged("a second header")
	}
	_, err = io.CopyN(io.Discard, s.src, size)
	return err
}

func (s *StreamReader) startSegment() {
	s.frame.reset()
	// A reader that is not a bytes.Buffer or bytes.Reader makes zstd
	// decode block by block as the frame arrives (one goroutine, no read
	// ahead): frameReader hands it exactly the frame, so it never runs
	// into the next segment's header.
	_ = s.zdec.Reset(&s.frame) // only fails once the decoder is closed
	s.dec.Reset(nil)
	// A stream that starts at a later segment of a recording (a follower
	// that asked for the last hour) has not seen the snapshot the writer
	// carried into it: it is news. Later, it is a repeat.
	s.dec.KeepCarried = !s.segmentSeen
	s.segmentSeen = true
	s.inSegment, s.frameDone, s.segBytes = true, false, 0
}

// decode returns the segment's next records as events, reading more of
// the zstd frame when its decoded records end inside a chunk.
func (s *StreamReader) decode() error {
	for {
		sm, ok, err := s.dec.Next()
		if s.dec.Info != nil {
			info := *s.dec.Info
			s.dec.Info = nil
			// The writer carries the description into each segment: a
			// repeat is no news.
			if !reflect.DeepEqual(info, s.lastInfo) {
				s.queue = append(s.queue, StreamEvent{Item: StreamInfo, Info: info})
				s.lastInfo = info
			}
		}
		// Snapshots stamped before the sample were read before it (they
		// were current with the sample before, and their chunk came with
		// this one); those stamped with it, after it.
		sample := ok // not queued yet
		for _, h := range s.dec.Hints {
			if sample && !h.At.Before(sm.At) {
				s.queue = append(s.queue, StreamEvent{Item: StreamSample, Sample: sm})
				sample = false
			}
			s.queue = append(s.queue, StreamEvent{Item: StreamHints, Hints: h})
		}
		if sample {
			s.queue = append(s.queue, StreamEvent{Item: StreamSample, Sample: sm})
		}
		clear(s.dec.Hints)
		s.dec.Hints = s.dec.Hints[:0]
		if ok || len(s.queue) > 0 {
			return nil
		}
		switch {
		case err != nil && err != format.ErrNeedMore:
			return err
		case s.frameDone && err == format.ErrNeedMore:
			return damaged("records after the last check")
		case s.frameDone:
			s.inSegment = false
			return nil
		}
		if s.stop.Load() {
			return errClosed
		}
		if err := s.readFrame(); err != nil {
			return err
		}
	}
}

// readFrame decompresses the next block of the segment's zstd frame into
// the decoder, waiting for it to arrive.
func (s *StreamReader) readFrame() error {
	n, err := s.zdec.Read(s.buf)
	if n > 0 {
		s.segBytes += n
		if s.segBytes > format.MaxSegmentBytes {
			return damaged("segment too large")
		}
		s.dec.Feed(s.buf[:n])
	}
	switch {
	case errors.Is(err, io.EOF):
		s.frameDone = true
		return nil
	case err != nil && s.frame.err != nil:
		return s.frame.err // the transport's, or a cut
	case err != nil:
		return damaged(err.Error())
	}
	return nil
}

// Recycle hands back the values of a sample Next returned that the
// caller is done with (format.Decoder.Recycle): the next sample is decoded
// into them. Not safe beside a running Next.
func (s *StreamReader) Recycle(v []float64) { s.dec.Recycle(v) }

// Close stops the reader and releases its decoder; Next returns an error
// from then on. It may be called while Next runs in another goroutine:
// a busy Next returns within a chunk. It does not close the underlying
// reader: close that too to end a Next that waits on it.
func (s *StreamReader) Close() error {
	s.stop.Store(true)
	s.release()
	return nil
}

// release closes the decoder once, unless Next runs: that Next does as it
// returns.
func (s *StreamReader) release() {
	if s.running.TryLock() {
		s.released.Do(s.zdec.Close)
		s.running.Unlock()
	}
}
