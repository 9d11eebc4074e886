package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/ui"
)

// gputop attach shows a recording that a record, run, serve -o or live
// view of this user is writing on this host, through the socket it
// listens on (recordings/share.go): the whole history, then live. The
// viewer is a client: quitting it leaves the recording alone, and m marks
// the recording.

func cmdAttach(e *env) *cobra.Command {
	c := newCommand("attach [--list] [SESSION]",
		"the live view of a recording this user is writing on this host, its whole history; q leaves it running",
		"gputop attach", "gputop attach --list")
	fs := c.Flags()
	list := fs.Bool("list", false, "list this user's running sessions on this host, newest first, and exit")
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) > 1 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[1])}
		}
		if *list {
			if len(rest) > 0 {
				return usageError{"--list takes no SESSION"}
			}
			return listSessions(e.stdout)
		}
		id := ""
		if len(rest) == 1 {
			id = rest[0]
		}
		s, several, err := pickSession(id)
		if err != nil {
			return err
		}
		settings, closeLog, err := openScreen(*logPath)
		if err != nil {
			return err
		}
		defer closeLog()
		if several {
			fmt.Fprintf(e.stderr, "gputop attach: %s, the newest; gputop attach --list shows the others\n", s.describe())
		}
		src, err := s.Attach()
		if err != nil {
			return err
		}
		defer src.Close()
		ctx, stopSignals := endOnSignal(e)
		defer stopSignals()
		// A view attached to a session left running is a live one: its
		// history within the default budget.
		return runUI(ctx, src, ui.Options{ASCII: *ascii, Notice: "attached to " + s.describe() + "; q leaves it running",
			Settings: settings, Store: newLiveStore(defaultHistoryBudget(), nil)})
	}
	return watches(c)
}

// listSessions prints the running sessions, newest first.
func listSessions(w io.Writer) error {
	all, err := findSessions()
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return errNoSession
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tCOMMAND")
	for _, s := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID, s.Started.Format("2006-01-02 15:04:05"), s.CommandLine())
	}
	return tw.Flush()
}
