package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline/exporter"
)

// defaultListen is loopback: GPU figures and job markers are nobody
// else's business unless the user names another address.
const defaultListen = "127.0.0.1:9400"

func cmdServe(args []string, e *env) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", defaultListen, "serve /metrics on `ADDRESS` (host:port; \":9400\" is every interface)")
	interval := fs.Duration("interval", time.Second, "time between samples (at least 100ms)")
	var demo demoFlag
	fs.Var(&demo, "demo", "serve 8 simulated H100s playing `SCENARIO`: "+scenarioNames)
	out := fs.String("o", "", "record to `FILE` as well, as gputop record does")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	webConfig := fs.String("web.config.file", "", "TLS and basic auth from `FILE`, in exporter-toolkit's web configuration format (as node_exporter)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	if err := checkListen(*listen); err != nil {
		return err
	}
	if err := checkInterval(*interval); err != nil {
		return err
	}
	if *webConfig != "" {
		if err := web.Validate(*webConfig); err != nil {
			return usageError{fmt.Sprintf("--web.config.file %s: %v", *webConfig, err)}
		}
	}
	if *out != "" {
		if err := checkNewFile(*out, *force); err != nil {
			return err
		}
	}
	log.SetOutput(io.Discard)

	// The port first: an address in use fails in one line before anything
	// is sampled.
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	defer listener.Close()

	ctx, stopSignals := endOnSignal(e)
	defer stopSignals()
	clock := probes.RealClock{}
	machine, err := demo.machine(clock)
	if err != nil {
		return err
	}
	session := probes.OpenPending(probes.SessionConfig{Interval: *interval, Machine: machine, Clock: clock})
	defer closeSession(session)
	exp := exporter.New(exporter.Options{Version: version})
	// Samples reach the exporter on their way through the Recorder that
	// gputop record uses, so serve -o writes what record writes.
	rec := recordings.NewRecorder(exp.Tap(session), recorderOptions(*force, false))
	if *out != "" {
		if _, err := rec.Start(*out); err != nil {
			return err
		}
	}
	marks, warning := openMarks(session)
	defer marks.Close()
	if warning != "" {
		fmt.Fprintf(e.stderr, "gputop serve: %s\n", warning)
	}

	served := make(chan error, 1)
	server := &http.Server{Handler: serveMux(exp), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		// exporter-toolkit says only what goes wrong (a bad certificate
		// at a handshake); the listening line is ours.
		logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		served <- web.Serve(listener, server, &web.FlagConfig{
			WebListenAddresses: &[]string{*listen}, WebSystemdSocket: new(bool), WebConfigFile: webConfig,
		}, logger)
	}()
	fmt.Fprintf(e.stderr, "gputop serve: /metrics on %s\n", listener.Addr())

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			cancel(err)
		}
	}()
	if err := session.Wait(runCtx); err == nil {
		for _, n := range session.Info().Notes {
			printNote(e.stderr, n)
		}
	}
	runErr := rec.Run(runCtx, 0)
	shutdown, done := context.WithTimeout(context.Background(), 2*time.Second)
	defer done()
	_ = server.Shutdown(shutdown)
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

// serveMux serves /metrics, and a page at / that links to it.
func serveMux(exp *exporter.Exporter) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", exp.Handler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>gputop</title></head><body><h1>gputop serve</h1><p><a href="metrics">Metrics</a></p></body></html>`)
	})
	return mux
}

// checkListen refuses an address that is not host:port with a port
// number, before anything starts.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Sprintf("--listen %q is not HOST:PORT, such as %s", addr, defaultListen)}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usageError{fmt.Sprintf("--listen %q: the port must be a number from 0 to 65535", addr)}
	}
	return nil
}
