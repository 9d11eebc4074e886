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
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
	"github.com/gputop-dev/gputop/ui/screen"
)

func cmdLive(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "simulate 8 H100s playing `SCENARIO`: "+strings.Join(probes.Scenarios, ", "))
	ascii := fs.Bool("ascii", false, "draw with ASCII only, for terminals without Unicode")
	record := fs.String("record", "", "record the session to `FILE` from the start (r toggles recording)")
	force := fs.Bool("force", false, "with --record, overwrite FILE if it exists")
	logPath := fs.String("log", defaultLogPath(), "write the log to `FILE` (never to the terminal)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of gputop itself to `FILE` (docs/performance.md)")
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
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *record != "" {
		if err := checkNewFile(*record, *force); err != nil {
			return err
		}
	}
	closeLog, err := openLog(*logPath)
	if err != nil {
		return err
	}
	defer closeLog()

	session := probes.OpenPending(probes.SessionConfig{Interval: *interval, Demo: demo.scenario, Seed: 1})
	defer func() {
		if err := session.Close(); err != nil {
			log.Printf("closing: %v", err)
		}
	}()
	// `gputop mark` reaches this session through a socket of its own.
	if dir, err := probes.MarkDir(); err != nil {
		log.Printf("markers from gputop mark: %v", err)
	} else if l, err := probes.ListenMarks(dir, func(text string) { session.MarkFrom("mark", text) }); err != nil {
		log.Printf("markers from gputop mark: %v", err)
	} else {
		defer l.Close()
	}
	rec := newRecorder(session, *force)
	defer func() {
		if err := rec.Stop(); err != nil {
			log.Printf("recording: %v", err)
		}
	}()
	if *record != "" {
		rec.path = *record
		if _, err := rec.Start(); err != nil {
			return err
		}
	}
	log.Printf("gputop %s live, interval %v, demo %q", version, *interval, demo.scenario)
	return runUI(rec, ui.Options{ASCII: *ascii, Recorder: rec})
}

// recorder is the live view's source, and records it to a file while
// asked to (--record, the r key). Recording goes through a recordings.Tee,
// so a slow disk never delays the screen; the file is closed cleanly on
// stop, on quit, and on SIGTERM (which ends the screen like q).
type recorder struct {
	src   timeline.Source
	force bool

	mu     sync.Mutex
	tee    *recordings.Tee
	tap    *hintTap
	path   string // the file being written, or the one to write next
	failed error
}

func newRecorder(src timeline.Source, force bool) *recorder {
	return &recorder{src: src, force: force}
}

// Next takes the next sample, through the Tee while recording.
func (r *recorder) Next(ctx context.Context) (timeline.Sample, error) {
	r.mu.Lock()
	var next timeline.Source = r.src
	tee, tap := r.tee, r.tap
	if tee != nil {
		next = tee
	}
	r.mu.Unlock()
	s, err := next.Next(ctx)
	if err == nil && tee != nil {
		// After the Tee has queued the sample, so the hints follow it.
		if hints, ok := tap.changed(); ok {
			if err := tee.WriteHints(hints); err != nil {
				log.Printf("recording: hints: %v", err)
			}
		}
	}
	return s, err
}

// Info is the session's.
func (r *recorder) Info() timeline.SourceInfo { return r.src.Info() }

// Mark passes a marker from the screen on to the session.
func (r *recorder) Mark(text string) {
	if sink, ok := r.src.(timeline.MarkSink); ok {
		sink.Mark(text)
	}
}

// Start opens a new file (named for the time if none was given) and
// records from the next sample.
func (r *recorder) Start() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tee != nil && r.failed == nil {
		return r.path, nil
	}
	if r.tee != nil {
		// The last recording failed (a full disk); its file holds what was
		// written before. Close it and start a new one.
		if err := r.tee.Stop(); err != nil {
			log.Printf("recording %s: %v", r.path, err)
		}
		r.tee, r.path = nil, ""
	}
	path := r.path
	if path == "" {
		path = "gputop-" + time.Now().Format("20060102-150405") + ".gtr"
	}
	w, err := recordings.Create(path, recordingHeader(r.src.Info(), time.Now()), r.force)
	if err != nil {
		return "", err
	}
	r.path, r.failed = path, nil
	r.tap = newHintTap(r.src)
	r.tee = recordings.NewTee(r.tap, w, func(err error) {
		log.Printf("recording %s stopped: %v", path, err)
		r.mu.Lock()
		r.failed = err
		r.mu.Unlock()
	})
	log.Printf("recording to %s", path)
	return path, nil
}

// Stop closes the file. The next Start picks a new name.
func (r *recorder) Stop() error {
	r.mu.Lock()
	tee, tap := r.tee, r.tap
	r.tee, r.tap = nil, nil
	path := r.path
	r.path = ""
	failed := r.failed
	r.mu.Unlock()
	if tee == nil {
		return nil
	}
	if failed == nil {
		// What gputop says about the recorded stretch goes into the file.
		if err := tee.WriteHints(tap.hints()); err != nil {
			log.Printf("recording %s: hints: %v", path, err)
		}
	}
	err := tee.Stop()
	if n := tee.Dropped(); n > 0 {
		log.Printf("recording %s: %d samples dropped while the disk was slow", path, n)
	}
	return err
}

// State says whether it records, to what, and why it stopped on its own.
func (r *recorder) State() (string, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed != nil {
		return r.path, false, r.failed
	}
	return r.path, r.tee != nil, nil
}

// recordingHeader describes a session in a new file that starts at start.
func recordingHeader(info timeline.SourceInfo, start time.Time) recordings.Header {
	return recordings.Header{Version: version, Info: info, Start: start}
}

// checkNewFile refuses to overwrite a file unless told to, before anything
// starts, so the refusal is the one line a person sees.
func checkNewFile(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; use --force to overwrite it", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: no directory %s", path, dir)
	}
	return nil
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
	// At most five frames a second: a sample a second moves the screen
	// once, and a key is drawn at once anyway.
	// Nothing cancels this yet: SIGHUP, SIGTERM, SIGINT and SIGQUIT are
	// to be caught in main and end the screen through a context.
	err := screen.Run(context.Background(), model, 200*time.Millisecond)
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
