package importer

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile opens a file to import, and refuses at once anything but a
// regular file: a named pipe without a writer would block the open
// forever, and a device or a socket never ends. It opens without waiting
// (O_NONBLOCK, which a regular file ignores) and then asks what it opened,
// so a file swapped for a pipe between a check and the open is refused
// too. Errors are one line naming the path (*fs.PathError).
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		// A PathError, as a missing file's: "log.csv: a named pipe, ...".
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s, not a regular file: gputop imports saved files", fileKind(st.Mode()))}
	}
	return f, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
