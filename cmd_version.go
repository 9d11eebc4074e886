package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/packaging/buildinfo"
)

func cmdVersion(e *env) *cobra.Command {
	c := newCommand("version", "print the version", "gputop version")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		}
		fmt.Fprintf(e.stdout, "gputop %s\n", buildinfo.Line(version, commit))
		return nil
	}
	return c
}
