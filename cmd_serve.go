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

func cmdServe(e *env) *cobra.Command {
	c := newCommand("serve [--listen 127.0.0.1:9400] [--interval 1s] [--demo[=SCENARIO] [--demo-from D]] [-o FILE] [--web.config.file FILE]",
		"sample without a screen and serve Prometheus /metrics under dcgm-exporter's names",
		"gputop serve", "gputop serve --demo=imbalance --listen 127.0.0.1:9401 -o node.gtr")
	fs := c.Flags()
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	demoVar(fs, &demo, "serve 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	fs.DurationVar(&demo.from, "demo-from", 0, "with --demo: start the scenario's script `D` in (try an alert on the faults demo's Xid 48, due at 1m40s, with 90s)")
	out := fs.StringP("o", "o", "", "record to `FILE` as well, as gputop record does")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	metrics := addMetricsFlags(fs, defaultListen)
	c.RunE = func(_ *cobra.Command, rest []string) error {
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
		}
		if demo.from != 0 && (demo.scenario == "" || demo.from < 0) {
			return usageError{"--demo-from starts a demo's script later; it needs --demo and a duration of 0 or more"}
		}
		if err := metrics.check(); err != nil {
			return err
		}
		if err := checkInterval(*interval); err != nil {
			return err
		}
		if *out != "" {
			if err := checkNewFile(*out, *force); err != nil {
				return err
			}
		}
		log.SetOutput(io.Discard)

		// The port first: an address in use fails in one line before anything
		// is sampled.
		listener, err := listenMetrics(*metrics.listen)
		if err != nil {
			return err
		}
		defer listener.Close()

		ctx, stopSignals := endOnSignal(e)
		defer stopSignals()
		session, err := openLocal(demo, probes.SessionConfig{Interval: *interval}, func(w string) {
			fmt.Fprintf(e.stderr, "gputop serve: %s\n", w)
		})
		if err != nil {
			return err
		}
		defer session.close()
		// Samples reach the exporter on their way to the Recorder that gputop
		// record uses, so serve -o writes what record writes.
		pipe := newPipeline(defaultHistoryBudget())
		exp := pipe.exporter()
		rec := pipe.recorder(session, exp, *force, false)
		if *out != "" {
			if _, err := rec.Start(*out); err != nil {
				return err
			}
		}

		// exporter-toolkit says only what goes wrong (a bad certificate at a
		// handshake); the listening line is ours.
		server := startMetrics(listener, exp, *metrics.webConfig, e.stderr)
		fmt.Fprintf(e.stderr, "gputop serve: /metrics on %s\n", listener.Addr())

		runCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		go func() {
			<-server.Done()
			if err := server.Err(); err != nil {
				cancel(err)
			}
		}()
		if err := session.Wait(runCtx); err == nil {
			for _, n := range session.Info().Notes {
				printNote(e.stderr, n)
			}
		}
		runErr := rec.Run(runCtx, 0)
		server.Close()
		sum, stopErr := rec.Stop()
		reportSummary(e.stderr, sum, stopErr)
		serveErr := context.Cause(runCtx)
		switch {
		case serveErr != nil && context.Cause(ctx) == nil:
			return fmt.Errorf("serving: %w", serveErr)
		case runErr != nil && sum.Failed == nil:
			return runErr
		case sum.Failed != nil || stopErr != nil:
			return exitStatus(exitError) // said by reportSummary
		}
		return nil
	}
	return watches(c)
}
