package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The settings file is a regular file of at most 64 KiB, or one line of
// error and exit 1 before any screen (issue 44: a link to /dev/zero was
// read until memory ran out; a named pipe hung gputop, silent).
func TestSettingsFileBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, " is a device, not a regular file"},
		{"a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }, " is a named pipe, not a regular file"},
		{"a huge file", func(p string) error { return os.WriteFile(p, []byte("# "+strings.Repeat("x", 70<<10)+"\n"), 0o600) }, " is over 64 KiB: not a file of settings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			if err := os.MkdirAll(filepath.Join(dir, "gputop"), 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "gputop", "config.toml")
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := gputop("--demo")
			want := "gputop: settings: " + path + c.want + "\n"
			if code != 1 || errOut != want {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
			}
		})
	}
}
