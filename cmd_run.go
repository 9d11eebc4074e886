package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// exitStatus is an error that carries the exit code gputop must end with:
// `gputop run` ends with its job's.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func cmdRun(args []string, stdout io.Writer) error {
	// Everything after "--" is the job's, flags included.
	ours, job := args, []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		ours, job = args[:i], args[i+1:]
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("o", "", "record to `FILE` (default gputop-run-DATE-TIME.gtr)")
	phaseRegex := fs.String("phase-regex", "default", "turn output lines matching `RE` into markers; \"default\" knows common training logs, \"\" turns it off")
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "record 8 simulated H100s playing `SCENARIO` beside the job")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	rest, err := parseFlags(fs, ours)
	if err != nil {
		return err
	}
	job = append(rest, job...)
	if len(job) == 0 {
		return usageError{"give the command to run after --, e.g. gputop run -- python train.py"}
	}
	if err := checkInterval(*interval); err != nil {
		return err
	}
	var re *regexp.Regexp
	switch *phaseRegex {
	case "default":
		re = probes.DefaultPhaseRegex
	case "":
	default:
		if re, err = regexp.Compile(*phaseRegex); err != nil {
			return usageError{"--phase-regex: " + err.Error()}
		}
	}
	path := *out
	if path == "" {
		path = "gputop-run-" + time.Now().Format("20060102-150405") + ".gtr"
	}
	if err := checkNewFile(path, *force); err != nil {
		return err
	}
	log.SetOutput(io.Discard)

	// Signals are the job's to act on: gputop passes them on and ends when
	// the job does, so the report is printed even after a Ctrl-C.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Stop(signals)

	// The job starts first, so its process tree can be sampled from the
	// first tick; the GPUs are found meanwhile (NVML's init can take a
	// second) and markers wait for them.
	var session *probes.PendingSession
	marks := &markRelay{}
	var listener *probes.MarkListener
	env := []string{}
	if dir, err := probes.MarkDir(); err == nil {
		if listener, err = probes.ListenMarks(dir, func(text string) { marks.mark("mark", text) }); err == nil {
			env = append(env, probes.MarkSocketEnv+"="+listener.Path())
			defer listener.Close()
		}
	}
	j, err := probes.StartJob(probes.JobConfig{
		Command: job, PhaseRegex: re, Env: env,
		OnMarker: func(text string) { marks.mark("job", text) },
		Stdin:    os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	})
	if err != nil {
		return err
	}
	tree := probes.NewTreeProbe(j.PID())
	session = probes.OpenPending(probes.SessionConfig{Interval: *interval, Demo: demo.scenario, Seed: 1,
		Extra: []probes.Probe{tree}})
	marks.attach(session)
	src := &jobSource{src: session, tree: tree, command: job}
	rec := &runRecording{path: path, force: *force}

	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan error, 1)
	go func() { sampled <- rec.run(ctx, src) }()

	done := make(chan struct{})
	var code int
	var waitErr error
	go func() {
		code, waitErr = j.Wait()
		close(done)
	}()
wait:
	for {
		select {
		case sig := <-signals:
			if err := j.Signal(sig); err != nil {
				fmt.Fprintf(os.Stderr, "gputop run: passing %v on to the job: %v\n", sig, err)
			}
		case <-done:
			break wait
		}
	}
	// One more sample after the job ends: it carries the markers of the
	// job's last lines, and a job shorter than a tick gets its recording.
	ended := time.Now()
	for deadline := ended.Add(2**interval + 10*time.Second); time.Now().Before(deadline); {
		if last := rec.lastSample(); !last.Before(ended) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	recErr := <-sampled
	if err := session.Close(); err != nil {
		log.Printf("closing: %v", err)
	}
	if waitErr != nil {
		fmt.Fprintf(os.Stderr, "gputop run: %v\n", waitErr)
	}
	if recErr != nil {
		fmt.Fprintf(os.Stderr, "gputop run: recording stopped: %v\n", recErr)
	}
	printRunReport(path)
	return exitStatus(code)
}

// printRunReport prints the text report of the whole run to stderr, read
// back from the recording at full resolution.
func printRunReport(path string) {
	rep, warn, err := reportOf(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gputop run: no report: %v\n", err)
		return
	}
	fmt.Fprintln(os.Stderr)
	if err := rep.WriteText(os.Stderr); err != nil {
		return
	}
	if warn != nil {
		fmt.Fprintf(os.Stderr, "warning: %v\n", warn)
	}
	fmt.Fprintf(os.Stderr, "recording: %s (gputop replay %s)\n", path, path)
}

// markRelay holds markers that arrive before the session exists.
type markRelay struct {
	mu      sync.Mutex
	session *probes.PendingSession
	early   []pendingMark
}

type pendingMark struct{ origin, text string }

func (r *markRelay) mark(origin, text string) {
	if s := r.sessionNow(); s != nil {
		s.MarkFrom(origin, text)
		return
	}
	r.mu.Lock()
	r.early = append(r.early, pendingMark{origin, text})
	r.mu.Unlock()
}

func (r *markRelay) sessionNow() *probes.PendingSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.session
}

func (r *markRelay) attach(s *probes.PendingSession) {
	r.mu.Lock()
	r.session = s
	early := r.early
	r.early = nil
	r.mu.Unlock()
	for _, m := range early {
		s.MarkFrom(m.origin, m.text)
	}
}

