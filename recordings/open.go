package recordings

import (
	"errors"
	"io"
	"os"
)

// Identify says whether the file at path is a recording, and in which
// format version, from its first few bytes. It returns a
// *NotRecordingError for anything else, and a *VersionError (with the
// version) for a newer major version.
func Identify(path string) (Version, error) {
	f, err := os.Open(path)
	if err != nil {
		return Version{}, err
	}
	defer f.Close() // read-only: a close error changes nothing
	fi, err := f.Stat()
	if err != nil {
		return Version{}, err
	}
	if fi.IsDir() {
		return identifyDir(path)
	}
	b := make([]byte, prefixLen)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Version{}, err
	}
	v, _, err := identify(path, b[:n])
	return v, err
}

func identifyDir(path string) (Version, error) {
	return Version{}, &NotRecordingError{Path: path, Reason: "a directory"}
}

// identify checks a file's first bytes: what Identify and Open share.
func identify(path string, b []byte) (Version, int64, error) {
	if len(b) == 0 {
		return Version{}, 0, &NotRecordingError{Path: path, Reason: "empty file"}
	}
	v, n, err := parsePrefix(b)
	if err != nil {
		if cutInPrefix(b) {
			return Version{}, 0, &DamagedError{Path: path, Reason: "cut short inside its header"}
		}
		reason := "unknown format"
		if looksLikeText(b) {
			reason = "text; try gputop import"
		}
		return Version{}, 0, &NotRecordingError{Path: path, Reason: reason}
	}
	if v.Major > FormatVersion.Major {
		return v, 0, &VersionError{Path: path, Found: v}
	}
	if v.Major < FormatVersion.Major {
		return v, 0, &NotRecordingError{Path: path, Reason: "unknown format version " + v.String()}
	}
	return v, n, nil
}

// cutInPrefix says whether b, shorter than a header's prefix, is the
// start of one: a file cut off within its first few dozen bytes.
func cutInPrefix(b []byte) bool {
	if len(b) >= prefixLen {
		return false
	}
	var want []byte
	want = appendSkippable(want, frameHeader, nil)
	want = append(want, fileMagic...)
	for i := range b {
		if i >= 4 && i < skippableHeader {
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
	for _, c := range b {
		if (c < ' ' && c != '\n' && c != '\r' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
