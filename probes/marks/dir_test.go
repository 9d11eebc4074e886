package marks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeDir is what a stat of the rule's fake file system says.
type fakeDir struct {
	uid  int
	mode fs.FileMode // with fs.ModeDir for a directory
}

func (d fakeDir) Name() string       { return "" }
func (d fakeDir) Size() int64        { return 0 }
func (d fakeDir) Mode() fs.FileMode  { return d.mode }
func (d fakeDir) ModTime() time.Time { return time.Time{} }
func (d fakeDir) IsDir() bool        { return d.mode.IsDir() }
func (d fakeDir) Sys() any           { return &syscall.Stat_t{Uid: uint32(d.uid)} }

// The one rule, for sessions and gputop mark alike.
func TestRuntimeDirRule(t *testing.T) {
	const me, alice = 1000, 1001
	tmp := fakeDir{0, fs.ModeDir | fs.ModeSticky | 0o777} // /tmp: root's, sticky
	tests := []struct {
		name     string
		uid      int
		xdg      string
		fs       map[string]fakeDir
		want     string // the directory, or "" for none
		passed   string // in why XDG_RUNTIME_DIR was passed over; "" for not
		whyNone  string // in the error, when there is no directory
		notUnder string // a tree nothing may be made in
	}{
		{name: "set and owned", uid: me, xdg: "/run/user/1000",
			fs: map[string]fakeDir{"/run/user/1000": {me, fs.ModeDir | 0o700}, "/tmp": tmp}, want: "/run/user/1000/gputop"},
		{name: "set, owned, readable by others", uid: me, xdg: "/home/me/run",
			fs: map[string]fakeDir{"/home/me/run": {me, fs.ModeDir | 0o755}, "/tmp": tmp}, want: "/home/me/run/gputop"},
		{name: "set and someone else's", uid: me, xdg: "/run/user/1001",
			fs: map[string]fakeDir{"/run/user/1001": {alice, fs.ModeDir | 0o700}, "/tmp": tmp}, want: "/tmp/gputop-1000",
			passed: "belongs to uid 1001, not to you (uid 1000)", notUnder: "/run/user/1001"},
		{name: "set and open to others", uid: me, xdg: "/srv/shared",
			fs: map[string]fakeDir{"/srv/shared": {me, fs.ModeDir | 0o777}, "/tmp": tmp}, want: "/tmp/gputop-1000",
			passed: "has mode 0777: others can write to it", notUnder: "/srv/shared"},
		{name: "set and group-writable", uid: me, xdg: "/srv/team",
			fs: map[string]fakeDir{"/srv/team": {me, fs.ModeDir | 0o770}, "/tmp": tmp}, want: "/tmp/gputop-1000",
			passed: "has mode 0770"},
		{name: "set to a directory that is gone", uid: me, xdg: "/run/user/1000",
			fs: map[string]fakeDir{"/tmp": tmp}, want: "/tmp/gputop-1000", passed: "does not exist"},
		{name: "set to a file", uid: me, xdg: "/run/user/1000",
			fs: map[string]fakeDir{"/run/user/1000": {me, 0o600}, "/tmp": tmp}, want: "/tmp/gputop-1000", passed: "is not a directory"},
		{name: "set to a relative path", uid: me, xdg: "run",
			fs: map[string]fakeDir{"/tmp": tmp}, want: "/tmp/gputop-1000", passed: "is not an absolute path"},
		{name: "unset", uid: me,
			fs: map[string]fakeDir{"/tmp": tmp}, want: "/tmp/gputop-1000"},
		{name: "root with a user's runtime directory (sudo -E)", uid: 0, xdg: "/run/user/1000",
			fs: map[string]fakeDir{"/run/user/1000": {me, fs.ModeDir | 0o700}, "/tmp": tmp}, want: "/tmp/gputop-0",
			passed: "belongs to uid 1000, not to you (uid 0)", notUnder: "/run/user/1000"},
		{name: "root with a user's runtime and temporary directories", uid: 0, xdg: "/run/user/1000",
			fs:      map[string]fakeDir{"/run/user/1000": {me, fs.ModeDir | 0o700}, "/tmp": {me, fs.ModeDir | 0o700}},
			whyNone: "temporary directory /tmp belongs to uid 1000, not to you (uid 0) or root", notUnder: "/"},
		{name: "a temporary directory of one's own", uid: me,
			fs: map[string]fakeDir{"/tmp": {me, fs.ModeDir | 0o700}}, want: "/tmp/gputop-1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stat := func(p string) (fs.FileInfo, error) {
				if d, ok := tt.fs[p]; ok {
					return d, nil
				}
				return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
			}
			dir, passed, err := ruleDir(tt.uid, tt.xdg, "/tmp", stat)
			if dir != tt.want {
				t.Errorf("directory %q, want %q", dir, tt.want)
			}
			switch {
			case tt.whyNone != "" && (err == nil || !strings.Contains(err.Error(), tt.whyNone)):
				t.Errorf("error %v, want one saying %q", err, tt.whyNone)
			case tt.whyNone == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.passed == "" && passed != nil:
				t.Errorf("passed XDG_RUNTIME_DIR over: %v", passed)
			case tt.passed != "" && (passed == nil || !strings.Contains(passed.Error(), tt.passed)):
				t.Errorf("passed over because %v, want %q", passed, tt.passed)
			}
			if tt.notUnder != "" && dir != "" && strings.HasPrefix(dir, tt.notUnder+"/") {
				t.Errorf("%s is inside %s, another user's", dir, tt.notUnder)
			}
		})
	}
}

