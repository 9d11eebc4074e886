package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/timeline/units"
)

func cmdMark(e *env) *cobra.Command {
	c := newCommand("mark TEXT", "drop a marker into this user's running gputop sessions", "gputop mark 'eval start'")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		text := strings.TrimSpace(strings.Join(rest, " "))
		if text == "" {
			return usageError{"give the marker's text, e.g. gputop mark 'eval start'"}
		}
		dir, err := marks.SessionDir()
		if err != nil {
			return err
		}
		n, err := marks.Send(dir, text)
		if n == 0 {
			return err
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "gputop mark: %s\n", oneLine(err))
		}
		fmt.Fprintf(e.stdout, "marked %q in %s\n", text, units.Count(n, "session"))
		return nil
	}
	return c
}
