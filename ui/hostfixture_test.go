package ui

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// hostsFixture describes a session of several hosts as `gputop --hosts`
// or an import from Prometheus makes one (recording format 1.4): hosts
// node1..nodeN of gpus H100s each, session-wide gpuN keys, host figures on
// host@NAME and cpuI@NAME, and each host's connection in a "remote" probe
// status. Made up, as fixtureSamples is: every host is busy, except
//   - node1's GPU5 idle all along (a hint),
//   - node2 slower than the rest (a straggler),
//   - the unreachable host: its connection fails at unreachableAt and its
//     GPUs' metrics stop (a gap, never zeros),
//   - the gap host: its metrics stop at gapFrom with no status (a
//     Prometheus series with a hole), and come back at gapTo if set.
type hostsFixture struct {
	hosts, gpus                   int
	unreachable, gap              int    // 1-based host numbers; 0 for none
	unreachableAt, gapFrom, gapTo int    // seconds from the start
	prefix                        string // of the hosts' names; "" is "node"
}

func (fx hostsFixture) name(h int) string {
	if fx.prefix == "" {
		return fmt.Sprintf("node%d", h+1)
	}
	return fmt.Sprintf("%s%d", fx.prefix, h+1)
}

func (fx hostsFixture) info(kind timeline.SourceKind) timeline.SourceInfo {
	info := timeline.SourceInfo{Kind: kind, Interval: time.Second}
	if kind == timeline.Replay {
		info.Origin = "/tmp/job.gtr"
		info.Recorded = timeline.Live
	}
	for h := range fx.hosts {
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: fx.name(h), Driver: "550.54.15", CUDA: "12.4"})
		for g := range fx.gpus {
			info.GPUs = append(info.GPUs, timeline.GPUInfo{
				Index: h*fx.gpus + g, Host: fx.name(h), HostIndex: g,
				Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-%s-%d", fx.name(h), g),
				MemTotal: 80 * (1 << 30), PowerLimit: 700, GPM: true,
			})
		}
	}
	return info
}

// samples is n seconds of the session from fixtureStart.
func (fx hostsFixture) samples(n int) []timeline.Sample {
	const cores = 4
	out := make([]timeline.Sample, 0, n)
	for i := range n {
		s := timeline.Sample{At: fixtureStart.Add(time.Duration(i) * time.Second)}
		var ms []timeline.Metric
		add := func(name, dev string, v float64) {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: v})
		}
		for h := range fx.hosts {
			name := fx.name(h)
			if fx.unreachable == h+1 && i >= fx.unreachableAt {
				s.Probes = append(s.Probes, timeline.ProbeStatus{
					Probe: timeline.RemoteProbe, Device: name, State: timeline.ProbeFailed,
					Err: "unreachable: ssh: connect to host " + name + " port 22: Connection refused",
				})
				continue
			}
			s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: timeline.RemoteProbe, Device: name, State: timeline.ProbeOK})
			if fx.gap == h+1 && i >= fx.gapFrom && (fx.gapTo == 0 || i < fx.gapTo) {
				continue
			}
			for g := range fx.gpus {
				dev := timeline.GPUDevice(h*fx.gpus + g)
				util, sm, power := 95.0-float64((i+g)%5), 80.0, 620.0
				if i%30 >= 20 && i%30 < 23 {
					util, sm, power = 40, 20, 300 // everyone waits in a collective
				}
				switch {
				case h == 0 && g == 5:
					util, sm, power = 0, 0, 70
				case h == 1:
					util, sm, power = util*0.6, sm*0.5, power*0.7
				}
				add(timeline.GPUUtil, dev, util)
				add(timeline.GPUSMActive, dev, sm)
				add(timeline.GPUPower, dev, power)
				add(timeline.GPUPowerLimit, dev, 700)
				add(timeline.GPUMemUsed, dev, float64(40+h%3*10)*(1<<30))
				add(timeline.GPUMemTotal, dev, 80*(1<<30))
				add(timeline.GPUTemp, dev, 35+power/20)
			}
			hostDev := timeline.DeviceOnHost(timeline.HostDevice, name)
			add(timeline.HostCPU, hostDev, 20+float64(h%4)*10)
			add(timeline.HostIOWait, hostDev, 1)
			add(timeline.HostLoad1, hostDev, 6.5)
			add(timeline.HostMemUsed, hostDev, 200*(1<<30))
			add(timeline.HostMemTotal, hostDev, 2015*(1<<30))
			add(timeline.HostSwapUsed, hostDev, 0)
			for c := range cores {
				v := 30.0
				if c == h%cores {
					v = 100
				}
				add(timeline.CoreBusy, timeline.DeviceOnHost(timeline.CoreDevice(c), name), v)
			}
		}
		s.SetMetrics(ms)
		out = append(out, s)
	}
	return out
}

// twoHosts is node1 and node2 of 8 GPUs, node2 unreachable from 100 s, and
// a gap of node1's from 40 to 60 s, visible in its sparklines.
var twoHosts = hostsFixture{hosts: 2, gpus: 8, unreachable: 2, unreachableAt: 100, gap: 1, gapFrom: 40, gapTo: 60}

// manyHosts is 64 hosts of 8 GPUs: node3 unreachable from 90 s, node5's
// series ending at 100 s.
var manyHosts = hostsFixture{hosts: 64, gpus: 8, unreachable: 3, unreachableAt: 90, gap: 5, gapFrom: 100}
