package clidoc

import (
	"bytes"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The shell completions are cobra's: its bash, zsh and fish scripts ask
// the program itself what to offer (PROGRAM __complete WORDS...), so they
// always know the commands and flags of the binary installed. Complete
// tells cobra what the man page tells a reader: each flag's choices
// (--format csv|jsonl, --demo's scenarios), files where a flag or the
// command takes a file, and nothing where a value is to be typed.

// Complete registers on root's commands what a shell offers for their
// flags' values and their arguments, read from the same synopses and flags
// as the man page.
func Complete(root *cobra.Command, choices map[string][]string, optional map[string]string) error {
	p := Page{Program: root.Name(), Commands: Commands(root), Choices: choices}
	cmds, err := p.expand(optional)
	if err != nil {
		return err
	}
	for _, d := range cmds {
		c, _, err := root.Find(strings.Fields(d.name))
		if err != nil {
			return err
		}
		directive := cobra.ShellCompDirectiveNoFileComp
		if positionalFiles(d.args) {
			directive = cobra.ShellCompDirectiveDefault // the shell's own: files
		}
		c.ValidArgsFunction = cobra.FixedCompletions(nil, directive)
		for _, f := range d.flags {
			switch {
			case len(f.Values) > 0:
				err = c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(f.Values, cobra.ShellCompDirectiveNoFileComp))
			case f.Arg != "" && !f.File:
				err = c.RegisterFlagCompletionFunc(f.Name, cobra.NoFileCompletions)
			}
			if err != nil {
				return err
			}
		}
		// The menus show a flag's usage as the help does: FILE, not `FILE`.
		c.Flags().VisitAll(func(f *pflag.Flag) { _, f.Usage = pflag.UnquoteUsage(f) })
	}
	return nil
}

// scripts are cobra's completion scripts for root, by the file name each
// shell looks for (Files).
func scripts(root *cobra.Command) (map[string]string, error) {
	_, bash, zsh, fish := Files(root.Name())
	var b, z, f bytes.Buffer
	if err := root.GenBashCompletionV2(&b, true); err != nil {
		return nil, err
	}
	if err := root.GenZshCompletion(&z); err != nil {
		return nil, err
	}
	if err := root.GenFishCompletion(&f, true); err != nil {
		return nil, err
	}
	return map[string]string{bash: b.String(), zsh: z.String(), fish: f.String()}, nil
}
