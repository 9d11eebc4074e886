package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/probes/progress"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
	"github.com/gputop-dev/gputop/timeline/units"
)

func cmdRun(e *env) *cobra.Command {
	c := newCommand("run [-o FILE] [--phase-regex RE] [--demo[=SCENARIO]] [--fail-on SEVERITY] -- CMD [ARGS...]",
		"run a job, record it, mark its phases, report when it ends, exit with its code",
		"gputop run -o train.gtr -- python train.py --epochs 10", "gputop run --phase-regex '(epoch \\d+)' -- ./train.sh",
		"gputop run --demo=checkpoint --fail-on critical -- python smoke_train.py")
	fs := c.Flags()
	out := fs.StringP("o", "o", "", "record to `FILE` (default gputop-run-DATE-TIME.gtr)")
	phaseRegex := fs.String("phase-regex", "default", "turn output lines matching `RE` into markers; \"default\" knows common training logs, \"\" turns it off")
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	killAfter := fs.Duration("kill-after", 10*time.Second, "after a hang-up or SIGTERM passed on to the job, or gputop's own death, SIGKILL what is left of it this much later (0: never)")
	var demo demoFlag
	demoVar(fs, &demo, "record 8 simulated H100s playing `SCENARIO` beside the job")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	var failOn failOnFlag
	fs.Var(&failOn, "fail-on", "exit 3 if the job exits 0 but its report has a hint of `SEVERITY` (warning or critical) or worse, listing those hints on stderr")
	readProgress := fs.Bool("progress", true, "read the job's progress from its output (tqdm, Keras, Lightning, Hugging Face, step N, tokens/s): rate, energy and cost per unit in the report")
	progressRegex := fs.String("progress-regex", "", "read progress also from lines matching `RE`, with named groups count and/or rate (and total, unit): '(?P<count>\\d+) batches done'")
	var price prices
	price.register(fs)
	// The job's words, its flags included, come after "--", which ends
	// the parse: cobra hands them over with the arguments before it.
	c.RunE = func(_ *cobra.Command, job []string) error {
		if len(job) == 0 {
			return usageError{"give the command to run after --, e.g. gputop run -- python train.py"}
		}
		if err := checkInterval(*interval); err != nil {
			return err
		}
		if *killAfter < 0 {
			return usageError{"--kill-after must not be negative"}
		}
		var phases *probes.PhaseRules
		switch *phaseRegex {
		case "default":
			phases = probes.DefaultPhases()
		case "":
		default:
			re, err := regexp.Compile(*phaseRegex)
			if err != nil {
				return usageError{"--phase-regex: " + err.Error()}
			}
			phases = probes.PhasesFrom(re)
		}
		parser, err := progressParser(*readProgress, *progressRegex)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := checkNewFile(*out, *force); err != nil {
				return err
			}
		}
		log.SetOutput(io.Discard)

		// Signals are the job's to act on: gputop passes them on and ends when
		// the job does, so the report is written even after a Ctrl-C or a
		// hang-up.
		sigs, stopSignals := e.signals()
		defer stopSignals()
		signal.Ignore(syscall.SIGPIPE)

		// The session, the recording's file and the marker socket come first,
		// so that a path that cannot be written fails before the job starts,
		// and the job's first lines and markers are not lost; the job's tree
		// is named to the session once the job runs.
		tree := probes.NewTreeProbe()
		session, err := openLocal(demo, probes.SessionConfig{Interval: *interval, Job: tree, Command: job},
			func(w string) { fmt.Fprintf(e.stderr, "gputop run: %s\n", w) })
		if err != nil {
			return err
		}
		defer session.close()
		rec := newPipeline(defaultHistoryBudget()).recorder(session, nil, *force, false)
		path := *out
		if path == "" {
			path, err = startFresh(rec, "gputop-run", time.Now())
		} else {
			_, err = rec.Start(path)
		}
		if err != nil {
			return err
		}
		var jobEnv []string
		if l, ok := session.marks.(*marks.Listener); ok {
			jobEnv = append(jobEnv, marks.SocketEnv+"="+l.Path())
		}
		var stdin io.Reader // nil, not a nil *os.File: the job reads /dev/null
		if e.stdin != nil {
			stdin = e.stdin
		}
		// Where gputop's stdout and stderr are one file (a terminal, 2>&1),
		// the job writes both to one pipe, so its lines keep their order.
		jobStderr := e.stderr
		if sameFile(e.stdout, e.stderr) {
			jobStderr = e.stdout
		}
		j, err := probes.StartJob(probes.JobConfig{
			Command: job, Phases: phases, Env: jobEnv, KillAfter: *killAfter,
			OnMarker:   func(text string) { session.MarkFrom("job", text) },
			Progress:   parser,
			OnProgress: func(r progress.Reading) { session.Progress("job", r) },
			Stdin:      stdin, Stdout: e.stdout, Stderr: jobStderr,
		})
		if err != nil {
			if _, stopErr := rec.Stop(); stopErr != nil {
				log.Printf("closing the recording: %v", stopErr)
			}
			return startFailure(e.stderr, job[0], err)
		}
		tree.Watch(j.PID())

		ctx, stopRecording := context.WithCancel(context.Background())
		defer stopRecording()
		recorded := make(chan error, 1)
		go func() { recorded <- rec.Run(ctx, 0) }()

		code, waitErr := superviseJob(j, sigs, *killAfter, e.stderr)
		if err := j.Close(); err != nil {
			fmt.Fprintf(e.stderr, "gputop run: %s\n", oneLine(err))
		}
		// One more sample after the job ends: it carries the markers and the
		// progress of the job's last lines, and a job shorter than a tick gets
		// its recording.
		session.FlushProgress()
		rec.EndAt(time.Now())
		giveUp := time.AfterFunc(2**interval+10*time.Second, stopRecording)
		recErr := <-recorded
		giveUp.Stop()
		sum, stopErr := rec.Stop()
		if waitErr != nil {
			fmt.Fprintf(e.stderr, "gputop run: %s\n", oneLine(waitErr))
		}
		if recErr != nil && sum.Failed == nil {
			fmt.Fprintf(e.stderr, "gputop run: recording: %s\n", oneLine(recErr))
		}
		if sum.Failed != nil || stopErr != nil || sum.Removed {
			reportSummary(e.stderr, sum, stopErr)
		}
		var rep *report.Report
		if !sum.Removed {
			var opts report.ReportOptions
			price.apply(&opts)
			rep = printRunReport(e.stderr, path, opts)
		}
		// The job's own failure says more than any hint: its code wins.
		if code == 0 && rep != nil {
			if err := failOn.check(rep, "gputop run", e.stderr); err != nil {
				return err
			}
		}
		return exitStatus(code)
	}
	return watches(c)
}

