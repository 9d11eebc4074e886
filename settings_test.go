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
			path := settingsFile(t)
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

// What an error quotes from outside, a settings file's line or a path given
// on the command line, reaches the terminal without its escape sequences:
// one line that cannot retitle the window or colour what follows.
func TestErrorsQuoteOutsideTextCleanly(t *testing.T) {
	path := settingsFile(t)
	for _, c := range []struct {
		name, settings string
		args           []string
		code           int
		want           string
	}{
		{"a table line", "[\x1b]0;pwned\x07\x1b[31mred\n", []string{"--demo"}, 2, ":1: [red: gputop's settings have no tables"},
		{"a boolean", "ascii = \x1b[2Jyes\n", []string{"--demo"}, 2, ":1: ascii = yes: write true or false"},
		{"a recording's path", "", []string{"replay", "\x1b[31mgone\x1b[0m.gtr"}, 1, "gputop replay: gone.gtr: no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(c.settings), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := gputop(c.args...)
			if code != c.code || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) ||
				strings.ContainsAny(errOut, "\x1b\x07") {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q, no escape", code, errOut, c.code, c.want)
			}
		})
	}
}

// settingsFile points this test's settings at a config.toml of its own, not
// yet written, and gives its path.
func settingsFile(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "gputop"), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "gputop", "config.toml")
}
