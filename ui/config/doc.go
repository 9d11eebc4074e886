// Package config reads the settings file (~/.config/gputop/config.toml):
// Settings, what a person sets once for every screen, and Parse, the small
// part of TOML it needs, whose every error names the file and the line.
//
// main applies the interval, the colours and --ascii, and hands the rest to
// the screen (ui.Options.Settings). It imports the standard library and
// timeline's metric names only.
package config
