package recordings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/gputop-dev/gputop/recordings/format"
)

// Identify says whether the file at path is a recording, and in which
// format version, from its first few bytes. It returns a
// *NotRecordingError for anything else, and a *VersionError (with the
// version) for a newer major version.
func Identify(path string) (Version, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return Version{}, err
	}
	defer f.Close() // read-only: a close error changes nothing
	b := make([]byte, format.PrefixLen)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Version{}, err
	}
	return identify(path, b[:n])
}

// openRegular opens a file for reading if it is a regular file, and says
// at once what it is if not: a directory, or a named pipe, a device or a
// socket, whose reads may never end (a pipe with no writer blocks even the
// open, /dev/zero never runs out). It opens without blocking and checks
// the file it opened, so a file swapped for a pipe in between is refused
// too.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		if cerr := f.Close(); cerr != nil {
			err = fmt.Errorf("%w (closing: %v)", err, cerr)
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// checkRegular refuses what is not a regular file, in one line.
func checkRegular(path string, fi os.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &NotRecordingError{Path: path, Reason: NotRegular(fi)}
}

// identify checks a file's first bytes: what Identify and Open share.
func identify(path string, b []byte) (Version, error) {
	if len(b) == 0 {
		return Version{}, &NotRecordingError{Path: path, Reason: "empty file"}
	}
	v, _, err := format.ParsePrefix(b)
	if err != nil {
		if cutInPrefix(b) {
			return Version{}, &DamagedError{Path: path, Reason: "cut short inside its header"}
		}
		reason := "unknown format"
		if looksLikeText(b) {
			reason = "text; try gputop import"
		}
		return Version{}, &NotRecordingError{Path: path, Reason: reason}
	}
	if v.Major > format.FormatVersion.Major {
		return v, &VersionError{Path: path, Found: v}
	}
	if v.Major < format.FormatVersion.Major {
		return v, &NotRecordingError{Path: path, Reason: "unknown format version " + v.String()}
	}
	return v, nil
}

// cutInPrefix says whether b, shorter than a header's prefix, is the
// start of one: a file cut off within its first few dozen bytes.
func cutInPrefix(b []byte) bool {
	if len(b) >= format.PrefixLen {
		return false
	}
	want := format.AppendSkippable(nil, format.FrameHeader, nil)
	want = append(want, format.FileMagic...)
	for i := range b {
		if i >= 4 && i < format.SkippableHeader {
			continue // the frame length: any value
		}
		if i < len(want) && b[i] != want[i] {
			return false
		}
	}
	return true
}

// looksLikeText says whether b has no control bytes but line breaks and
// tabs: a log or a CSV given where a recording was expected.
func looksLikeText(b []byte) bool {
	return !bytes.ContainsFunc(b, func(c rune) bool { return (c < ' ' && c != '\n' && c != '\r' && c != '\t') || c == 0x7f })
}
