package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// endSignals are the ways a session is ended from outside: Ctrl-C, a kill,
// Ctrl-\, and a hang-up, the common end of a session over SSH. Every
// command that runs for a while handles all four in the same way: it stops
// sampling, closes its recording with its index and verdict, and restores
// the terminal. gputop run also passes them on to its job (cmd_run.go).
var endSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT}

// notifyEndSignals delivers endSignals on the returned channel, instead of
// letting them kill gputop, until stop is called.
func notifyEndSignals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, endSignals...)
	return ch, func() { signal.Stop(ch) }
}

// signalError is the cause of a context ended by a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return fmt.Sprintf("ended by %v", e.sig) }

// exitCode is what a shell reports for a process a signal ended.
func (e signalError) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitError
}

// endOnSignal returns a context that ends at the first of endSignals, with
// a signalError as its cause. A second signal, when ending cleanly takes
// too long for the person sending it (a disk that hangs), exits at once:
// what was recorded before the last flush stays readable.
func endOnSignal(e *env) (context.Context, func()) {
	sigs, stopSignals := e.signals()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalError{sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			e.exit(signalError{sig}.exitCode())
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		stopSignals()
		cancel(nil)
	}
}
