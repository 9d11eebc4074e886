package recordings

import (
	"errors"
	"io"

	"github.com/gputop-dev/gputop/recordings/format"
)

// A file's header says how to read everything after it, so a damaged
// header would lose the whole file. Every segment therefore opens with a
// copy of it (record type 10, format 1.4 from commit "recordings: a copy
// of the header opens each segment"): its body, as the header frame holds
// it but for the CRC, which the chunk's check stands in for. A reader
// that finds the header damaged (a bad CRC, JSON or magic, a length that
// leads nowhere) finds the first segment by scanning the bytes where it
// must start, reads the copy there, and reads the file as if the header
// were whole; the DamagedError at the end says the header was damaged.
// Older readers skip the record, as any they do not know.

// readHeader reads and checks the header frame at the start of ra. It
// returns the header and where the segments' data starts. On failure,
// damage says, in a few words, what looks damaged in a header, for
// newReader to try its copies (an empty file has none to find); it is
// empty where no copy can help (a newer major version, a read error).
func readHeader(ra io.ReaderAt, size int64, path string) (h Header, dataStart int64, damage string, err error) {
	prefix := make([]byte, min(size, int64(format.PrefixLen)))
	if size > 0 { // some ReaderAts say io.EOF for nothing read at the end
		if _, err := ra.ReadAt(prefix, 0); err != nil {
			return Header{}, 0, "", err
		}
	}
	v, n, err := format.ParsePrefix(prefix)
	switch {
	case err != nil:
		_, err = identify(path, prefix) // what it is, in its words: "empty file" too
		return Header{}, 0, "bad magic", err
	case n > format.MaxHeaderBytes:
		return Header{}, 0, "bad length", &NotRecordingError{Path: path, Reason: "header too large"}
	case format.SkippableHeader+n > size:
		return Header{}, 0, "bad length", &DamagedError{Path: path, Reason: "cut short inside its header"}
	}
	content := make([]byte, n)
	if _, err := ra.ReadAt(content, format.SkippableHeader); err != nil {
		return Header{}, 0, "", err
	}
	h, err = format.ParseHeaderContent(content)
	switch {
	case v.Major != format.FormatVersion.Major && !errors.Is(err, format.ErrBadCheck) && !errors.Is(err, format.ErrCutShort):
		// A header whose check fails is damage whatever its version says:
		// a flipped bit there, not a file from the future.
		_, err = identify(path, prefix) // a version this gputop does not read
		return Header{}, 0, "", err
	case err != nil:
		return Header{}, 0, damageText(err), &DamagedError{Path: path, Reason: "header damaged (" + damageText(err) + ")"}
	}
	return h, format.SkippableHeader + n, "", nil
}

// firstSegmentAt finds where the first segment starts in a file whose
// header is damaged: by scanning for a segment header where one can be,
// right after a header frame of at most format.MaxHeaderBytes.
func firstSegmentAt(ra io.ReaderAt, size int64) (int64, bool) {
	segs, _, err := format.FindSegments(ra, 0, min(size, format.SkippableHeader+format.MaxHeaderBytes+format.SegmentFrame+int64(len(format.ZstdMagic))))
	if err != nil || len(segs) == 0 {
		return 0, false
	}
	return segs[0].Offset, true
}

// headerCopyTries is how many segments a reader looks in for a copy of a
// damaged header: one damaged byte can cost the first its copy.
const headerCopyTries = 2

// readHeaderCopy takes the header from the copy that opens one of the
// first segments (the first record of its first chunk, which must be
// whole and check), and says whether it found one.
func (r *Reader) readHeaderCopy() bool {
	defer func() { r.loaded = false }()
	for i := range min(len(r.segments), headerCopyTries) {
		r.load(i)
		if h, ok := r.dec.HeaderCopy(); ok {
			r.header = h
			return true
		}
	}
	return false
}
