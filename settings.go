package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

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
	data, err := os.ReadFile(path)
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

// intervalOf takes the settings file's interval where --interval was not
// given: the command line wins.
func intervalOf(fs *flag.FlagSet, interval *time.Duration, set config.Settings) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "interval" })
	if !given && set.Interval > 0 {
		*interval = set.Interval
	}
}
