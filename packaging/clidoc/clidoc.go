// Package clidoc writes the documentation of a command line: the help
// its commands answer --help with, and the man page and bash, zsh and fish
// completions the release packages install. It reads what the cobra
// commands say of themselves (a synopsis in Use, a line of help in Short,
// examples, and their flags), so a flag added to a command is in its help,
// man page and completions with no other edit.
//
//	cobra commands ──▶ Help, Overview (--help)
//	       └──▶ Commands ──▶ man page (man(7) macros)
//	                    └──▶ bash, zsh, fish completions
package clidoc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Command is one command as its help describes it.
type Command struct {
	Name     string // live, report; Page.Default is the one run without a name
	Args     string // the synopsis after the name; " | " parts that start with a word are sub-commands
	Help     string // what it does, in one line
	Examples []string
	// FlagSet is the flags of the command, or of its sub-command sub
	// ("" for the command itself), with their Values as defined.
	FlagSet func(sub string) (*pflag.FlagSet, error)
}

// Page is the whole command line: its program and commands.
type Page struct {
	Program, Summary, Description string
	Version, Date                 string // the man page's footer; Date may be empty
	Default                       string // the command that runs when none is named (live)
	Commands                      []Command
	// Choices are the values of flags that the synopses do not list, by
	// flag name (--demo's scenarios).
	Choices map[string][]string
	Exits   [][2]string // an exit status (0, or "the job's") and what it means
	Env     [][2]string // a variable and what it does
}

// Flag is one flag as a command's help describes it.
type Flag struct {
	Name string // without dashes: o, format
	// Arg names the flag's value (FILE, DURATION), empty for a switch;
	// Optional says the value may be left out (--demo[=SCENARIO]).
	Arg      string
	Optional bool
	Usage    string // with its default, where the usage does not say it
	// Values are the choices a shell offers for the value, File says the
	// value is a path.
	Values []string
	File   bool
}

// Name is a flag as the help writes it: -o, --duration.
func Name(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Synopsis is the flag as the help's left column writes it: -o FILE,
// --demo[=SCENARIO], --json.
func (f Flag) Synopsis() string {
	switch {
	case f.Optional:
		return Name(f.Name) + "[=" + f.Arg + "]"
	case f.Arg != "":
		return Name(f.Name) + " " + f.Arg
	}
	return Name(f.Name)
}

// Flags describes the flags of fs in the order the help lists them. A flag
// that may stand alone (pflag's NoOptDefVal: a switch) and that is in
// optional takes an optional value named by it (demo: SCENARIO). cobra's
// help flag is left out: the help writes it as -h, --help itself.
func Flags(fs *pflag.FlagSet, optional map[string]string) []Flag {
	var out []Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		what, usage := pflag.UnquoteUsage(f)
		d := Flag{Name: f.Name}
		switch arg, ok := optional[f.Name]; {
		case ok:
			d.Arg, d.Optional = arg, true
		case f.NoOptDefVal != "":
		case what != "":
			d.Arg = strings.ToUpper(what)
		}
		// A usage that speaks of its default already says it better.
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		d.Usage = usage
		out = append(out, d)
	})
	return out
}

// Files are the names of the files Write writes for program: its man
// page and its bash, zsh and fish completions, as the shells look for them.
func Files(program string) (man, bash, zsh, fish string) {
	return program + ".1", program + ".bash", "_" + program, program + ".fish"
}

// Write writes the man page of p and cobra's completion scripts for root
// into dir.
func Write(dir string, p Page, root *cobra.Command, optional map[string]string) error {
	cmds, err := p.expand(optional)
	if err != nil {
		return err
	}
	files, err := scripts(root)
	if err != nil {
		return err
	}
	man, _, _, _ := Files(p.Program)
	files[man] = p.man(cmds)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// command is a command or sub-command (import prometheus) with its flags.
type command struct {
	name, args, help string
	examples         []string
	flags            []Flag
}

// choice is a flag followed by its choices in a synopsis:
// "--format csv|jsonl", "--fail-on warning\|critical".
var choice = regexp.MustCompile(`(-{1,2}[A-Za-z0-9.-]+) ([a-z0-9][a-z0-9-]*(?:\\?\|[a-z0-9][a-z0-9-]*)+)`)

// subCommand is a sub-command in a synopsis: the word that starts an
// alternative ("LOG -o FILE | prometheus URL...").
var subCommand = regexp.MustCompile(`^[a-z][a-z-]*$`)

// expand lists every command and sub-command with its flags.
func (p Page) expand(optional map[string]string) ([]command, error) {
	var out []command
	for _, c := range p.Commands {
		base := command{name: c.Name, args: c.Args, help: c.Help}
		subs := []command{}
		for _, alt := range strings.Split(c.Args, " | ")[1:] {
			word, rest, _ := strings.Cut(alt, " ")
			if subCommand.MatchString(word) {
				base.args = strings.TrimSuffix(base.args, " | "+alt)
				subs = append(subs, command{name: c.Name + " " + word, args: rest, help: c.Help})
			}
		}
		// Each example goes to the sub-command it runs, or to the command.
	examples:
		for _, ex := range c.Examples {
			for i := range subs {
				if strings.HasPrefix(ex, p.Program+" "+subs[i].name+" ") {
					subs[i].examples = append(subs[i].examples, ex)
					continue examples
				}
			}
			base.examples = append(base.examples, ex)
		}
		for _, d := range append([]command{base}, subs...) {
			_, sub, _ := strings.Cut(d.name, " ")
			fs, err := c.FlagSet(sub)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", p.Program, d.name, err)
			}
			d.flags = Flags(fs, optional)
			for i, f := range d.flags {
				d.flags[i].Values, d.flags[i].File = p.Choices[f.Name], f.Arg == "FILE"
			}
			for _, m := range choice.FindAllStringSubmatch(d.args, -1) {
				for i, f := range d.flags {
					if f.Name == strings.TrimLeft(m[1], "-") {
						d.flags[i].Values = strings.Split(strings.ReplaceAll(m[2], `\|`, "|"), "|")
					}
				}
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// positionalFiles says a command's arguments are files: its synopsis
// names a FILE, a LOG or two recordings A B outside its brackets.
func positionalFiles(args string) bool {
	depth := 0
	var prev string
	for _, w := range strings.Fields(args) {
		bare := depth == 0 && !strings.HasPrefix(prev, "-")
		depth += strings.Count(w, "[") - strings.Count(w, "]")
		if bare && !strings.HasPrefix(w, "-") && (strings.Contains(w, "FILE") || w == "LOG" || w == "A" || w == "B") {
			return true
		}
		prev = w
	}
	return false
}
