package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/probes"
)

func cmdRecord(e *env) *cobra.Command {
	c := newCommand("record -o FILE [--duration D] [--interval I] [--demo[=SCENARIO]] [--fast] [--listen ADDRESS]",
		"record without a screen; Ctrl-C or SIGTERM closes the file cleanly",
		"gputop record -o run.gtr --duration 2h", "gputop record --demo=checkpoint --fast --duration 10m -o ck.gtr",
		"gputop record -o run.gtr --listen 127.0.0.1:9400")
	fs := c.Flags()
	out := fs.StringP("o", "o", "", "write the recording to `FILE` (required)")
	duration := fs.Duration("duration", 0, "stop on the last sample within this long (default: until Ctrl-C, SIGTERM or a hang-up)")
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	demoVar(fs, &demo, "record 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	fast := fs.Bool("fast", false, "with --demo: run the simulated clock as fast as it goes")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	metrics := addMetricsFlags(fs, "")
	c.RunE = func(_ *cobra.Command, rest []string) error {
		switch {
		case len(rest) > 0:
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		case *out == "":
			return usageError{"-o FILE is required"}
		case *fast && demo.scenario == "":
			return usageError{"--fast runs a demo's simulated clock; it needs --demo"}
		case *fast && *duration <= 0:
			return usageError{"--fast needs --duration: simulated time never ends by itself"}
		case *duration < 0 || (*duration == 0 && fs.Changed("duration")):
			return usageError{"--duration must be more than 0 (without it: until Ctrl-C)"}
		}
		if err := checkInterval(*interval); err != nil {
			return err
		}
		if err := metrics.check(); err != nil {
			return err
		}
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
		log.SetOutput(io.Discard)
		pipe := newPipeline(defaultHistoryBudget())
		side, err := openSideMetrics(metrics, pipe)
		if err != nil {
			return err
		}
		defer side.Close()

		var clock probes.Clock = probes.RealClock{}
		if *fast {
			clock = probes.NewFastClock(time.Now().Truncate(time.Second))
		}
		ctx, stopSignals := endOnSignal(e)
		defer stopSignals()
		session, err := openLocal(demo, probes.SessionConfig{Interval: *interval, Clock: clock}, func(w string) {
			fmt.Fprintf(e.stderr, "gputop record: %s\n", w)
		})
		if err != nil {
			return err
		}
		defer session.close()
		// A fast demo has no screen to keep up with: every sample is written
		// before the next is taken, and none is dropped.
		rec := pipe.recorder(session, side.exporter(), *force, *fast)
		// The file first: a path that cannot be written fails before anything
		// is sampled.
		if _, err := rec.Start(*out); err != nil {
			return err
		}
		if side != nil {
			// The recording is what was asked for: a server that fails says so
			// and the recording goes on.
			side.start(e.stderr, func(err error) {
				fmt.Fprintf(e.stderr, "gputop record: /metrics no longer served: %s\n", oneLine(err))
			})
			fmt.Fprintf(e.stderr, "gputop record: /metrics on %s\n", side.addr())
		}
		if err := session.Wait(ctx); err == nil {
			for _, n := range session.Info().Notes {
				printNote(e.stderr, n)
			}
		}
		runErr := rec.Run(ctx, *duration)
		sum, err := rec.Stop()
		reportSummary(e.stderr, sum, err)
		switch {
		case runErr != nil && sum.Failed == nil:
			return runErr
		case sum.Failed != nil || err != nil:
			return exitStatus(exitError) // said by reportSummary
		case context.Cause(ctx) != nil && sum.Samples == 0:
			return exitStatus(exitError) // ended before the first sample: said above
		}
		return nil
	}
	return watches(c)
}
