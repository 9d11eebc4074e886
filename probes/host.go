package probes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v3/cpu"
	"github.com/shirou/gopsutil/v3/load"
	"github.com/shirou/gopsutil/v3/mem"

	"github.com/gputop-dev/gputop/timeline"
)

// hostProbe reads the host through gopsutil: CPU time in total and per
// core, load, memory, swap, and the bytes the disks moved. It runs every
// second beside someone's job, so it reads each /proc file once per call
// (/proc/stat, /proc/loadavg, /proc/meminfo, /proc/diskstats) and reuses its
// buffers.
type hostProbe struct {
	metrics  []timeline.Metric // reused every call; the Sampler copies it
	coreKeys [][2]timeline.Key // busy and total keys of core i, made once
	disks    *diskCounters
}

// NewHostProbe returns the probe of the host as a whole: name "host",
// device "host".
func NewHostProbe() Probe {
	return &hostProbe{disks: newDiskCounters("/proc/diskstats", "/sys/block")}
}

// Name is "host".
func (p *hostProbe) Name() string { return "host" }

// Device is "host".
func (p *hostProbe) Device() string { return timeline.HostDevice }

// cpuSeconds splits one /proc/stat line into busy, iowait and total
// seconds.
//
// Busy is every state but idle and iowait. Steal (time the hypervisor gave
// this VM's CPU to someone else) counts as busy and in the total, as htop
// shows it: the job could not use that time, and counting it idle would
// make a starved VM look like a host with CPU to spare. Guest and guest_nice
// are left out because the kernel already counts them inside user and nice;
// adding them again would count that time twice.
func cpuSeconds(t cpu.TimesStat) (busy, iowait, total float64) {
	busy = t.User + t.Nice + t.System + t.Irq + t.Softirq + t.Steal
	return busy, t.Iowait, busy + t.Idle + t.Iowait
}

// Collect reads the host once. A part that fails is NaN, with its error.
func (p *hostProbe) Collect(ctx context.Context) (Reading, error) {
	var errs []error
	m := p.metrics[:0]
	add := func(name string, kind timeline.Kind, v float64) {
		m = append(m, timeline.Metric{Key: timeline.Key{Name: name, Device: timeline.HostDevice}, Kind: kind, Value: v})
	}

	// One read of /proc/stat: the per-core lines, summed for the host.
	// (gopsutil returns an empty list, not an error, when it cannot read it.)
	cores, err := cpu.TimesWithContext(ctx, true)
	if err == nil && len(cores) == 0 {
		err = errors.New("no per-core lines in /proc/stat")
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("cpu times: %w", err))
	}
	busy, wait, total := math.NaN(), math.NaN(), math.NaN()
	if len(cores) > 0 {
		busy, wait, total = 0, 0, 0
		for _, c := range cores {
			b, w, t := cpuSeconds(c)
			busy, wait, total = busy+b, wait+w, total+t
		}
	}
	add(timeline.HostCPUBusySecs, timeline.Counter, busy)
	add(timeline.HostCPUWaitSecs, timeline.Counter, wait)
	add(timeline.HostCPUTotSecs, timeline.Counter, total)

	load1 := math.NaN()
	if avg, err := load.AvgWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("load: %w", err))
	} else {
		load1 = avg.Load1
	}
	add(timeline.HostLoad1, timeline.Gauge, load1)

	// /proc/meminfo holds swap as well, so one read serves both. "Used" is
	// what free(1) and htop call used: total minus available, which leaves
	// out the page cache the kernel would give back on demand.
	memUsed, memTotal, swapUsed, swapTotal := math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if vm, err := mem.VirtualMemoryWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("memory: %w", err))
	} else {
		memTotal = float64(vm.Total)
		memUsed = memTotal - float64(vm.Available)
		swapTotal = float64(vm.SwapTotal)
		swapUsed = swapTotal - float64(vm.SwapFree)
	}
	add(timeline.HostMemUsed, timeline.Gauge, memUsed)
	add(timeline.HostMemTotal, timeline.Gauge, memTotal)
	add(timeline.HostSwapUsed, timeline.Gauge, swapUsed)
	add(timeline.HostSwapTotal, timeline.Gauge, swapTotal)

	rd, wr, err := p.disks.read()
	if err != nil {
		errs = append(errs, fmt.Errorf("disks: %w", err))
	}
	add(timeline.HostDiskRBytes, timeline.Counter, rd)
	add(timeline.HostDiskWBytes, timeline.Counter, wr)

	for _, c := range cores {
		i, ok := coreIndex(c.CPU)
		if !ok {
			continue
		}
		keys := p.coreKey(i)
		b, _, t := cpuSeconds(c)
		m = append(m,
			timeline.Metric{Key: keys[0], Kind: timeline.Counter, Value: b},
			timeline.Metric{Key: keys[1], Kind: timeline.Counter, Value: t})
	}

	p.metrics = m
	return Reading{Metrics: m}, errors.Join(errs...)
}

// coreIndex reads N from gopsutil's "cpuN". Offline cores are missing from
// /proc/stat, so the index is taken from the name, not the position.
func coreIndex(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "cpu")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || i >= maxCores {
		return 0, false
	}
	return i, true
}

// maxCores bounds the core index taken from /proc/stat, so a garbled line
// cannot make coreKey allocate without limit.
const maxCores = 1 << 16

// coreKey returns the busy and total keys of core i, building the device
// name once rather than every second.
func (p *hostProbe) coreKey(i int) [2]timeline.Key {
	for len(p.coreKeys) <= i {
		dev := timeline.CoreDevice(len(p.coreKeys))
		p.coreKeys = append(p.coreKeys, [2]timeline.Key{
			{Name: timeline.CoreBusySecs, Device: dev},
			{Name: timeline.CoreTotalSecs, Device: dev},
		})
	}
	return p.coreKeys[i]
}
