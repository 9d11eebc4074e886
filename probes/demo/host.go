package demo

import (
	"context"
	"math"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// The demo's simulated host: a 32-core, 512 GB machine whose per-core load,
// iowait, disk traffic and memory the scenario scripts. It writes the same
// metrics as the real host probe, and its counters are exact integrals of
// the script, so timeline.Derive recovers the scripted percentages and rates.

const (
	demoCores    = 32
	demoHostMem  = 512 * gib
	demoSwap     = 8 * gib
	demoSwapUsed = 12 << 20 // a little swap in use, as on most long-running servers
	// loadTau is the kernel's 1-minute load average time constant.
	loadTau = 60.0
)

var sHostUptime = streamOf("host/uptime")

// hostTotals are the host's running totals (since boot: they start from
// the uptime before the demo).
type hostTotals struct {
	Busy        [demoCores]float64 // CPU seconds not idle, per core
	IOWait      float64            // CPU seconds in iowait, all cores
	Read, Write float64            // disk bytes
	Load        float64            // 1-minute load average
}

// demoHost is the simulated host as a probes.Probe.
type demoHost struct {
	sc     *scenario
	time   demoTime
	uptime float64 // seconds since boot when the demo began
	totals *ledger[hostTotals]
}

func newDemoHost(sc *scenario, n noise, t demoTime, uptime float64) *demoHost {
	h := &demoHost{sc: sc, time: t, uptime: uptime}
	var first hostLoad
	sc.host(slotOf(0), &first)
	initial := hostTotals{
		IOWait: uptime * demoCores * 0.002,
		Read:   uptime * n.between(1e7, 3e7, sHostUptime, 0, 0),
		Write:  uptime * n.between(5e6, 1.5e7, sHostUptime, 0, 1),
		Load:   runnable(&first),
	}
	for c := range initial.Busy {
		initial.Busy[c] = uptime * n.between(0.03, 0.08, sHostUptime, c, 2)
	}
	h.totals = newLedger(initial, h.addSlot)
	return h
}

// runnable approximates the run queue: busy cores plus tasks blocked on I/O.
func runnable(l *hostLoad) float64 {
	r := l.IOWait * demoCores / 100
	for _, c := range l.Core {
		r += c / 100
	}
	return r
}

func (h *demoHost) addSlot(k int64, secs float64, t *hostTotals) {
	var l hostLoad
	h.sc.host(slotOf(k), &l)
	for c := range l.Core {
		t.Busy[c] += l.Core[c] / 100 * secs
	}
	t.IOWait += l.IOWait / 100 * demoCores * secs
	t.Read += l.Read * secs
	t.Write += l.Write * secs
	t.Load += (runnable(&l) - t.Load) * (1 - math.Exp(-secs/loadTau))
}

// Name is the real host probe's name.
func (h *demoHost) Name() string { return "host" }

// Device is the host's device name.
func (h *demoHost) Device() string { return timeline.HostDevice }

// Collect reads the simulated host now.
func (h *demoHost) Collect(ctx context.Context) (probes.Reading, error) {
	us := h.time.now()
	t := h.totals.at(us)
	var l hostLoad
	h.sc.host(slotOf(slotAt(us)), &l)
	// Every core has existed for the whole uptime: its total CPU time is the
	// elapsed time, the denominator that makes busy seconds a share.
	elapsed := h.uptime + float64(us)/1e6
	var busy float64
	for _, b := range t.Busy {
		busy += b
	}
	// Quantise as the kernel does: CPU time in ticks of 1/100 s, memory in
	// KiB, the load average to 0.01, bytes whole. Unrounded simulated
	// numbers would look nothing like /proc's and would inflate recordings
	// with digits no real host produces.
	busy, elapsed = ticks(busy), ticks(elapsed)
	host := func(name string, kind timeline.Kind, v float64) timeline.Metric {
		return timeline.Metric{Key: timeline.Key{Name: name, Device: timeline.HostDevice}, Kind: kind, Value: v}
	}
	m := make([]timeline.Metric, 0, 11+2*demoCores)
	m = append(m,
		host(timeline.HostCPUBusySecs, timeline.Counter, busy),
		host(timeline.HostCPUWaitSecs, timeline.Counter, ticks(t.IOWait)),
		host(timeline.HostCPUTotSecs, timeline.Counter, ticks(elapsed*demoCores)),
		host(timeline.HostLoad1, timeline.Gauge, math.Round(t.Load*100)/100),
		host(timeline.HostMemUsed, timeline.Gauge, math.Round(l.MemUsed/1024)*1024),
		host(timeline.HostMemTotal, timeline.Gauge, demoHostMem),
		host(timeline.HostSwapUsed, timeline.Gauge, demoSwapUsed),
		host(timeline.HostSwapTotal, timeline.Gauge, demoSwap),
		host(timeline.HostDiskRBytes, timeline.Counter, math.Round(t.Read)),
		host(timeline.HostDiskWBytes, timeline.Counter, math.Round(t.Write)),
	)
	for c, b := range t.Busy {
		dev := timeline.CoreDevice(c)
		m = append(m,
			timeline.Metric{Key: timeline.Key{Name: timeline.CoreBusySecs, Device: dev}, Kind: timeline.Counter, Value: ticks(b)},
			timeline.Metric{Key: timeline.Key{Name: timeline.CoreTotalSecs, Device: dev}, Kind: timeline.Counter, Value: elapsed},
		)
	}
	return probes.Reading{Metrics: m}, ctx.Err()
}

// ticks rounds CPU seconds to the kernel's 1/100 s.
func ticks(s float64) float64 { return math.Round(s*100) / 100 }
