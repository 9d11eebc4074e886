package main

import (
	"fmt"
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/probes"
)

// killer is the screen's k: probes' Terminator, which pins the process (a
// pidfd) and checks its owner and start before it signals. It offers
// htop's signals where the Terminator can send any signal, SIGTERM alone
// where it has Terminate only.
type killer struct{ t *probes.Terminator }

// anySignal is a Terminator that sends any signal, with the same checks.
type anySignal interface {
	Signal(pid int, started time.Time, sig syscall.Signal) error
}

// killSignals are those k offers, as htop's F9 list starts: TERM first.
var killSignals = []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL, syscall.SIGUSR1, syscall.SIGUSR2}

// Signals is what the screen's k offers.
func (k killer) Signals() []syscall.Signal {
	if _, ok := any(k.t).(anySignal); ok {
		return killSignals
	}
	return killSignals[:1]
}

// Signal sends sig to pid through the Terminator's checks.
func (k killer) Signal(pid int, started time.Time, sig syscall.Signal) error {
	if s, ok := any(k.t).(anySignal); ok {
		return s.Signal(pid, started, sig)
	}
	if sig != syscall.SIGTERM {
		return fmt.Errorf("signal %d: this gputop sends SIGTERM only", int(sig))
	}
	return k.t.Terminate(pid, started)
}
