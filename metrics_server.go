package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/gputop-dev/gputop/timeline/exporter"
)

// How gputop serve, and the live view and gputop record with --listen,
// serve /metrics: an Exporter fed by the samples the command pulls anyway
// (a sink of the pipeline, under the Recorder: no second sampler), behind
// exporter-toolkit's server for TLS and basic auth.

// defaultListen is loopback: GPU figures and job markers are nobody
// else's business unless the user names another address.
const defaultListen = "127.0.0.1:9400"

// metricsFlags are --listen and --web.config.file of a command.
type metricsFlags struct {
	listen    *string
	webConfig *string
}

// addMetricsFlags defines the flags on fs. def is the address served
// without --listen; "" serves nothing.
func addMetricsFlags(fs *pflag.FlagSet, def string) metricsFlags {
	usage := "serve /metrics on `ADDRESS` (host:port; \":9400\" is every interface)"
	if def == "" {
		usage = "serve Prometheus /metrics as gputop serve does, on `ADDRESS` (host:port, such as " + defaultListen + "; \":9400\" is every interface)"
	}
	return metricsFlags{
		listen: fs.String("listen", def, usage),
		webConfig: fs.String("web.config.file", "",
			"TLS and basic auth from `FILE`, in exporter-toolkit's web configuration format (as node_exporter)"),
	}
}

// on says whether the command serves /metrics.
func (f metricsFlags) on() bool { return *f.listen != "" }

// check refuses a malformed address or web configuration before anything
// starts.
func (f metricsFlags) check() error {
	if !f.on() {
		if *f.webConfig != "" {
			return usageError{"--web.config.file configures --listen's server; give --listen ADDRESS too"}
		}
		return nil
	}
	if err := checkListen(*f.listen); err != nil {
		return err
	}
	if *f.webConfig != "" {
		if err := web.Validate(*f.webConfig); err != nil {
			return usageError{fmt.Sprintf("--web.config.file %s: %v", *f.webConfig, err)}
		}
	}
	return nil
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

// listenMetrics takes the port, so an address that cannot be served fails
// in one line before anything is sampled: a host that is not this
// machine's is a usage error (2), a port in use or forbidden a failure (1).
func listenMetrics(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err == nil {
		return l, nil
	}
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("--listen %s: the port is in use", addr)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("--listen %s: no permission to listen on that port", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, usageError{fmt.Sprintf("--listen %s: not an address of this machine", addr)}
	case errors.As(err, &dns):
		return nil, usageError{fmt.Sprintf("--listen %s: no host %s", addr, dns.Name)}
	}
	return nil, fmt.Errorf("--listen %s: %v", addr, err)
}

// metricsServer serves an Exporter's /metrics on a listener.
type metricsServer struct {
	server *http.Server
	done   chan struct{} // closed when serving has ended
	err    error         // why it ended, if not by Close; read after done
}

// Bounds on one connection, so that slow or stalled clients cannot hold
// the Exporter's few scrape slots (exporter.Options.MaxScrapes) for long:
// a scrape is answered from memory in about a millisecond.
const (
	metricsHeaderTimeout = 10 * time.Second
	metricsWriteTimeout  = 30 * time.Second
	metricsIdleTimeout   = 2 * time.Minute
)

// startMetrics serves exp on l until Close, with TLS and basic auth from
// webConfig if it is not "". exporter-toolkit's own messages (a bad
// certificate at a handshake) go to logTo as warnings.
func startMetrics(l net.Listener, exp *exporter.Exporter, webConfig string, logTo io.Writer) *metricsServer {
	m := &metricsServer{
		server: &http.Server{Handler: serveMux(exp), ReadHeaderTimeout: metricsHeaderTimeout,
			WriteTimeout: metricsWriteTimeout, IdleTimeout: metricsIdleTimeout},
		done: make(chan struct{}),
	}
	addr := l.Addr().String()
	go func() {
		defer close(m.done)
		logger := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn}))
		err := web.Serve(l, m.server, &web.FlagConfig{
			WebListenAddresses: &[]string{addr}, WebSystemdSocket: new(bool), WebConfigFile: &webConfig,
		}, logger)
		if !errors.Is(err, http.ErrServerClosed) {
			m.err = err
		}
	}()
	return m
}

// Done is closed when serving has ended; Err then says why (nil after
// Close).
func (m *metricsServer) Done() <-chan struct{} { return m.done }

// Err is why serving ended on its own; nil while it serves or after Close.
func (m *metricsServer) Err() error {
	select {
	case <-m.done:
		return m.err
	default:
		return nil
	}
}

// Close stops serving, letting scrapes under way finish for a moment.
func (m *metricsServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = m.server.Shutdown(ctx)
	<-m.done
}

// serveMux serves /metrics, and a page at / that links to it.
func serveMux(exp *exporter.Exporter) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", exp.Handler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>gputop</title></head><body><h1>gputop</h1><p><a href="metrics">Metrics</a></p></body></html>`)
	})
	return mux
}

// sideMetrics is --listen of a command that samples for its own sake (the
// live view, gputop record): the Exporter taps the samples on their way to
// the Recorder, so /metrics shows the samples the screen and the file get,
// from the one sampler. A nil *sideMetrics serves nothing.
type sideMetrics struct {
	flags    metricsFlags
	listener net.Listener
	exp      *exporter.Exporter
	server   *metricsServer
}

// openSideMetrics takes the port of --listen, if given, before anything
// is sampled.
func openSideMetrics(f metricsFlags, p *pipeline) (*sideMetrics, error) {
	if !f.on() {
		return nil, nil
	}
	l, err := listenMetrics(*f.listen)
	if err != nil {
		return nil, err
	}
	return &sideMetrics{flags: f, listener: l, exp: p.exporter()}, nil
}

// exporter is the Exporter the pipeline feeds, nil when there is none.
func (s *sideMetrics) exporter() *exporter.Exporter {
	if s == nil {
		return nil
	}
	return s.exp
}

// start serves /metrics. If serving ends on its own (the listener
// fails), failed is called with why, from another goroutine; the samples
// go on.
func (s *sideMetrics) start(logTo io.Writer, failed func(error)) {
	if s == nil {
		return
	}
	s.server = startMetrics(s.listener, s.exp, *s.flags.webConfig, logTo)
	go func() {
		<-s.server.Done()
		if err := s.server.Err(); err != nil {
			failed(err)
		}
	}()
}

// addr is the address served.
func (s *sideMetrics) addr() string { return s.listener.Addr().String() }

// Close stops serving.
func (s *sideMetrics) Close() {
	if s == nil {
		return
	}
	if s.server != nil {
		s.server.Close()
	}
	s.listener.Close()
}
