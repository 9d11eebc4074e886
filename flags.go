package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/packaging/clidoc"
	"github.com/gputop-dev/gputop/probes/demo"
)

// How the commands read their command lines and say what is wrong with
// them: flag's own messages ("invalid value "5x" for flag -duration: parse
// error") put the useful part last, so parseFlags says it in gputop's words,
// and --help is answered by the dispatcher, which knows the command's
// synopsis and examples.

// helpRequest is --help (or -h): the dispatcher prints the command's help
// with the flags of flags.
type helpRequest struct{ flags *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }

// refusedValue keeps the error with which a flag's Value refused what it
// was given: flag wraps it in its own words, and drops its type.
type refusedValue struct {
	flag.Value
	name    string
	refused *error
}

func (v *refusedValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		*v.refused = badValue(v.name, s, v.Value, err)
		return err
	}
	return nil
}

// IsBoolFlag keeps --json and --demo valid without a value.
func (v *refusedValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagName is a flag as the help writes it: -o, --duration.
func flagName(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// badValue says what is wrong with value for the flag name, whose Value
// refused it with err.
func badValue(name, value string, v flag.Value, err error) error {
	var what string
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			what = "a duration such as 500ms, 90s, 10m or 2h"
		case float64:
			what = "a number"
		case int, int64, uint, uint64:
			what = "a whole number"
		case bool:
			return usageError{fmt.Sprintf("%s takes no value, or true or false; not %q", flagName(name), value)}
		}
	}
	if what == "" {
		// The Value's own words (--demo's), which name the flag.
		return usageError{err.Error()}
	}
	return usageError{fmt.Sprintf("%s %q is not %s", flagName(name), value, what)}
}

// parseFlags parses flags that may come before or after the arguments
// (`gputop replay run.gtr --speed 4`), and returns the arguments. --help
// is a helpRequest; a bad flag or value a usageError of one line.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var refused error
	fs.VisitAll(func(f *flag.Flag) {
		f.Value = &refusedValue{Value: f.Value, name: f.Name, refused: &refused}
	})
	args = joinDemoScenario(fs, args)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			if refused != nil {
				return nil, refused
			}
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// joinDemoScenario reads `--demo checkpoint` as `--demo=checkpoint`:
// --demo may stand alone, so flag's parser takes the scenario after a
// space for an argument (and refuses it). Only a scenario's name is
// joined, so `gputop replay --demo run.gtr` still means the file.
func joinDemoScenario(fs *flag.FlagSet, args []string) []string {
	if fs.Lookup("demo") == nil {
		return args
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...) // gputop run's command: not ours
		}
		if (a == "--demo" || a == "-demo") && i+1 < len(args) && slices.Contains(demo.Scenarios, args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// given says whether the command line set the flag name (its value may
// be the default: --duration 0).
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// flagError rewrites the errors of flag's parser that are not about a
// value: an unknown flag, a flag without its value.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return usageError{"unknown flag " + flagName(name)}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		if f := fs.Lookup(name); f != nil {
			what, _ := flag.UnquoteUsage(unwrapped(f))
			if what != "" && what != "value" {
				return usageError{fmt.Sprintf("%s needs a %s", flagName(name), what)}
			}
		}
		return usageError{flagName(name) + " needs a value"}
	}
	return usageError{msg}
}

// optionalValues are the flags whose value may be left out, with the
// value's name: --demo[=SCENARIO].
var optionalValues = map[string]string{"demo": "SCENARIO"}

// definedFlags is fs with its flags as their command defined them, before
// parseFlags wrapped their Values: what --help and the man page describe.
func definedFlags(fs *flag.FlagSet) *flag.FlagSet {
	out := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		f = unwrapped(f)
		out.Var(f.Value, f.Name, f.Usage)
		out.Lookup(f.Name).DefValue = f.DefValue
	})
	return out
}

// unwrapped is f as it was defined, before parseFlags wrapped its Value,
// so flag.UnquoteUsage can tell its type.
func unwrapped(f *flag.Flag) *flag.Flag {
	if v, ok := f.Value.(*refusedValue); ok {
		c := *f
		c.Value = v.Value
		return &c
	}
	return f
}

// printCommandHelp writes a command's help: its synopsis, what it does,
// its flags and examples.
func printCommandHelp(w io.Writer, c *command, flags *flag.FlagSet) {
	usage := "gputop " + c.name
	if c.name == "live" {
		usage = "gputop [live]"
	}
	const indent = "       " // under the synopsis, after "Usage: "
	synopsis := wrapWords(usage+" "+c.args, messageWidth-len(indent))
	fmt.Fprintf(w, "Usage: %s\n\n", strings.Join(synopsis, "\n"+indent))
	for _, line := range wrapWords(strings.ToUpper(c.help[:1])+c.help[1:]+".", messageWidth) {
		fmt.Fprintln(w, line)
	}
	type row struct{ left, right string }
	var rows []row
	for _, f := range clidoc.Flags(definedFlags(flags), optionalValues) {
		rows = append(rows, row{f.Synopsis(), f.Usage})
	}
	rows = append(rows, row{"-h, --help", "this help"})
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.left))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	for _, r := range rows {
		// The explanations wrap to fit 80 columns, aligned after the flags.
		for i, part := range wrapWords(r.right, max(messageWidth-width-4, 30)) {
			left := r.left
			if i > 0 {
				left = ""
			}
			fmt.Fprintf(w, "  %-*s  %s\n", width, left, part)
		}
	}
	fmt.Fprintf(w, "\nExamples:\n")
	for _, ex := range c.examples {
		fmt.Fprintf(w, "  %s\n", ex)
	}
}
