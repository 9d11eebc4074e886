package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/ui/config"
)

// settingsPath is the screen's settings file: $XDG_CONFIG_HOME/gputop/
// config.toml, else ~/.config/gputop/config.toml ("" without a home).
func settingsPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "gputop", "config.toml")
}

// screenSettings reads the settings file (docs/screen.md); none is no
// settings. A value it cannot take is one line and exit 2, before the
// screen starts.
func screenSettings() (config.Settings, error) {
	path := settingsPath(os.Getenv)
	if path == "" {
		return config.Settings{}, nil
	}
	data, err := readSettings(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return config.Settings{}, nil
	case err != nil:
		return config.Settings{}, fmt.Errorf("settings: %v", err)
	}
	set, err := config.Parse(data, path)
	if err != nil {
		return set, usageError{err.Error()}
	}
	return set, nil
}

// maxSettingsBytes bounds the settings file: the documented keys take a
// few hundred bytes.
const maxSettingsBytes = 64 << 10

// readSettings reads the settings file if it is a regular file of at most
// maxSettingsBytes. A link to /dev/zero was once read until memory ran
// out, and a named pipe held gputop before its screen, silent: both are
// refused in one line. It opens without blocking (a pipe with no writer
// blocks even the open) and checks the file it opened.
func readSettings(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s", path, recordings.NotRegular(fi))
	}
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only: a close error changes nothing
	if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s", path, recordings.NotRegular(fi))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err == nil && len(data) > maxSettingsBytes {
		return nil, fmt.Errorf("%s is over %d KiB: not a file of settings", path, maxSettingsBytes>>10)
	}
	return data, err
}

// intervalOf takes the settings file's interval where --interval was not
// given: the command line wins.
func intervalOf(fs *pflag.FlagSet, interval *time.Duration, set config.Settings) {
	if !fs.Changed("interval") && set.Interval > 0 {
		*interval = set.Interval
	}
}
