package probes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"syscall"

	"github.com/gputop-dev/gputop/timeline"
)

// selfProbe reads gputop's own cost: the CPU time it has used and its
// resident memory, so the screen can show that the profiler stays cheap.
type selfProbe struct {
	metrics [2]timeline.Metric
	buf     []byte
}

// NewSelfProbe returns the probe of gputop itself: name "self", device
// timeline.SelfDevice, with ProcCPUSecs (user + system seconds, a counter)
// and ProcRSS (bytes).
func NewSelfProbe() Probe {
	p := &selfProbe{}
	p.metrics[0] = timeline.Metric{Key: timeline.Key{Name: timeline.ProcCPUSecs, Device: timeline.SelfDevice}, Kind: timeline.Counter}
	p.metrics[1] = timeline.Metric{Key: timeline.Key{Name: timeline.ProcRSS, Device: timeline.SelfDevice}, Kind: timeline.Gauge}
	return p
}

// Name is "self".
func (p *selfProbe) Name() string { return "self" }

// Device is timeline.SelfDevice.
func (p *selfProbe) Device() string { return timeline.SelfDevice }

// Collect reads the CPU time from getrusage, which counts in microseconds:
// /proc's clock ticks (10 ms) would be too coarse to tell 0.5 % of a core
// from 1 % over one second. The RSS comes from /proc/self/stat.
func (p *selfProbe) Collect(context.Context) (Reading, error) {
	var errs []error
	cpuSecs := math.NaN()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		errs = append(errs, fmt.Errorf("getrusage: %w", err))
	} else {
		cpuSecs = timevalSeconds(ru.Utime) + timevalSeconds(ru.Stime)
	}
	rss := math.NaN()
	var err error
	p.buf, err = readFileInto("/proc/self/stat", p.buf)
	if err == nil {
		var st pidStat
		if st, err = parsePidStat(p.buf); err == nil {
			rss = float64(st.rssPages) * pageSize
		}
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("rss: %w", err))
	}
	p.metrics[0].Value, p.metrics[1].Value = cpuSecs, rss
	return Reading{Metrics: p.metrics[:]}, errors.Join(errs...)
}

func timevalSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}