// isolate gives the test a runtime directory and a temporary directory of
// its own, and returns the runtime one.
func isolate(t *testing.T) (runtime, tmp string) {
	t.Helper()
	runtime, tmp = t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("TMPDIR", tmp)
	return runtime, tmp
}

func TestDirIsMadePrivateInTheRuntimeDir(t *testing.T) {
	runtime, _ := isolate(t)
	dir, warning, err := Dir()
	if want := filepath.Join(runtime, "gputop"); err != nil || warning != "" || dir != want {
		t.Fatalf("Dir() = %s, %q, %v; want %s", dir, warning, err, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, %v; want mode 0700", dir, fi, err)
	}
	if again, _, err := Dir(); err != nil || again != dir {
		t.Errorf("second Dir() = %s, %v; want the same directory again", again, err)
	}
	if found, err := SessionDir(); err != nil || found != dir {
		t.Errorf("SessionDir() = %s, %v; want %s", found, err, dir)
	}
}

// The bug: a session started without XDG_RUNTIME_DIR (a cron job, an ssh
// command) listened in the /tmp fallback, and gputop mark in a login shell
// with XDG_RUNTIME_DIR still reached it; now each environment reaches its
// own sessions only.
func TestMarkReachesOnlyTheSessionsOfItsOwnRuntimeDir(t *testing.T) {
	runtimeA, _ := isolate(t)
	runtimeB := t.TempDir()
	for _, sessionEnv := range []string{runtimeB, ""} { // another runtime directory; none (the fallback)
		t.Setenv("XDG_RUNTIME_DIR", sessionEnv)
		var log markLog
		l, warning, err := Open(log.deliver)
		if err != nil || warning != "" {
			t.Fatalf("session with XDG_RUNTIME_DIR=%q: %q, %v", sessionEnv, warning, err)
		}
		t.Setenv("XDG_RUNTIME_DIR", runtimeA)
		dir, err := SessionDir()
		if err != nil {
			t.Fatal(err)
		}
		if n, err := Send(dir, "from A"); n != 0 || !errors.Is(err, ErrNoSession) {
			t.Errorf("mark in %s reached the session in %s: %d, %v", runtimeA, filepath.Dir(l.Path()), n, err)
		}
		t.Setenv("XDG_RUNTIME_DIR", sessionEnv)
		if dir, err = SessionDir(); err != nil {
			t.Fatal(err)
		}
		if n, err := Send(dir, "from its own"); n != 1 || err != nil {
			t.Errorf("mark in the session's own environment: %d, %v", n, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if got := log.got(); !slices.Equal(got, []string{"from its own"}) {
			t.Errorf("the session got %q", got)
		}
	}
}

// A runtime directory that is not private is not used: the session says
// why and listens in a fresh directory of its own (its job still reaches
// it), removed when it closes; gputop mark says why it cannot look.
func TestUnusableRuntimeDirIsSaidAndPassedOver(t *testing.T) {
	runtime, tmp := isolate(t)
	open := filepath.Join(runtime, "gputop")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	var log markLog
	l, warning, err := Open(log.deliver)
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Dir(l.Path())
	if filepath.Dir(fresh) != tmp || fresh == open {
		t.Errorf("listening in %s; want a fresh directory in %s", fresh, tmp)
	}
	for _, want := range []string{open, "0755", "chmod 700", "listening in " + fresh, "gputop mark"} {
		if !strings.Contains(warning, want) || strings.Contains(warning, "\n") {
			t.Errorf("warning %q lacks %q, or is more than a line", warning, want)
		}
	}
	if _, err := SessionDir(); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("SessionDir: %v; want why the directory cannot be used", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the fresh directory %s is still there after Close: %v", fresh, err)
	}
}

// Root with a user's XDG_RUNTIME_DIR (sudo -E) makes nothing inside it.
func TestRootMakesNothingInAUsersRuntimeDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a directory to another user")
	}
	user, tmp := isolate(t)
	if err := os.Chown(user, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	dir, warning, err := Dir()
	if want := filepath.Join(tmp, "gputop-0"); err != nil || dir != want {
		t.Fatalf("Dir() = %s, %v; want %s", dir, err, want)
	}
	if !strings.Contains(warning, "belongs to uid 4242") {
		t.Errorf("warning %q", warning)
	}
	if entries, err := os.ReadDir(user); err != nil || len(entries) != 0 {
		t.Errorf("made in the user's directory: %v, %v", entries, err)
	}
}

func TestCheckPrivateDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode, dir bool) os.FileInfo {
		p := filepath.Join(base, name)
		var err error
		if dir {
			err = os.Mkdir(p, mode)
		} else {
			err = os.WriteFile(p, nil, mode)
		}
		if err == nil {
			err = os.Chmod(p, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	private, open, file := mk("private", 0o700, true), mk("open", 0o777, true), mk("file", 0o600, false)
	uid := os.Getuid()
	tests := []struct {
		name string
		fi   os.FileInfo
		uid  int
		want string // in the error; "" for none
	}{
		{"ours and 0700", private, uid, ""},
		{"someone else's", private, uid + 1, fmt.Sprintf("belongs to uid %d, not to you (uid %d)", uid, uid+1)},
		{"world-writable", open, uid, "has mode 0777"},
		{"not a directory", file, uid, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPrivateDir("/the/dir", tt.fi, tt.uid)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
