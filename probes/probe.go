package probes

import (
	"context"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/probes/probe"
)

// The probe contract lives in probes/probe, below both this package and
// probes/nvidia, so that the NVML probe, which OpenSession lists, can
// implement it without importing probes. These names keep it where the
// sampler, the sessions, the demo and the commands have always found it.

// Probe is probe.Probe: one source of metrics that the sampler collects.
type Probe = probe.Probe

// Reading is probe.Reading: what one probe found on one tick.
type Reading = probe.Reading

// ProcessInfo is probe.ProcessInfo: what the host knows of one process.
type ProcessInfo = probe.ProcessInfo

// ProcessLookup is probe.ProcessLookup: the host's view of a process by
// PID, which the NVML process probe asks for.
type ProcessLookup = probe.ProcessLookup

// Clock is the sampler's time. The real clock sleeps; a simulated one (demo
// with --fast) jumps, so a ten-minute scenario records in a second. Demo
// scenarios read the same clock, so what they play matches the samples'
// times either way.
type Clock interface {
	Now() time.Time
	// SleepUntil returns when t has come, or ctx's error.
	SleepUntil(ctx context.Context, t time.Time) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// SleepUntil sleeps until t.
func (RealClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FastClock is simulated time that jumps to wherever it is asked to sleep
// until, for recording a demo as fast as the probes can run.
type FastClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFastClock starts simulated time at start.
func NewFastClock(start time.Time) *FastClock { return &FastClock{now: start} }

// Now is the simulated time.
func (c *FastClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// SleepUntil moves simulated time to t at once (never backwards).
func (c *FastClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	c.mu.Unlock()
	return ctx.Err()
}
