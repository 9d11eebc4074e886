package recordings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// tooManyHosts is a header no recording holds: writing it fails after the
// file was opened, where a failure once removed the path.
func tooManyHosts() Header {
	h := header(time.Second)
	for i := range timeline.MaxHosts + 1 {
		h.Info.Hosts = append(h.Info.Hosts, timeline.HostInfo{Name: strings.Repeat("h", 4) + string(rune('a'+i%26)) + string(rune('a'+i/26%26))})
	}
	return h
}

// --force never removes what gputop did not create (issue 44): a file that
// was there keeps its place when the header cannot be written; a link is
// followed to its file and stays a link; a named pipe or a device is
// refused in one line, without blocking, and left as it was.
func TestCreateForceNeverRemovesWhatItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.gtr")
	if err := os.WriteFile(old, []byte("someone's data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(old, tooManyHosts(), true); err == nil {
		t.Fatal("a header of too many hosts was written")
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the file that was there is gone: %v", err)
	}
	// A file it made is removed when its header fails.
	made := filepath.Join(dir, "new.gtr")
	if _, err := Create(made, tooManyHosts(), false); err == nil {
		t.Fatal("a header of too many hosts was written")
	}
	if _, err := os.Lstat(made); !os.IsNotExist(err) {
		t.Errorf("the file it made is left behind: %v", err)
	}

	// A link is followed: its file gets the recording, the link stays.
	target := filepath.Join(dir, "target.gtr")
	if err := os.WriteFile(target, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.gtr")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	w, err := Create(link, header(time.Second), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v", err)
	}
	if _, err := Identify(target); err != nil {
		t.Errorf("the link's file is not the recording: %v", err)
	}
	if _, err := Create(link, tooManyHosts(), true); err == nil {
		t.Fatal("a header of too many hosts was written")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("a failed header removed the link: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("a failed header removed the link's file: %v", err)
	}

	// Special files: refused at once, in one line, left in place.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	devLink := filepath.Join(dir, "null.gtr")
	if err := os.Symlink(os.DevNull, devLink); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a named pipe, not a regular file", devLink: "a device, not a regular file", os.DevNull: "a device"} {
		_, err := Create(path, header(time.Second), true)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Create(%s, force): %v, want one line with %q", path, err, want)
		}
		if _, err := os.Lstat(path); err != nil {
			t.Errorf("%s is gone: %v", path, err)
		}
	}
}
