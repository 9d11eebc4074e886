package probes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MarkDir is this user's directory of session marker sockets:
// $XDG_RUNTIME_DIR/gputop when that variable names a directory (systemd
// makes it per user, 0700, and empties it at logout), else
// <os.TempDir()>/gputop-<uid>. It is created 0700 when missing. It is
// refused, with the reason, when it exists but is not a directory of this
// user's that only they can enter: in a shared /tmp anyone could have
// made it first, to read other users' markers or feed them false ones.
func MarkDir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("gputop-%d", os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		// A variable left over from another login can name a directory
		// that is gone; every gputop of that environment then falls back
		// the same way, so sessions and `gputop mark` still meet.
		if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
			dir = filepath.Join(rt, "gputop")
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("marker socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("marker socket directory: %w", err)
	}
	if err := checkPrivateDir(dir, fi, os.Getuid()); err != nil {
		return "", err
	}
	return dir, nil
}

// checkPrivateDir says why dir (as fi, from Lstat) is not fit to hold uid's
// sockets, or nil when it is.
func checkPrivateDir(dir string, fi fs.FileInfo, uid int) error {
	const refusal = "refusing to use it for marker sockets"
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%v); %s", dir, fi.Mode().Type(), refusal)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d); %s", dir, st.Uid, uid, refusal)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %#o, open to other users; %s (chmod 700 %s fixes it)",
			dir, perm, refusal, dir)
	}
	return nil
}
