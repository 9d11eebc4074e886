package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // something failed at run time
	exitUsage = 2 // bad flags or arguments
)

// usageError is bad input on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], processEnv()))
}

// env is what a command takes from the process it runs in: its standard
// streams, its signals and its exit. Tests run commands in-process with
// buffers and signals of their own.
type env struct {
	stdin          *os.File
	stdout, stderr io.Writer
	// signals subscribes to endSignals until the returned stop is called.
	signals func() (<-chan os.Signal, func())
	// exit ends the process at once (a second Ctrl-C while closing).
	exit func(code int)
}

func processEnv() *env {
	return &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, signals: notifyEndSignals, exit: os.Exit}
}

// commands maps each command to what runs it and its one-line help.
var commands = []struct {
	name, args, help string
	run              func(args []string, e *env) error
}{
	{"live", "[--interval 1s] [--record FILE] [--demo[=SCENARIO]] [--ascii]", "live view of every GPU and the host (the default)", cmdLive},
	{"snapshot", "[--json] [--demo[=SCENARIO]]", "one reading of every GPU and the host, printed, then exit", cmdSnapshot},
	{"record", "-o FILE [--duration D] [--interval I] [--demo[=SCENARIO]] [--fast]", "record without a screen; Ctrl-C or SIGTERM closes the file cleanly", cmdRecord},
	{"replay", "FILE [--speed X] [--start T]", "replay a recording in the same screen, with a transport", cmdReplay},
	{"run", "[-o FILE] [--phase-regex RE] [--demo[=SCENARIO]] -- CMD [ARGS...]", "run a job, record it, mark its phases, report when it ends, exit with its code", cmdRun},
	{"mark", "TEXT", "drop a marker into this user's running gputop sessions", cmdMark},
	{"report", "FILE [--format text|markdown|json] [--from T] [--to T]", "per-GPU and per-phase figures, phases, markers and hints of a recording, or of a stretch of it", cmdReport},
	{"export", "FILE --format csv|jsonl [-o OUT]", "a recording as tidy data for pandas, jq or a spreadsheet", cmdExport},
	{"import", "LOG -o FILE [--format auto|nvidia-smi-csv|dmon|dcgmi-csv]", "turn nvidia-smi, dmon or dcgmi logs into a recording", cmdImport},
	{"serve", "[--listen 127.0.0.1:9400] [--interval 1s] [--demo[=SCENARIO]] [-o FILE] [--web.config.file FILE]", "sample without a screen and serve Prometheus /metrics under dcgm-exporter's names", cmdServe},
	{"version", "", "print the version", cmdVersion},
}

func run(args []string, e *env) int {
	stdout, stderr := e.stdout, e.stderr
	name, rest := "live", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	if name == "help" || (len(args) > 0 && (args[0] == "--help" || args[0] == "-h")) {
		printUsage(stdout)
		return exitOK
	}
	if len(args) > 0 && args[0] == "--version" {
		name, rest = "version", nil
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(rest, e)
		var code exitStatus
		switch {
		case err == nil || errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &code):
			return int(code)
		case errors.As(err, new(usageError)):
			fmt.Fprintf(stderr, "gputop %s: %v (see gputop %s --help)\n", name, err, name)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "gputop %s: %v\n", name, err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "gputop: unknown command %q (see gputop --help)\n", name)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "gputop %s: a terminal GPU profiler\n\nUsage:\n", version)
	for _, c := range commands {
		fmt.Fprintf(w, "  gputop %-9s %s\n      %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintf(w, "\nWithout a GPU, --demo runs the real NVML probe against a simulated 8x H100 node.\n"+
		"Scenarios: %s.\n'gputop COMMAND --help' shows a command's flags.\n", scenarioNames)
}

// scenarioNames lists the demo's scenarios, for help and errors.
var scenarioNames = strings.Join(demo.Scenarios, ", ")

// demoFlag is --demo[=SCENARIO]: a bare --demo plays "training".
type demoFlag struct{ scenario string }

func (d *demoFlag) String() string   { return d.scenario }
func (d *demoFlag) IsBoolFlag() bool { return true }

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
		return fmt.Errorf("unknown scenario %q; the scenarios are %s", v, scenarioNames)
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
	node, err := demo.New(d.scenario, 1, clock)
	if err != nil {
		return nil, err
	}
	return node.Machine(), nil
}

// parseFlags parses flags that may come before or after the arguments
// (`gputop replay run.gtr --speed 4`), and returns the arguments. --help
// prints the flags to stdout.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fmt.Fprintf(stdout, "Usage of gputop %s:\n", fs.Name())
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// intervalFlag adds --interval and checks it after parsing.
func checkInterval(d time.Duration) error {
	if d < 100*time.Millisecond {
		return usageError{fmt.Sprintf("--interval %v is too short; the shortest is 100ms", d)}
	}
	return nil
}

func cmdVersion(args []string, e *env) error {
	fmt.Fprintf(e.stdout, "gputop %s\n", version)
	return nil
}
