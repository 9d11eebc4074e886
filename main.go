package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/packaging/buildinfo"
	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
)

// version and commit are set by the release build with -ldflags
// "-X main.version=... -X main.commit=..."; main fills them from what the
// go command stamped where it did not (buildinfo.Stamp).
var version, commit = devVersion, ""

const devVersion = "0.1.0-dev"

func main() {
	probes.JobGuardMain() // when started as the guard of a gputop run's job, only that
	info, _ := debug.ReadBuildInfo()
	version, commit = buildinfo.Stamp(info, version, devVersion, commit)
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
	// watching is called before a command that runs beside the job it
	// watches (see oneProcessor); nil in tests, which share a process.
	watching func()
}

func processEnv() *env {
	return &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, signals: notifyEndSignals, exit: os.Exit,
		watching: oneProcessor}
}

// oneProcessor runs Go code on one processor (GOMAXPROCS=1), as
// node_exporter does by default, unless the environment sets GOMAXPROCS.
// A command that watches a job for hours does a few milliseconds of work a
// second; with a processor per core the runtime wakes more threads for it
// (22 wakes a second against 13 on 2 cores, more on a 128-core node), and
// on a VM each wake is dear: the live demo measured 0.61-0.75 % of a core
// with the default and 0.50-0.55 % with one processor, in the same runs
// (docs/performance.md). A hung NVML call still cannot stop the others: a
// goroutine blocked in C gives up its processor. Setting it also ends the
// runtime's once-a-second look at the CPU affinity and cgroup limit, which
// would only change GOMAXPROCS.
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// command is one of gputop's commands: what --help says about it, and
// what runs it.
type command struct {
	name string
	// args is the synopsis after "gputop NAME"; help says what the
	// command does, in one line.
	args, help string
	// examples are command lines a person can copy; --help shows them.
	examples []string
	run      func(args []string, e *env) error
	// watches says the command samples beside a job for as long as it
	// runs, where gputop's own cost counts (env.watching).
	watches bool
}

// commands are gputop's commands, in the order the usage lists them.
var commands = []command{
	{"live", "[--interval 1s] [--record FILE] [--demo[=SCENARIO]] [--ascii] [--listen ADDRESS] [--hosts LIST [--ssh-command CMD]]", "live view of every GPU and the host (the default), or of several hosts",
		[]string{"gputop", "gputop --demo=checkpoint", "gputop --record run.gtr --interval 500ms", "gputop --listen 127.0.0.1:9400", "gputop --hosts node1,node[2-8] --record job.gtr"}, cmdLive, true},
	{"snapshot", "[--json] [--demo[=SCENARIO]]", "one reading of every GPU and the host, printed, then exit",
		[]string{"gputop snapshot", "gputop snapshot --json | jq '.gpus[].util'"}, cmdSnapshot, false},
	{"record", "-o FILE [--duration D] [--interval I] [--demo[=SCENARIO]] [--fast] [--listen ADDRESS]", "record without a screen; Ctrl-C or SIGTERM closes the file cleanly",
		[]string{"gputop record -o run.gtr --duration 2h", "gputop record --demo=checkpoint --fast --duration 10m -o ck.gtr",
			"gputop record -o run.gtr --listen 127.0.0.1:9400"}, cmdRecord, true},
	{"replay", "FILE [--speed X] [--start T]", "replay a recording in the same screen, with a transport",
		[]string{"gputop replay run.gtr", "gputop replay run.gtr --speed 8 --start +30m"}, cmdReplay, false},
	{"run", "[-o FILE] [--phase-regex RE] [--demo[=SCENARIO]] [--fail-on SEVERITY] -- CMD [ARGS...]", "run a job, record it, mark its phases, report when it ends, exit with its code",
		[]string{"gputop run -o train.gtr -- python train.py --epochs 10", "gputop run --phase-regex '(epoch \\d+)' -- ./train.sh",
			"gputop run --demo=checkpoint --fail-on critical -- python smoke_train.py"}, cmdRun, true},
	{"mark", "TEXT", "drop a marker into this user's running gputop sessions",
		[]string{"gputop mark 'eval start'"}, cmdMark, false},
	{"report", "FILE [--format text|markdown|json|html|svg] [-o OUT] [--from T] [--to T] [--phases all] [--fail-on SEVERITY]", "per-GPU and per-phase figures, phases, markers and hints of a recording, or of a stretch of it; a page or a drawing to attach; a check for CI",
		[]string{"gputop report run.gtr", "gputop report run.gtr --format markdown", "gputop report run.gtr --format html -o run.html",
			"gputop report run.gtr --format svg -o timeline.svg", "gputop report run.gtr --from +10m --to +20m --format json",
			"gputop report run.gtr --fail-on critical"}, cmdReport, false},
	{"diff", "A B [--format text|markdown|html|json] [--fail-if CONDITION ...]", "two runs of the same job side by side: figures, phase times and the hints that appeared, went or changed; a check for CI",
		[]string{"gputop diff before.gtr after.gtr", "gputop diff before.gtr after.gtr --format markdown",
			"gputop diff a.gtr b.gtr --fail-if 'busy<-5%' --fail-if 'energy>+10%'"}, cmdDiff, false},
	{"export", "FILE --format csv|jsonl [-o OUT]", "a recording as tidy data for pandas, jq or a spreadsheet",
		[]string{"gputop export run.gtr --format csv -o run.csv", "gputop export run.gtr --format jsonl | jq ."}, cmdExport, false},
	{"import", "LOG -o FILE [--format auto|nvidia-smi-csv|dmon|dcgmi-csv] | prometheus URL|FILE.json -o FILE [--from T] [--to T] [--match SELECTOR] [--step 15s]",
		"turn nvidia-smi, dmon or dcgmi logs, or a cluster's GPU series in Prometheus, into a recording",
		[]string{"gputop import nvidia-smi.csv -o old.gtr", "gputop import gpu.dmon --format dmon --start '2026-11-22 14:03:00' -o old.gtr",
			"gputop import prometheus http://prom:9090 --from -6h --to -2h -o job.gtr",
			"gputop import prometheus answer.json -o job.gtr"}, cmdImport, false},
	{"serve", "[--listen 127.0.0.1:9400] [--interval 1s] [--demo[=SCENARIO] [--demo-from D]] [-o FILE] [--web.config.file FILE]", "sample without a screen and serve Prometheus /metrics under dcgm-exporter's names",
		[]string{"gputop serve", "gputop serve --demo=imbalance --listen 127.0.0.1:9401 -o node.gtr"}, cmdServe, true},
	{"attach", "[--list] [SESSION]", "the live view of a recording this user is writing on this host, its whole history; q leaves it running",
		[]string{"gputop attach", "gputop attach --list"}, cmdAttach, true},
	{"stream", "[--interval 1s] [--demo[=SCENARIO]] [--duration D] [--session ID] [--new] [--history D]", "write the recording to stdout as it is written (following a running session of yours, or sampling), for gputop --hosts over ssh",
		[]string{"gputop stream --demo=imbalance --duration 1m > run.gtr", "ssh node3 gputop stream  # what gputop --hosts runs"}, cmdStream, true},
	{"version", "", "print the version",
		[]string{"gputop version"}, cmdVersion, false},
}

