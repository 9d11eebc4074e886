package probes

import (
	"context"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Probe reads one source of metrics: one GPU, the host, gputop itself.
// A GPU is a probe of its own so that one hung GPU is marked late while the
// other seven are read on time.
type Probe interface {
	// Name is the probe's name in statuses and logs: "nvml", "host", "procs".
	Name() string
	// Device is the one device the probe reads ("gpu3"), or "".
	Device() string
	// Collect reads once. The sampler never calls it again while an earlier
	// call is still running, and gives up waiting when ctx is done. A
	// Reading may come with an error: the metrics that could be read are
	// kept, and the error is shown.
	Collect(ctx context.Context) (Reading, error)
}

// Reading is what one probe found on one tick.
type Reading struct {
	Metrics   []timeline.Metric
	Processes []timeline.Process
	// Lost says the device is gone for good (a GPU that fell off the bus):
	// the sampler reports it lost on every later tick and never asks again.
	Lost bool
}

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

// ProcessInfo is what the host knows of one process.
type ProcessInfo struct {
	User    string
	Command string
	CPU     float64 // % of one core since the previous lookup of this PID; NaN at first
	RSS     float64 // bytes
	// Started is when the process started; zero if unknown.
	Started time.Time
	// Workload is the container, pod, Slurm job or session its cgroup
	// names.
	Workload *timeline.Workload
}

// ProcessLookup finds the host's view of a process by PID. The real one
// reads /proc; the demo's answers from its script.
type ProcessLookup interface {
	Lookup(pid int) (ProcessInfo, bool)
}
