package clidoc

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The --help a command answers and the overview of every command, written
// from the cobra commands as the man page is, to a width (80 columns).

// Shown are the commands of root a user sees: not the hidden ones, nor
// cobra's own help command.
func Shown(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if !c.Hidden && c.Name() != "help" {
			out = append(out, c)
		}
	}
	return out
}

// Synopsis is what a command's synopsis says after its name.
func Synopsis(c *cobra.Command) string {
	return strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
}

// Commands are the shown commands of root as the man page and the
// completions describe them.
func Commands(root *cobra.Command) []Command {
	var out []Command
	for _, c := range Shown(root) {
		out = append(out, Command{Name: c.Name(), Args: Synopsis(c), Help: c.Short, Examples: strings.Split(c.Example, "\n"),
			FlagSet: func(sub string) (*pflag.FlagSet, error) {
				if sub == "" {
					return c.Flags(), nil
				}
				for _, s := range c.Commands() {
					if s.Name() == sub {
						return s.Flags(), nil
					}
				}
				return nil, fmt.Errorf("no sub-command %s", sub)
			}})
	}
	return out
}

// Overview writes one entry per shown command of root: its name and
// synopsis, whose bracketed groups stay whole on their lines, and what it
// does, indented under it.
func Overview(w io.Writer, root *cobra.Command, width int) {
	lead := "  " + root.Name() + "           " // the name's column, then the synopsis
	for _, c := range Shown(root) {
		syn := Wrap(synopsisUnits(Synopsis(c)), width-len(lead))
		line := fmt.Sprintf("  %s %-9s %s", root.Name(), c.Name(), strings.Join(syn, "\n"+strings.Repeat(" ", len(lead))))
		fmt.Fprintln(w, strings.TrimRight(strings.ReplaceAll(line, string(synopsisSpace), " "), " "))
		fmt.Fprintf(w, "      %s\n", strings.Join(Wrap(c.Short, width-6), "\n      "))
	}
}

// synopsisSpace stands for a space inside a bracketed group while a
// synopsis is wrapped: a private-use character, which no synopsis holds and
// strings.Fields does not split at (it splits at U+00A0).
const synopsisSpace = '\ue000'

// synopsisUnits joins each bracketed group of a synopsis with
// synopsisSpace, so that wrapping never splits "[--interval 1s]".
func synopsisUnits(args string) string {
	var b strings.Builder
	depth := 0
	for _, r := range args {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' && depth > 0:
			r = synopsisSpace
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Help writes a command's help: its synopsis, what it does, its flags and
// examples. The command named def may go unnamed ("gputop [live]"); a
// sub-command (import prometheus) is described by its parent, whose
// synopsis names both, with its own flags.
func Help(w io.Writer, c *cobra.Command, def string, optional map[string]string, width int) {
	doc := c
	if p := c.Parent(); p != nil && p.HasParent() {
		doc = p
	}
	usage := doc.Root().Name() + " " + doc.Name()
	if doc.Name() == def {
		usage = doc.Root().Name() + " [" + def + "]"
	}
	const indent = "       " // under the synopsis, after "Usage: "
	syn := Wrap(usage+" "+Synopsis(doc), width-len(indent))
	fmt.Fprintf(w, "Usage: %s\n\n", strings.Join(syn, "\n"+indent))
	for _, line := range Wrap(strings.ToUpper(doc.Short[:1])+doc.Short[1:]+".", width) {
		fmt.Fprintln(w, line)
	}
	type row struct{ left, right string }
	var rows []row
	for _, f := range Flags(c.Flags(), optional) {
		rows = append(rows, row{f.Synopsis(), f.Usage})
	}
	rows = append(rows, row{"-h, --help", "this help"})
	flagWidth := 0
	for _, r := range rows {
		flagWidth = max(flagWidth, utf8.RuneCountInString(r.left))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	for _, r := range rows {
		// The explanations wrap to fit the width, aligned after the flags.
		for i, part := range Wrap(r.right, max(width-flagWidth-4, 30)) {
			left := r.left
			if i > 0 {
				left = ""
			}
			fmt.Fprintf(w, "  %-*s  %s\n", flagWidth, left, part)
		}
	}
	fmt.Fprintf(w, "\nExamples:\n")
	for _, ex := range strings.Split(doc.Example, "\n") {
		fmt.Fprintf(w, "  %s\n", ex)
	}
}

// Wrap breaks text into lines of at most width runes, between words (a
// word longer than width gets a line of its own).
func Wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
