package main

import (
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/remote"
	"github.com/gputop-dev/gputop/ui"
)

func cmdLive(e *env) *cobra.Command {
	c := newCommand("live [--interval 1s] [--record FILE] [--demo[=SCENARIO]] [--ascii] [--listen ADDRESS] [--hosts LIST [--ssh-command CMD]]",
		"live view of every GPU and the host (the default), or of several hosts",
		"gputop", "gputop --demo=checkpoint", "gputop --record run.gtr --interval 500ms", "gputop --listen 127.0.0.1:9400",
		"gputop --hosts node1,node[2-8] --record job.gtr")
	fs := c.Flags()
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	demoVar(fs, &demo, "simulate 8 H100s playing `SCENARIO`: "+scenarioNames)
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
	memory := fs.String("memory", "", "keep the screen's history within `SIZE` (256MiB, 1GiB; default a 64th of RAM, at most 128MiB), and the hints' within half of it")
	c.RunE = func(_ *cobra.Command, rest []string) error {
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
		pipe := newPipeline(budget)
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
			Store: newLiveStore(budget, live.recallOf())}
		if demo.scenario == "" && !*readonly {
			// A demo's PIDs are made up: they may name real processes here.
			opts.Killer = killer{probes.NewTerminator()}
		}
		uiErr := runUI(ctx, rec, opts)
		live.finish(e.stderr)
		return uiErr
	}
	return watches(c)
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
