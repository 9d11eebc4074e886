package nvidia

import (
	"math"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which the syscall package does not
// name: the calling thread's usage alone.
const rusageThread = 1

// threadCPU is the calling thread's CPU time so far, user and system.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// threadCPUSum adds up the calling thread's CPU time over the spans between
// start and stop; the caller keeps to one thread (runtime.LockOSThread).
type threadCPUSum struct {
	t0, sum time.Duration
	broken  bool // the system would not tell once: no sum
}

func (c *threadCPUSum) start() {
	t, ok := threadCPU()
	c.t0, c.broken = t, c.broken || !ok
}

func (c *threadCPUSum) stop() {
	t, ok := threadCPU()
	c.sum += t - c.t0
	c.broken = c.broken || !ok
}

// perCallUS is the sum over calls, in µs to 0.01; nil where it is unknown.
func (c *threadCPUSum) perCallUS(calls int) *float64 {
	if c.broken || calls <= 0 {
		return nil
	}
	us := math.Round(float64(c.sum)/float64(time.Microsecond)/float64(calls)*100) / 100
	return &us
}
