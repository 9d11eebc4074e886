package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/packaging/clidoc"
)

// cmdGenDocs is the hidden `gputop gen-docs DIR`: the man page and the
// bash, zsh and fish completions the release packages install. The
// completions are cobra's scripts, which ask the installed gputop what to
// offer (cli.go, complete). The man page is clidoc's, from the same
// command definitions: one page holding every command, so `man gputop`
// shows them all, where cobra/doc would write a page per command through
// go-md2man, a dependency more.
func cmdGenDocs(e *env) *cobra.Command {
	c := newCommand("gen-docs [--version V] [--date TIME] DIR",
		"write the man page and the bash, zsh and fish completions into DIR, for the release packages",
		"gputop gen-docs --version 1.2.0 dist/docs")
	c.Hidden = true
	fs := c.Flags()
	ver := fs.String("version", version, "the `VERSION` the man page names")
	date := fs.String("date", "", "the man page's date, a `TIME` in RFC 3339 (the release's commit date, so a rebuild is the same bytes)")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) != 1 {
			return usageError{"give the one DIR to write into"}
		}
		page := clidoc.Page{Program: "gputop", Summary: "a terminal GPU profiler", Version: *ver, Default: "live",
			Description: "gputop samples every NVIDIA GPU (through NVML) and the host, keeps the history, shows it live " +
				"or replays it, and names what holds the GPUs back, with the evidence in numbers and a next step. " +
				"Without a command it is the live view. Without a GPU, --demo runs the real NVML probe against a " +
				"simulated 8x H100 node; its scenarios are " + scenarioNames + ".",
			Choices: flagChoices,
			Exits: [][2]string{{strconv.Itoa(exitOK), "done"},
				{strconv.Itoa(exitError), "a failure at run time: a missing or damaged file, a file that is not a recording, a newer format, a path that cannot be written"},
				{strconv.Itoa(exitUsage), "a usage error: an unknown command or flag, a malformed value, the wrong arguments"},
				{strconv.Itoa(exitCheck), "a check for CI failed: report or run --fail-on found a hint of that severity, diff --fail-if a condition that holds"},
				{"the job's", "gputop run exits with its job's code (128 + the signal that killed it; 127 and 126 where it could not be started)"}},
			Env: [][2]string{{"NO_COLOR", "when set, the screen has no colour"},
				{"GOMAXPROCS", "the commands that run beside a job run Go on one processor unless this is set"}},
		}
		if *date != "" {
			t, err := time.Parse(time.RFC3339, *date)
			if err != nil {
				return usageError{fmt.Sprintf("--date %q is not a time in RFC 3339", *date)}
			}
			page.Date = t.UTC().Format(time.DateOnly)
		}
		page.Commands = clidoc.Commands(c.Root())
		if err := clidoc.Write(rest[0], page, c.Root(), optionalValues); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "gen-docs: wrote the man page and completions to %s\n", rest[0])
		return nil
	}
	return c
}