func run(args []string, e *env) int {
	stdout, stderr := e.stdout, e.stderr
	name, rest := "live", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	switch {
	case len(args) > 0 && (args[0] == "--help" || args[0] == "-h"), name == "help" && len(rest) == 0:
		printUsage(stdout)
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
	// The hidden commands (nvml-bench) are not in the usage, but run alike.
	all := slices.Concat(commands, hiddenCommands)
	for i := range all {
		c := &all[i]
		if c.name != name {
			continue
		}
		// A command the person did not name (the live view) is just gputop.
		who := "gputop " + name
		if len(args) == 0 || args[0] != name {
			who = "gputop"
		}
		if c.watches && e.watching != nil {
			e.watching()
		}
		err := c.run(rest, e)
		var help helpRequest
		var code exitStatus
		switch {
		case err == nil:
			return exitOK
		case errors.As(err, &help):
			printCommandHelp(stdout, c, help.flags)
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
	fmt.Fprintf(stderr, "gputop: unknown command %q (see gputop --help)\n", name)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "gputop %s: a terminal GPU profiler\n\nUsage:\n", version)
	const lead = "  gputop           " // the name's column, then the synopsis
	for _, c := range commands {
		syn := wrapWords(synopsisUnits(c.args), messageWidth-len(lead))
		line := fmt.Sprintf("  gputop %-9s %s", c.name, strings.Join(syn, "\n"+strings.Repeat(" ", len(lead))))
		fmt.Fprintln(w, strings.TrimRight(strings.ReplaceAll(line, string(synopsisSpace), " "), " "))
		fmt.Fprintf(w, "      %s\n", strings.Join(wrapWords(c.help, messageWidth-6), "\n      "))
	}
	fmt.Fprintf(w, "\nWithout a GPU, --demo runs the real NVML probe against a simulated 8x H100 node.\n"+
		"%s\n'gputop COMMAND --help' shows a command's flags and examples.\n",
		strings.Join(wrapWords("Scenarios: "+scenarioNames+".", messageWidth), "\n  "))
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

// scenarioNames lists the demo's scenarios, for help and errors.
var scenarioNames = strings.Join(demo.Scenarios, ", ")

// demoFlag is --demo[=SCENARIO]: a bare --demo plays "training".
type demoFlag struct {
	scenario string
	// from starts the script that far in (serve's --demo-from).
	from time.Duration
}

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

func cmdVersion(args []string, e *env) error {
	rest, err := parseFlags(flag.NewFlagSet("version", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	fmt.Fprintf(e.stdout, "gputop %s\n", buildinfo.Line(version, commit))
	return nil
}
