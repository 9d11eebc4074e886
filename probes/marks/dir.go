package marks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Marker sockets live in a directory of this user's that only they can
// enter: in a shared /tmp anyone could make a directory first, to read
// other users' markers or feed them false ones. The usual one is
// $XDG_RUNTIME_DIR/gputop when that variable names a directory (systemd
// makes it per user, 0700, and empties it at logout), else
// <os.TempDir()>/gputop-<uid>. When that is taken (someone else's, not a
// directory, open to others) a session uses a private fallback and says so
// in one line, and `gputop mark` looks in the fallbacks too.

// Dir picks the directory this session's marker socket goes in: the
// first usual one (markDirCandidates) that is private, created 0700 when
// missing, else a fresh 0700 directory <os.TempDir()>/gputop-<uid>-*.
// warning is one line when a usual one was passed over, saying why and
// where the socket goes instead; fresh says the directory was made for
// this session, to be removed when it ends.
func Dir() (dir, warning string, fresh bool, err error) {
	return pickMarkDir(markDirCandidates(), os.Getuid())
}

// markDirCandidates are the usual directories, best first.
func markDirCandidates() []string {
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("gputop-%d", os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		// A variable left over from another login can name a directory
		// that is gone; every gputop of that environment then falls back
		// the same way, so sessions and `gputop mark` still meet.
		if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
			return []string{filepath.Join(rt, "gputop"), tmp}
		}
	}
	return []string{tmp}
}

// freshMarkDirPattern names the fallback directories of uid.
func freshMarkDirPattern(uid int) string { return fmt.Sprintf("gputop-%d-*", uid) }

func pickMarkDir(candidates []string, uid int) (dir, warning string, fresh bool, err error) {
	var passed error
	for _, c := range candidates {
		err := usableMarkDir(c, uid)
		if err == nil {
			if passed != nil {
				warning = fmt.Sprintf("markers: %v; using %s instead", passed, c)
			}
			return c, warning, false, nil
		}
		if passed == nil {
			passed = err
		}
	}
	dir, err = os.MkdirTemp(os.TempDir(), freshMarkDirPattern(uid))
	if err != nil {
		return "", "", false, fmt.Errorf("markers: %v, and no private directory could be made: %w", passed, err)
	}
	return dir, fmt.Sprintf("markers: %v; using %s instead", passed, dir), true, nil
}

// usableMarkDir makes dir (0700) if it is missing, and says why it cannot
// hold uid's sockets, or nil when it can.
func usableMarkDir(dir string, uid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot make %s: %w", dir, errors.Unwrap(err))
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return checkPrivateDir(dir, fi, uid)
}

// checkPrivateDir says why dir (as fi, from Lstat) is not fit to hold uid's
// sockets, or nil when it is.
func checkPrivateDir(dir string, fi fs.FileInfo, uid int) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%v)", dir, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d)", dir, st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %#o, open to other users (chmod 700 %s fixes it)", dir, perm, dir)
	}
	return nil
}

// Dirs lists every directory where this user's sessions may listen:
// the usual ones that are private, and the fallbacks sessions made.
func Dirs() []string {
	uid := os.Getuid()
	var dirs []string
	for _, c := range markDirCandidates() {
		if fi, err := os.Lstat(c); err == nil && checkPrivateDir(c, fi, uid) == nil {
			dirs = append(dirs, c)
		}
	}
	fresh, _ := filepath.Glob(filepath.Join(os.TempDir(), freshMarkDirPattern(uid)))
	for _, d := range fresh {
		if fi, err := os.Lstat(d); err == nil && checkPrivateDir(d, fi, uid) == nil {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Open opens this session's marker socket (Dir, Listen) and
// calls deliver with each marker. warning is Dir's. The listener's
// Close also removes a fallback directory made for this session.
func Open(deliver func(text string)) (l *Listener, warning string, err error) {
	dir, warning, fresh, err := Dir()
	if err != nil {
		return nil, "", err
	}
	l, err = Listen(dir, deliver)
	if err != nil {
		if fresh {
			os.Remove(dir) // empty: the socket was never made
		}
		return nil, warning, err
	}
	if fresh {
		l.removeDir = dir
	}
	return l, warning, nil
}
