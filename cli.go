package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/packaging/clidoc"
)

// gputop's commands are cobra commands (spf13/cobra, as gh, kubectl and
// helm): each cmd_*.go defines one with its flags, so the help, the man
// page and the completions all read the same definitions (clidoc writes
// them, to 80 columns). cobra parses; gputop keeps its own words: run picks
// the command (the live view when none is named), says a mistake in one
// line (flags.go) and picks the exit code.

func init() {
	// The usage lists the commands in the order they are added, the
	// order a new user meets them, not alphabetically.
	cobra.EnableCommandSorting = false
}

// newRoot is gputop with every command, bound to e: a fresh tree for each
// run, so that tests run commands side by side.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{Use: "gputop", Short: "a terminal GPU profiler", SilenceErrors: true, SilenceUsage: true}
	// gen-docs writes the completion scripts; no completion command.
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(cmdLive(e), cmdSnapshot(e), cmdRecord(e), cmdReplay(e), cmdRun(e), cmdMark(e), cmdReport(e),
		cmdDiff(e), cmdExport(e), cmdImport(e), cmdServe(e), cmdAttach(e), cmdStream(e), cmdVersion(e),
		// Hidden: tools for checking gputop itself (docs/real-gpu.md) and
		// for the release, not for its users.
		cmdNVMLBench(e), cmdGenDocs(e))
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if c == root {
			printUsage(e.stdout, root)
		} else {
			clidoc.Help(e.stdout, c, "live", optionalValues, messageWidth)
		}
	})
	return root
}

// newCommand is a command as its help describes it: use is its name and
// synopsis, short what it does in one line, examples command lines a
// person can copy. The caller adds its flags and its RunE.
func newCommand(use, short string, examples ...string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Example: strings.Join(examples, "\n")}
}

// watches marks a command that samples beside a job for as long as it
// runs, where gputop's own cost counts (env.watching).
func watches(c *cobra.Command) *cobra.Command {
	c.Annotations = map[string]string{"watches": "yes"}
	return c
}

func run(args []string, e *env) int {
	stdout, stderr := e.stdout, e.stderr
	root := newRoot(e)
	name, rest := "live", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	switch {
	case len(args) > 0 && (args[0] == "--help" || args[0] == "-h"), name == "help" && len(rest) == 0:
		printUsage(stdout, root)
		return exitOK
	case name == "help" && len(rest) == 1:
		// gputop help CMD is gputop CMD --help.
		name, rest = rest[0], []string{"--help"}
	case name == "help":
		fmt.Fprintln(stderr, "gputop help: give one command, e.g. gputop help record")
		return exitUsage
	case len(args) > 0 && args[0] == "--version":
		name, rest = "version", args[1:]
	}
	if name == cobra.ShellCompRequestCmd || name == cobra.ShellCompNoDescRequestCmd {
		return complete(root, name, rest)
	}
	var c *cobra.Command
	for _, sub := range root.Commands() {
		if sub.Name() == name && name != "help" {
			c = sub
		}
	}
	if c == nil {
		fmt.Fprintf(stderr, "gputop: unknown command %q (see gputop --help)\n", name)
		return exitUsage
	}
	// A command the person did not name (the live view) is just gputop.
	who := "gputop " + name
	if len(args) == 0 || args[0] != name {
		who = "gputop"
	}
	if c.Annotations["watches"] != "" && e.watching != nil {
		e.watching()
	}
	line := append([]string{name}, rest...)
	if leaf, _, err := root.Find(line); err == nil {
		line = append([]string{name}, commandLine(leaf.Flags(), rest)...)
	}
	root.SetArgs(line)
	err := root.Execute()
	var code exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, withHelpHint(who+": "+oneLine(err), name))
		return exitUsage
	default:
		fmt.Fprintln(stderr, who+": "+oneLine(err))
		return exitError
	}
}

// complete answers the completion scripts (PROGRAM __complete WORDS...),
// where the words after gputop may start with a flag of the live view.
func complete(root *cobra.Command, request string, words []string) int {
	if err := clidoc.Complete(root, flagChoices, optionalValues); err != nil {
		fmt.Fprintf(root.ErrOrStderr(), "gputop: %v\n", err)
		return exitError
	}
	if len(words) > 0 && strings.HasPrefix(words[0], "-") {
		words = append([]string{"live"}, words...)
	}
	root.SetArgs(append([]string{request}, words...))
	if err := root.Execute(); err != nil {
		return exitError
	}
	return exitOK
}

func printUsage(w io.Writer, root *cobra.Command) {
	fmt.Fprintf(w, "gputop %s: a terminal GPU profiler\n\nUsage:\n", version)
	clidoc.Overview(w, root, messageWidth)
	fmt.Fprintf(w, "\nWithout a GPU, --demo runs the real NVML probe against a simulated 8x H100 node.\n"+
		"%s\n'gputop COMMAND --help' shows a command's flags and examples.\n",
		strings.Join(clidoc.Wrap("Scenarios: "+scenarioNames+".", messageWidth), "\n  "))
}
