package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
	"github.com/gputop-dev/gputop/ui/config"
	"github.com/gputop-dev/gputop/ui/screen"
	"github.com/muesli/termenv"
)

// runUI runs the screen until the user quits or ctx ends (a signal).
func runUI(ctx context.Context, src timeline.Source, opts ui.Options) error {
	r := lipgloss.NewRenderer(os.Stdout)
	opts.Plain = os.Getenv("NO_COLOR") != "" || opts.Settings.Colors == "never"
	opts.ASCII = opts.ASCII || opts.Settings.ASCII || asciiOnly(os.Getenv)
	if opts.Plain {
		r.SetColorProfile(termenv.Ascii)
	}
	opts.Source, opts.Renderer = src, r
	// The screen's history grows for the first hours (an hour of 8 GPUs'
	// 580 series at full resolution is about 8 MB, their buckets 5 MB) and
	// holds no pointers the collector must follow: collect at a quarter
	// more than is live, not twice it (a replay asks for less still).
	if was := debug.SetGCPercent(25); was < 25 {
		debug.SetGCPercent(was)
	}
	model := ui.New(opts)
	defer model.Close()
	// At most five frames a second: a sample a second moves the screen
	// once, and a key is drawn at once anyway.
	err := screen.Run(ctx, model, 200*time.Millisecond, !opts.Settings.NoMouse)
	if errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	return err
}

// openScreen is what a screen of a file or a session needs before it
// starts, in the order its mistakes are said: the settings file read, a
// terminal there, and the log sent to logPath (closeLog undoes it).
func openScreen(logPath string) (settings config.Settings, closeLog func(), err error) {
	if settings, err = screenSettings(); err != nil {
		return settings, nil, err
	}
	if err = checkTerminal(); err != nil {
		return settings, nil, err
	}
	closeLog, err = openLog(logPath)
	return settings, closeLog, err
}

// checkTerminal refuses to start the screen where there is no terminal.
// A terminal too small is not refused: the screen says so and waits to be
// enlarged (or q), as htop does (ui/layout.MinSize).
func checkTerminal() error {
	fd := os.Stdout.Fd()
	if !term.IsTerminal(fd) {
		return errors.New("the live view needs a terminal; for a reading use 'gputop snapshot'")
	}
	if _, _, err := term.GetSize(fd); err != nil {
		return fmt.Errorf("cannot read the terminal's size: %v", err)
	}
	return nil
}

func defaultLogPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state")
		} else {
			dir = os.TempDir()
		}
	}
	return filepath.Join(dir, "gputop", "gputop.log")
}

// openLog sends the log to a file, so nothing is ever written to the
// terminal under the screen.
func openLog(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log: %v", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %v", err)
	}
	log.SetOutput(f)
	return func() {
		log.SetOutput(io.Discard)
		f.Close()
	}, nil
}
