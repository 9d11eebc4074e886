package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
)

// How the commands' command lines read, and how a mistake in one is said:
// pflag's own messages ("invalid argument "5x" for "--duration" flag: time:
// invalid duration "5x"") put the useful part last, so flagError says it in
// gputop's words, one line.

// flagName is a flag as the help writes it: -o, --duration.
func flagName(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commandLine is args as pflag reads them, for a command with the flags fs:
// gputop's flags were Go flag's, which reads -demo as --demo, so a long
// flag after one dash gets its second (pflag would read -demo as -d -e -m
// -o); and `--demo checkpoint` is joined (joinDemoScenario). A flag's value
// is left alone (--kill-after -1s), and so is all after "--" (run's job).
func commandLine(fs *pflag.FlagSet, args []string) []string {
	args = joinDemoScenario(fs, args)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") && utf8.RuneCountInString(name) > 1 {
			a = "-" + a
		}
		out = append(out, a)
		if f := fs.Lookup(name); f != nil && f.NoOptDefVal == "" && !inline && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// joinDemoScenario reads `--demo checkpoint` as `--demo=checkpoint`:
// --demo may stand alone, so the parser takes the scenario after a space
// for an argument. Only a scenario's name is joined, so `gputop replay
// --demo run.gtr` still means the file.
func joinDemoScenario(fs *pflag.FlagSet, args []string) []string {
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

// flagError says what is wrong with a command line that pflag refused,
// as a usageError of one line.
func flagError(err error) error {
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		return badValue(invalid.GetFlag(), invalid.GetValue(), errors.Unwrap(invalid))
	case errors.As(err, &missing):
		f := missing.GetFlag()
		if what, _ := pflag.UnquoteUsage(f); what != "" && what != "value" {
			return usageError{fmt.Sprintf("%s needs a %s", flagName(f.Name), what)}
		}
		return usageError{flagName(f.Name) + " needs a value"}
	case errors.As(err, &unknown):
		return usageError{"unknown flag " + flagName(unknown.GetSpecifiedName())}
	}
	return usageError{err.Error()}
}

// badValue says what is wrong with value for the flag f, whose Value
// refused it with err.
func badValue(f *pflag.Flag, value string, err error) error {
	var what string
	switch f.Value.Type() {
	case "duration":
		what = "a duration such as 500ms, 90s, 10m or 2h"
	case "float64":
		what = "a number"
	case "int", "int64", "uint", "uint64":
		what = "a whole number"
	case "bool":
		return usageError{fmt.Sprintf("%s takes no value, or true or false; not %q", flagName(f.Name), value)}
	default:
		// The Value's own words (--demo's), which name the flag.
		return usageError{err.Error()}
	}
	return usageError{fmt.Sprintf("%s %q is not %s", flagName(f.Name), value, what)}
}

// optionalValues are the flags whose value may be left out, with the
// value's name: --demo[=SCENARIO].
var optionalValues = map[string]string{"demo": "SCENARIO"}

// flagChoices are the values of flags that the synopses do not list, for
// the man page and the completions.
var flagChoices = map[string][]string{"demo": demo.Scenarios}

// scenarioNames lists the demo's scenarios, for help and errors.
var scenarioNames = strings.Join(demo.Scenarios, ", ")

// demoFlag is --demo[=SCENARIO]: a bare --demo plays "training".
type demoFlag struct {
	scenario string
	// from starts the script that far in (serve's --demo-from).
	from time.Duration
}

// demoVar defines --demo on fs.
func demoVar(fs *pflag.FlagSet, d *demoFlag, usage string) {
	fs.Var(d, "demo", usage)
	fs.Lookup("demo").NoOptDefVal = "true"
}

func (d *demoFlag) String() string { return d.scenario }
func (d *demoFlag) Type() string   { return "scenario" }

func (d *demoFlag) Set(v string) error {
	switch v {
	case "true":
		d.scenario = demo.Scenarios[0]
	case "false":
		d.scenario = ""
	default:
		for _, s := range demo.Scenarios {
			if v == s {
				d.scenario = v
				return nil
			}
		}
		return fmt.Errorf("unknown demo scenario %q (one of: %s)", v, scenarioNames)
	}
	return nil
}

// machine is the simulated machine --demo asks for, running on clock (the
// session's), or nil without --demo. Every command plays seed 1, so the same
// scenario shows the same numbers wherever it is run.
func (d *demoFlag) machine(clock probes.Clock) (*probes.Machine, error) {
	if d.scenario == "" {
		return nil, nil
	}
	node, err := demo.NewFrom(d.scenario, 1, clock, d.from)
	if err != nil {
		return nil, err
	}
	return node.Machine(), nil
}

// checkInterval checks --interval after parsing.
func checkInterval(d time.Duration) error {
	if d < 100*time.Millisecond {
		return usageError{fmt.Sprintf("--interval %v is too short; the shortest is 100ms", d)}
	}
	return nil
}