// jobSource is the session's samples with the job's GPU processes marked,
// where NVML reports them: the job is the tree of processes gputop started.
type jobSource struct {
	src     timeline.Source
	tree    *probes.TreeProbe
	command []string
}

func (j *jobSource) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := j.src.Next(ctx)
	if err != nil || s.Processes == nil {
		return s, err
	}
	pids := j.tree.PIDs()
	for i := range s.Processes {
		s.Processes[i].InJob = slices.Contains(pids, s.Processes[i].PID)
	}
	return s, nil
}

func (j *jobSource) Info() timeline.SourceInfo {
	info := j.src.Info()
	info.Command = j.command
	return info
}

// runRecording records the run through a Tee, and at the end writes the
// hints over the whole run into the file: what gputop said about the job.
type runRecording struct {
	path  string
	force bool
	mu    sync.Mutex
	last  time.Time // the newest sample recorded
}

func (r *runRecording) recorded(at time.Time) {
	r.mu.Lock()
	r.last = at
	r.mu.Unlock()
}

func (r *runRecording) lastSample() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

func (r *runRecording) run(ctx context.Context, src timeline.Source) error {
	// The first sample says what was found (NVML may take a moment), so
	// the file is created when it arrives, with the session's description.
	first, err := src.Next(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	w, err := recordings.Create(r.path, recordingHeader(src.Info(), first.At), r.force)
	if err != nil {
		return err
	}
	if err := w.Write(&first); err != nil {
		w.Close()
		return err
	}
	r.recorded(first.At)
	tap := newHintTap(src)
	tap.add(&first)
	failed := make(chan error, 1)
	tee := recordings.NewTee(tap, w, func(err error) { failed <- err })
	var recErr error
	for recErr == nil {
		s, err := tee.Next(ctx)
		if err != nil {
			break
		}
		r.recorded(s.At)
		if hints, ok := tap.changed(); ok {
			if err := tee.WriteHints(hints); err != nil {
				log.Printf("hints: %v", err)
			}
		}
		select {
		case recErr = <-failed:
		default:
		}
	}
	if recErr == nil {
		if err := tee.WriteHints(tap.hints()); err != nil {
			log.Printf("hints: %v", err)
		}
	}
	if err := tee.Stop(); recErr == nil {
		recErr = err
	}
	return recErr
}

// hintTap keeps what passes through in a store, so that the hints over the
// whole recording can be written into it at the end.
type hintTap struct {
	src   timeline.Source
	mu    sync.Mutex // the store is filled by the puller, judged by whoever stops
	store *timeline.Store

	judged time.Time       // the snapshotEvery step last judged
	shown  []timeline.Hint // the last set changed returned
}

// snapshotEvery is how often, in sample time, a recording's hints are
// judged again. The screen judges every 5 s; a file keeps only the
// changes, and 30 s is a window, the shortest stretch a rule judges.
const snapshotEvery = 30 * time.Second

// hintTapRaw keeps a day at full resolution: the hints of a longer run are
// judged from coarser buckets for what is older, and memory stays bounded.
const hintTapRaw = 86400

func newHintTap(src timeline.Source) *hintTap {
	return &hintTap{src: src, store: timeline.NewStore(timeline.StoreOptions{RawSamples: hintTapRaw})}
}

func (t *hintTap) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := t.src.Next(ctx)
	if err == nil {
		t.add(&s)
	}
	return s, err
}

func (t *hintTap) add(s *timeline.Sample) {
	t.mu.Lock()
	t.store.Add(s)
	t.mu.Unlock()
}

func (t *hintTap) Info() timeline.SourceInfo { return t.src.Info() }

// changed judges the hints shown at the newest sample, at most once per
// snapshotEvery of sample time, and returns them when they name other
// problems than the last set returned: what a recording keeps as the job
// runs, so a file cut short by SIGKILL still has what gputop said.
func (t *hintTap) changed() ([]timeline.Hint, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.store.Len() == 0 {
		return nil, false
	}
	at := t.store.Last()
	step := at.Truncate(snapshotEvery)
	if !step.After(t.judged) {
		return nil, false
	}
	t.judged = step
	hints := timeline.ActiveHints(t.store, t.src.Info(), at, timeline.DefaultHintOptions())
	if timeline.SameHints(hints, t.shown) {
		return nil, false
	}
	t.shown = hints
	return hints, true
}

// hints judges the whole recording.
func (t *hintTap) hints() []timeline.Hint {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.store.Len() == 0 {
		return nil
	}
	return timeline.EvaluateHints(t.store, t.src.Info(), t.store.First(), t.store.Last(), timeline.DefaultHintOptions())
}

func cmdMark(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mark", flag.ContinueOnError)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(rest, " "))
	if text == "" {
		return usageError{"give the marker's text, e.g. gputop mark 'eval start'"}
	}
	dir, err := probes.MarkDir()
	if err != nil {
		return err
	}
	n, err := probes.SendMark(dir, text)
	if err != nil && n == 0 {
		return err
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gputop mark: %v\n", err)
	}
	fmt.Fprintf(stdout, "marked %q in %d gputop session(s)\n", text, n)
	return nil
}
