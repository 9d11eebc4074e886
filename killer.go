package main

import (
	"syscall"
	"time"

	"github.com/gputop-dev/gputop/probes"
)

// killer is the screen's k: probes' Terminator, which pins the process (a
// pidfd) and checks its owner and start before it signals.
type killer struct{ t *probes.Terminator }

// killSignals are those k offers, as htop's F9 list starts: TERM first.
var killSignals = []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL, syscall.SIGUSR1, syscall.SIGUSR2}

// Signals is what the screen's k offers.
func (k killer) Signals() []syscall.Signal { return killSignals }

// Signal sends sig to pid through the Terminator's checks.
func (k killer) Signal(pid int, started time.Time, sig syscall.Signal) error {
	return k.t.Signal(pid, started, sig)
}