// progressParser is the parser of the job's progress that --progress and
// --progress-regex ask for; nil for none.
func progressParser(on bool, expr string) (*progress.Parser, error) {
	if !on {
		if expr != "" {
			return nil, usageError{"--progress-regex with --progress=false: give one or the other"}
		}
		return nil, nil
	}
	if expr == "" {
		return progress.New(nil), nil
	}
	custom, err := progress.NewCustom(expr, "")
	if err != nil {
		return nil, usageError{"--progress-regex: " + err.Error()}
	}
	return progress.New(custom), nil
}

// sameFile says whether two of gputop's streams are open on one file.
func sameFile(a, b io.Writer) bool {
	fa, ok := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok || !ok2 {
		return false
	}
	sa, err := fa.Stat()
	sb, err2 := fb.Stat()
	return err == nil && err2 == nil && os.SameFile(sa, sb)
}

// superviseJob waits for the job to end, passing on the signals gputop
// receives. Ctrl-C and Ctrl-\\ from the terminal are the job's own, as at a
// shell: gputop waits for it as long as it takes. Any other ending signal
// (a hang-up, SIGTERM, or any signal sent to gputop alone) means the
// session is going away: the job is given killAfter to finish, a second
// signal or the end of that time kills what is left of it, and once the
// job has exited, the processes it started that outlive it are given the
// rest of that time and then killed, so none is left orphaned.
func superviseJob(j *probes.Job, sigs <-chan os.Signal, killAfter time.Duration, stderr io.Writer) (int, error) {
	var code int
	var waitErr error
	done := make(chan struct{})
	go func() {
		code, waitErr = j.Wait()
		close(done)
	}()
	var deadline time.Time
	var expired <-chan time.Time
	ending := false
	for {
		select {
		case sig := <-sigs:
			if ending {
				if err := j.Kill(); err != nil {
					fmt.Fprintf(stderr, "gputop run: killing the job: %v\n", err)
				}
				continue
			}
			how, err := j.Signal(sig)
			if err != nil {
				fmt.Fprintf(stderr, "gputop run: passing %v on to the job: %v\n", sig, err)
			}
			if how == probes.ByKeyboard {
				continue
			}
			ending = true
			if killAfter > 0 {
				deadline = time.Now().Add(killAfter)
				expired = time.After(killAfter)
			}
		case <-expired:
			expired = nil
			if err := j.Kill(); err != nil {
				fmt.Fprintf(stderr, "gputop run: killing the job: %v\n", err)
			}
		case <-done:
			if ending && killAfter > 0 {
				ctx, cancel := context.WithDeadline(context.Background(), deadline)
				if n, err := j.EndTree(ctx); n > 0 || err != nil {
					fmt.Fprintf(stderr, "gputop run: killed %s the job left running (%v)\n",
						units.Count(n, "process", "processes"), err)
				}
				cancel()
			}
			return code, waitErr
		}
	}
}

// printRunReport prints the text report of the whole run to stderr, read
// back from the recording at full resolution. After a hang-up nobody reads
// it there; the recording holds the verdict either way. It returns the
// report, nil where there is none, for --fail-on.
func printRunReport(stderr io.Writer, path string, opts report.ReportOptions) *report.Report {
	opts.TextWidth = textWidth(stderr)
	rep, warn, err := reportWith(path, "", "", opts)
	if err != nil {
		fmt.Fprintf(stderr, "gputop run: no report: %s\n", oneLine(err))
		return nil
	}
	fmt.Fprintln(stderr)
	if err := render.Text(stderr, rep); err != nil {
		return rep
	}
	if warn != nil {
		fmt.Fprintf(stderr, "warning: %s\n", oneLine(warn))
	}
	fmt.Fprintf(stderr, "recording: %s (gputop replay %s)\n", path, path)
	return rep
}

// startFailure says why the job could not start, and exits as a shell
// would for it, so that scripts that check for 127 keep working under
// gputop run: 127 for a command that is not found, 126 for one that is
// there but cannot be run.
func startFailure(stderr io.Writer, name string, err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "gputop run: %s: command not found\n", name)
		return exitStatus(127)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR):
		fmt.Fprintf(stderr, "gputop run: %s: cannot run it (%s)\n", name, oneLine(errors.Unwrap(err)))
		return exitStatus(126)
	}
	return err
}
