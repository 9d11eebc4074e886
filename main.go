// Command gputop is a terminal GPU profiler: it shows every GPU and the
// host, live, with history, and says what holds the GPUs back.
//
// main only parses flags, wires packages together and picks exit codes; the
// work is in probes (sampling), timeline (history), recordings (files) and
// ui (the screen).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
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
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands maps each command to what runs it and its one-line help.
var commands = []struct {
	name, args, help string
	run              func(args []string, stdout io.Writer) error
}{
	{"live", "[--interval 1s] [--demo[=SCENARIO]] [--ascii]", "live view of every GPU and the host (the default)", cmdLive},
	{"snapshot", "[--json] [--demo[=SCENARIO]]", "one reading of every GPU and the host, printed, then exit", cmdSnapshot},
	{"version", "", "print the version", cmdVersion},
}

func run(args []string, stdout, stderr io.Writer) int {
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
		err := c.run(rest, stdout)
		switch {
		case err == nil || errors.Is(err, flag.ErrHelp):
			return exitOK
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
		"Scenarios: %s.\n'gputop COMMAND --help' shows a command's flags.\n", strings.Join(probes.Scenarios, ", "))
}

// demoFlag is --demo[=SCENARIO]: a bare --demo plays "training".
type demoFlag struct{ scenario string }

func (d *demoFlag) String() string   { return d.scenario }
func (d *demoFlag) IsBoolFlag() bool { return true }

func (d *demoFlag) Set(v string) error {
	switch v {
	case "true":
		d.scenario = probes.Scenarios[0]
	case "false":
		d.scenario = ""
	default:
		for _, s := range probes.Scenarios {
			if v == s {
				d.scenario = v
				return nil
			}
		}
		return fmt.Errorf("unknown scenario %q; the scenarios are %s", v, strings.Join(probes.Scenarios, ", "))
	}
	return nil
}

// parseFlags parses flags that may come before or after the arguments
// (`gputop replay run.gtr --speed 4`), and returns the arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(os.Stdout)
				fmt.Fprintf(os.Stdout, "Usage of gputop %s:\n", fs.Name())
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

func cmdVersion(args []string, stdout io.Writer) error {
	fmt.Fprintf(stdout, "gputop %s\n", version)
	return nil
}

func cmdLive(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "simulate 8 H100s playing `SCENARIO`: "+strings.Join(probes.Scenarios, ", "))
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	if err := checkInterval(*interval); err != nil {
		return err
	}
	if err := checkTerminal(0); err != nil {
		return err
	}
	closeLog, err := openLog(*logPath)
	if err != nil {
		return err
	}
	defer closeLog()

	src := probes.OpenPending(probes.SessionConfig{Interval: *interval, Demo: demo.scenario, Seed: 1})
	defer func() {
		if err := src.Close(); err != nil {
			log.Printf("closing: %v", err)
		}
	}()
	log.Printf("gputop %s live, interval %v, demo %q", version, *interval, demo.scenario)
	return runUI(src, ui.Options{ASCII: *ascii})
}

// runUI runs the screen until the user quits.
func runUI(src timeline.Source, opts ui.Options) error {
	r := lipgloss.NewRenderer(os.Stdout)
	opts.Plain = os.Getenv("NO_COLOR") != ""
	if opts.Plain {
		r.SetColorProfile(termenv.Ascii)
	}
	opts.Source, opts.Renderer = src, r
	model := ui.New(opts)
	defer model.Close()
	p := tea.NewProgram(model, tea.WithAltScreen(), tea.WithFPS(30))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	return err
}

// checkTerminal refuses to start the screen where it cannot be drawn.
func checkTerminal(gpus int) error {
	fd := os.Stdout.Fd()
	if !term.IsTerminal(fd) {
		return errors.New("the live view needs a terminal; for a reading use 'gputop snapshot'")
	}
	w, h, err := term.GetSize(fd)
	if err != nil {
		return fmt.Errorf("cannot read the terminal's size: %v", err)
	}
	// Before the GPUs are found, ask for the room of the common 8-GPU node.
	minW, minH := ui.MinSize(max(gpus, 8))
	if w < minW || h < minH {
		return fmt.Errorf("terminal too small: %dx%d, gputop needs at least %dx%d", w, h, minW, minH)
	}
	return nil
}

func defaultLogPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state")
		} else {
			dir = os.TempDir()
		}
	}
	return filepath.Join(dir, "gputop", "gputop.log")
}

// openLog sends the log to a file, so nothing is ever written to the
// terminal under the screen.
func openLog(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log: %v", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %v", err)
	}
	log.SetOutput(f)
	return func() {
		log.SetOutput(io.Discard)
		f.Close()
	}, nil
}

func cmdSnapshot(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON (fields in docs/snapshot.md)")
	var demo demoFlag
	fs.Var(&demo, "demo", "read 8 simulated H100s playing `SCENARIO`: "+strings.Join(probes.Scenarios, ", "))
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	log.SetOutput(io.Discard)
	// Two readings a quarter second apart: rates (power from energy, CPU
	// shares) need a difference.
	sess, err := probes.OpenSession(probes.SessionConfig{Interval: 250 * time.Millisecond, Demo: demo.scenario, Seed: 1})
	if err != nil {
		return err
	}
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var readings [2]timeline.Sample
	for i := range readings {
		if readings[i], err = sess.Next(ctx); err != nil {
			return err
		}
	}
	snap := timeline.NewSnapshot(&readings[1], &readings[0], sess.Info())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(snap)
	}
	return snap.WriteText(stdout)
}
