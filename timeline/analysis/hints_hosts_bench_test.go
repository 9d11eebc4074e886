package analysis_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// hbCluster is a cluster of hosts × 8 H100s for the benchmarks, one sample
// at a time into a reused buffer (64 hosts for an hour would be half a GB
// of samples built ahead): node4 idle, node8 a throttled straggler the
// others wait for, node12 with 70 GiB a GPU, a checkpoint-like stall every
// 2 min on the rest, so that every cross-host rule and most one-GPU rules
// have work to do.
type hbCluster struct {
	hosts int
	info  timeline.SourceInfo
	buf   []timeline.Metric
}

func newHBCluster(hosts int, interval time.Duration) *hbCluster {
	info, _ := timelinetest.Cluster(hosts, 8, 0, nil)
	info.Interval = interval
	return &hbCluster{hosts: hosts, info: info}
}

func (c *hbCluster) sample(k int) timeline.Sample {
	sec := k * int(c.info.Interval/time.Second)
	m := c.buf[:0]
	stalled := sec%120 >= 75
	for h := range c.hosts {
		for g := range 8 {
			dev := timeline.GPUDevice(h*8 + g)
			util, sm, power, clock, mem := 98.0+float64(sec%3), 55.0+float64((sec+g)%5), 450.0, 1980.0, 40.0*(1<<30)
			switch {
			case h == 3:
				util, sm, power, clock, mem = 0, 0, 70, 345, 500<<20
			case h == 7:
				sm, power, clock = 80, 700, 1410
			case stalled && g == 0:
				util, sm, power = 2, 0, 140
			case stalled:
				util, sm, power = 99, 2, 150
			}
			if h == 11 {
				mem = 70 << 30
			}
			m = append(m, timelinetest.Gauge(timeline.GPUUtil, dev, util), timelinetest.Gauge(timeline.GPUSMActive, dev, sm),
				timelinetest.Gauge(timeline.GPUPower, dev, power), timelinetest.Gauge(timeline.GPUClockSM, dev, clock),
				timelinetest.Gauge(timeline.GPUMemUsed, dev, mem))
		}
		m = append(m, timelinetest.Gauge(timeline.HostCPU, timeline.DeviceOnHost(timeline.HostDevice, timelinetest.ClusterHost(h)), 30))
	}
	c.buf = m
	return timeline.Sample{At: timelinetest.T0.Add(time.Duration(k) * c.info.Interval)}.WithMetrics(m)
}

// BenchmarkEngineHosts is BenchmarkEngine for a session of 64 hosts of 8
// GPUs (512): the next sample added and the hints at it, as the live view
// of `gputop --hosts` asks every second, with an hour of 1 s samples
// behind it, and with a day of a Prometheus import's 15 s Steps; and the
// same 512 GPUs as one host's.
func BenchmarkEngineHosts(b *testing.B) {
	for _, hist := range []struct {
		name     string
		interval time.Duration
		ticks    int
		oneHost  bool
	}{
		{"64x8/hour", time.Second, 3600, false}, {"64x8/day@15s", 15 * time.Second, 5760, false},
		// The same GPUs described as one machine's: the cost of the one-GPU
		// rules alone, to set the cross-host rules' against.
		{"1x512/hour", time.Second, 3600, true},
	} {
		b.Run(hist.name, func(b *testing.B) {
			c := newHBCluster(64, hist.interval)
			if hist.oneHost {
				c.info.Hosts = nil
				for i := range c.info.GPUs {
					c.info.GPUs[i].Host, c.info.GPUs[i].HostIndex = "", 0
				}
			}
			e := analysis.NewEngine(c.info)
			for k := range hist.ticks {
				s := c.sample(k)
				e.Add(&s)
				if k%60 == 0 {
					e.Hints(s.At)
				}
			}
			k := hist.ticks
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				s := c.sample(k)
				k++
				e.SetInfo(c.info) // as the screen does with every batch
				e.Add(&s)
				if len(e.Hints(s.At)) == 0 {
					b.Fatal("no hints")
				}
			}
			// CPU time, the GC's included, is what a tick costs the machine,
			// and unlike ns/op it does not grow while other work shares it.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/tick")
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The benchmark's cluster gives the hints it is built to give.
func TestBenchClusterHints(t *testing.T) {
	c := newHBCluster(16, time.Second)
	e := analysis.NewEngine(c.info)
	for k := range 600 {
		s := c.sample(k)
		e.Add(&s)
	}
	hints := e.Hints(e.Last())
	for _, id := range []string{timeline.HintHostIdle, timeline.HintStragglerHost, timeline.HintUnevenMemory} {
		found := false
		for _, h := range hints {
			found = found || h.ID == id
		}
		if !found {
			t.Errorf("no %s:\n%s", id, hxDump(hints))
		}
	}
}

// BenchmarkEngineAdd512 is the Engine taking one sample of 64 hosts of 8
// GPUs, with no question asked: what `gputop --hosts` pays every second
// for a big session, whose hints it asks for every few seconds only.
func BenchmarkEngineAdd512(b *testing.B) {
	c := newHBCluster(64, time.Second)
	e := analysis.NewEngine(c.info)
	k := 0
	for ; k < 600; k++ {
		s := c.sample(k)
		e.Add(&s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		s := c.sample(k)
		k++
		e.SetInfo(c.info)
		e.Add(&s)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/sample")
}
