package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/remote"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
	"github.com/gputop-dev/gputop/ui/screen"
)

func cmdLive(args []string, e *env) error {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "simulate 8 H100s playing `SCENARIO`: "+scenarioNames)
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	record := fs.String("record", "", "record the session to `FILE` from the start (r toggles recording)")
	force := fs.Bool("force", false, "with --record, overwrite FILE if it exists")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of gputop itself to `FILE` (docs/performance.md)")
	var hosts hostsFlags
	fs.StringVar(&hosts.list, "hosts", "", "follow the hosts of `LIST` (node1,node[2-8]) over ssh, on one screen")
	fs.StringVar(&hosts.sshCommand, "ssh-command", "", "with --hosts, run `CMD` HOST gputop stream instead of ssh")
	metrics := addMetricsFlags(fs, "")
	readonly := fs.Bool("readonly", false, "never signal a process: k (a signal to a process of your own) is off")
	memory := fs.String("memory", "", "keep the screen's history within `SIZE` (256MiB, 1GiB; default a 64th of RAM, at most 128MiB)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	settings, err := screenSettings()
	if err != nil {
		return err
	}
	intervalOf(fs, interval, settings)
	if err := checkInterval(*interval); err != nil {
		return err
	}
	budget, err := parseHistoryBudget(*memory)
	if err != nil {
		return err
	}
	if err := metrics.check(); err != nil {
		return err
	}
	if *record != "" {
		if err := checkNewFile(*record, *force); err != nil {
			return err
		}
	}
	var hostList []string
	var transport remote.Transport
	if hosts.list != "" || hosts.sshCommand != "" {
		if hostList, transport, err = hosts.check(liveOptions{demo: demo.scenario}); err != nil {
			return err
		}
		// One /metrics labels every GPU with one Hostname; each host's own
		// `gputop serve` is the way to export several.
		if metrics.on() {
			return usageError{"--listen and --hosts do not go together: run gputop serve on each host"}
		}
	}
	if err := checkTerminal(); err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	closeLog, err := openLog(*logPath)
	if err != nil {
		return err
	}
	defer closeLog()
	// The port before the screen: an address that cannot be served is
	// said in one line where it can be read.
	pipe := newPipeline()
	side, err := openSideMetrics(metrics, pipe)
	if err != nil {
		return err
	}
	defer side.Close()
	if hostList != nil {
		return liveHosts(e, hostList, transport, liveOptions{interval: *interval, record: *record, force: *force, ascii: *ascii,
			settings: settings, budget: budget})
	}
	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()

	// The marker socket's warning is logged and is the screen's first notice.
	var warning string
	session, err := openLocal(demo, probes.SessionConfig{Interval: *interval}, func(w string) {
		log.Print(w)
		warning = w
	})
	if err != nil {
		return err
	}
	defer session.close()
	rec := pipe.recorder(session, side.exporter(), *force, false)
	live := &liveRecording{rec: rec, next: *record}
	if *record != "" {
		if _, err := live.Start(); err != nil {
			return err
		}
	}
	log.Printf("gputop %s live, interval %v, demo %q", version, *interval, demo.scenario)
	notice := warning
	if side != nil {
		side.start(log.Writer(), func(err error) { log.Printf("/metrics no longer served: %v", err) })
		log.Printf("/metrics on %s", side.addr())
		if notice == "" {
			notice = "Prometheus /metrics on " + side.addr()
		}
	}
	opts := ui.Options{ASCII: *ascii, Recorder: live, Notice: notice, ReadOnly: *readonly, Settings: settings,
		Store: newLiveStore(budget)}
	if demo.scenario == "" && !*readonly {
		// A demo's PIDs are made up: they may name real processes here.
		opts.Killer = killer{probes.NewTerminator()}
	}
	uiErr := runUI(ctx, rec, opts)
	// After the screen: the terminal is itself again, so the files'
	// whereabouts can be said (unless it hung up, and nobody is there):
	// those r closed during the session, then the one still open.
	for _, sum := range live.closed {
		if !sum.Removed {
			fmt.Fprintln(e.stderr, summaryLine(sum))
		}
	}
	sum, err := rec.Stop()
	reportSummary(e.stderr, sum, err)
	return uiErr
}

// closeSession closes a session, logging what went wrong: nobody is
// waiting for it by then.
func closeSession(s io.Closer) {
	if err := s.Close(); err != nil {
		log.Printf("closing: %v", err)
	}
}

// checkNewFile refuses to overwrite a file unless told to, before anything
// starts, so the refusal is the one line a person sees.
func checkNewFile(path string, force bool) error {
	st, err := os.Stat(path) // through a link: --force writes its target
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a directory; give a file name, such as %s", path, filepath.Join(path, "run.gtr"))
	case err == nil && !force:
		return fmt.Errorf("%s exists; use --force to overwrite it", path)
	case err == nil && !st.Mode().IsRegular():
		// --force replaces a regular file's content; a device node, a pipe
		// or a socket is not gputop's to overwrite (nor, when the write
		// fails, to remove: `record -o /dev/full --force` once deleted it).
		return fmt.Errorf("%s is %s; --force overwrites only those", path, recordings.NotRegular(st))
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			// A link to nothing: followed, it would make a file elsewhere;
			// replaced, the link would be lost.
			return fmt.Errorf("%s is a link to a file that does not exist; give the file's own path", path)
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: no directory %s", path, dir)
	}
	return nil
}

// runUI runs the screen until the user quits or ctx ends (a signal).
func runUI(ctx context.Context, src timeline.Source, opts ui.Options) error {
	r := lipgloss.NewRenderer(os.Stdout)
	opts.Plain = os.Getenv("NO_COLOR") != "" || opts.Settings.Colors == "never"
	opts.ASCII = opts.ASCII || opts.Settings.ASCII || asciiOnly(os.Getenv)
	if opts.Plain {
		r.SetColorProfile(termenv.Ascii)
	}
	opts.Source, opts.Renderer = src, r
	// The screen's history grows for the first hours (an hour of 8 GPUs'
	// 580 series at full resolution is about 8 MB, their buckets 5 MB) and
	// holds no pointers the collector must follow: collect at a quarter
	// more than is live, not twice it (a replay asks for less still).
	if was := debug.SetGCPercent(25); was < 25 {
		debug.SetGCPercent(was)
	}
	model := ui.New(opts)
	defer model.Close()
	// At most five frames a second: a sample a second moves the screen
	// once, and a key is drawn at once anyway.
	err := screen.Run(ctx, model, 200*time.Millisecond, !opts.Settings.NoMouse)
	if errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	return err
}

// checkTerminal refuses to start the screen where there is no terminal.
// A terminal too small is not refused: the screen says so and waits to be
// enlarged (or q), as htop does (ui/layout.MinSize).
func checkTerminal() error {
	fd := os.Stdout.Fd()
	if !term.IsTerminal(fd) {
		return errors.New("the live view needs a terminal; for a reading use 'gputop snapshot'")
	}
	if _, _, err := term.GetSize(fd); err != nil {
		return fmt.Errorf("cannot read the terminal's size: %v", err)
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

// startCPUProfile profiles gputop until the returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
