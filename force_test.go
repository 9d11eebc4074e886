package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gputop-dev/gputop/recordings"
)

// --force replaces a regular file's content, follows a link to one, and
// refuses device nodes, pipes, sockets and links to nothing in one line,
// leaving them as they were (issue 44: `record -o /dev/full --force` as
// root deleted /dev/full).
func TestForceOverwritesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.gtr")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	devLink := filepath.Join(dir, "null.gtr")
	if err := os.Symlink(os.DevNull, devLink); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.gtr")
	if err := os.Symlink(filepath.Join(dir, "nothing.gtr"), dangling); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join("recordings", "importer", "testdata", "unlucky", "hand-made-logger.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--demo", "--fast", "--duration", "5s", "-o", os.DevNull, "--force"}, "gputop record: " + os.DevNull + " is a device, not a regular file; --force overwrites only those"},
		{[]string{"record", "--demo", "--fast", "--duration", "5s", "-o", devLink, "--force"}, " is a device, not a regular file; --force overwrites only those"},
		{[]string{"record", "--demo", "--fast", "--duration", "5s", "-o", fifo, "--force"}, " is a named pipe, not a regular file; --force overwrites only those"},
		{[]string{"import", csv, "-o", fifo, "--force"}, " is a named pipe, not a regular file; --force overwrites only those"},
		{[]string{"record", "--demo", "--fast", "--duration", "5s", "-o", dangling, "--force"}, " is a link to a file that does not exist; give the file's own path"},
	} {
		code, _, errOut := gputop(c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d\n%s\nwant one line with %q", c.args, code, errOut, c.want)
		}
	}
	for _, p := range []string{fifo, devLink, dangling, os.DevNull} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}

	// A link to a regular file: the import goes to its file, the link
	// stays a link.
	target := filepath.Join(dir, "target.gtr")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.gtr")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := gputop("import", csv, "-o", link, "--force"); code != 0 {
		t.Fatalf("import -o LINK --force: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if _, err := recordings.Identify(target); err != nil {
		t.Errorf("the link's file is not the recording: %v", err)
	}
}
