package marks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The runtime directory: where this user's sessions listen (marker
// sockets, and the recordings' <pid>.stream sockets of gputop attach and
// stream), and the one place gputop mark, attach and stream look. One rule
// picks it, for sessions and those looking alike, so they always meet and
// never reach another environment's sessions:
//
//   - $XDG_RUNTIME_DIR/gputop, when XDG_RUNTIME_DIR is set to a directory
//     that belongs to this user and that nobody else can write to (systemd
//     makes it per user, 0700, and empties it at logout);
//   - else <os.TempDir()>/gputop-<uid>, when os.TempDir() belongs to this
//     user or to root (/tmp).
//
// Nothing is ever made inside another user's directory: root with a
// user's XDG_RUNTIME_DIR (sudo -E) uses /tmp/gputop-0. The directory
// itself must be a directory of this user's, 0700 (it is made so when
// missing): in a shared /tmp anyone could make gputop-<uid> first, to read
// other users' markers or feed them false ones. When it is not, a session
// says why in one line and listens in a fresh private directory that only
// its own job (GPUTOP_MARK_SOCKET) knows; gputop mark and attach say why
// they cannot look.

// Dir is this user's runtime directory (see above), made 0700 when it is
// missing. warning is one line when XDG_RUNTIME_DIR is set but was passed
// over, saying why and what is used instead; err says why there is no
// usable directory.
func Dir() (dir, warning string, err error) {
	uid := os.Geteuid()
	dir, passedOver, err := ruleDir(uid, os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), os.Stat)
	if err != nil {
		return "", "", err
	}
	if passedOver != nil {
		warning = fmt.Sprintf("markers: %v; using %s", passedOver, dir)
	}
	return dir, warning, usableMarkDir(dir, uid)
}

// SessionDir is the directory where this user's sessions listen, by the
// same rule as Dir, for those that look for sessions (gputop mark,
// attach, stream); it makes nothing. err says why no session can be there.
func SessionDir() (string, error) {
	uid := os.Geteuid()
	dir, _, err := ruleDir(uid, os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), os.Stat)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return dir, nil // no session has listened here yet
	}
	if err != nil {
		return "", err
	}
	return dir, checkPrivateDir(dir, fi, uid)
}

// ruleDir applies the rule for uid, given XDG_RUNTIME_DIR's value, the
// temporary directory and a stat that follows links. passedOver says why
// XDG_RUNTIME_DIR, set, was not used.
func ruleDir(uid int, xdg, tmp string, stat func(string) (fs.FileInfo, error)) (dir string, passedOver, err error) {
	if xdg != "" {
		passedOver = runtimeDirUnfit(xdg, uid, stat)
		if passedOver == nil {
			return filepath.Join(xdg, "gputop"), nil, nil
		}
	}
	if err := tempDirUnfit(tmp, uid, stat); err != nil {
		if passedOver != nil {
			err = fmt.Errorf("%v, and %v", passedOver, err)
		}
		return "", nil, fmt.Errorf("markers: %w", err)
	}
	return filepath.Join(tmp, fmt.Sprintf("gputop-%d", uid)), passedOver, nil
}

// runtimeDirUnfit says why XDG_RUNTIME_DIR's value xdg cannot hold uid's
// directory, or nil when it can: an absolute path to a directory of uid's
// that no one else can write to.
func runtimeDirUnfit(xdg string, uid int, stat func(string) (fs.FileInfo, error)) error {
	if !filepath.IsAbs(xdg) {
		return fmt.Errorf("XDG_RUNTIME_DIR %q is not an absolute path", xdg)
	}
	fi, err := stat(xdg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A variable left over from another login: every gputop of that
		// environment passes it over alike, so sessions and mark still meet.
		return fmt.Errorf("XDG_RUNTIME_DIR %s does not exist", xdg)
	case err != nil:
		return fmt.Errorf("XDG_RUNTIME_DIR: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("XDG_RUNTIME_DIR %s is not a directory", xdg)
	}
	if owner, ok := ownerOf(fi); ok && owner != uid {
		return fmt.Errorf("XDG_RUNTIME_DIR %s belongs to uid %d, not to you (uid %d)", xdg, owner, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("XDG_RUNTIME_DIR %s has mode %#o: others can write to it", xdg, perm)
	}
	return nil
}

// tempDirUnfit says why tmp cannot hold uid's fallback directory, or nil
// when it can: a directory of uid's or root's.
func tempDirUnfit(tmp string, uid int, stat func(string) (fs.FileInfo, error)) error {
	fi, err := stat(tmp)
	switch {
	case err != nil:
		return fmt.Errorf("temporary directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("temporary directory %s is not a directory", tmp)
	}
	if owner, ok := ownerOf(fi); ok && owner != uid && owner != 0 {
		return fmt.Errorf("temporary directory %s belongs to uid %d, not to you (uid %d) or root; "+
			"set TMPDIR or XDG_RUNTIME_DIR to a directory of yours", tmp, owner, uid)
	}
	return nil
}

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// freshMarkDirPattern names the directories a session makes for itself
// when the runtime directory cannot be used.
func freshMarkDirPattern(uid int) string { return fmt.Sprintf("gputop-%d-*", uid) }

// usableMarkDir makes dir (0700) if it is missing, and says why it cannot
// hold uid's sockets, or nil when it can.
func usableMarkDir(dir string, uid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("markers: cannot make %s: %w", dir, errors.Unwrap(err))
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("markers: %w", err)
	}
	if err := checkPrivateDir(dir, fi, uid); err != nil {
		return fmt.Errorf("markers: %w", err)
	}
	return nil
}

// checkPrivateDir says why dir (as fi, from Lstat) is not fit to hold uid's
// sockets, or nil when it is.
func checkPrivateDir(dir string, fi fs.FileInfo, uid int) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%v)", dir, fi.Mode().Type())
	}
	if owner, ok := ownerOf(fi); ok && owner != uid {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d)", dir, owner, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %#o, open to other users (chmod 700 %s fixes it)", dir, perm, dir)
	}
	return nil
}

// Open opens this session's marker socket in Dir and calls deliver with
// each marker. warning is one line when XDG_RUNTIME_DIR was passed over,
// or when Dir could not be used: the socket then goes in a fresh private
// directory, which the listener's Close removes, and which only what is
// handed its path (gputop run's job) can reach.
func Open(deliver func(text string)) (l *Listener, warning string, err error) {
	dir, warning, dirErr := Dir()
	fresh := false
	if dirErr != nil {
		uid, tmp := os.Geteuid(), os.TempDir()
		if tempDirUnfit(tmp, uid, os.Stat) != nil {
			return nil, "", dirErr // says why already
		}
		if dir, err = os.MkdirTemp(tmp, freshMarkDirPattern(uid)); err != nil {
			return nil, "", fmt.Errorf("%v, and no private directory could be made: %w", dirErr, err)
		}
		fresh = true
		warning = fmt.Sprintf("%v; listening in %s, which gputop mark and attach do not look in", dirErr, dir)
	}
	if !fresh {
		sweepStale(dir) // the sockets of sessions that died (sweep.go)
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
