package ui

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// fixtureStart is the fixed time the golden screens are drawn at.
var fixtureStart = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// fixtureInfo describes eight H100s like the demo's, with fixed UUIDs.
func fixtureInfo(kind timeline.SourceKind) timeline.SourceInfo {
	info := timeline.SourceInfo{
		Kind: kind, Host: "node-a", Driver: "550.54.15", CUDA: "12.4",
		Interval: time.Second, Scenario: "training",
	}
	if kind == timeline.Replay {
		info.Origin = "/tmp/run.gtr"
		info.Recorded = timeline.Live
	}
	for i := 0; i < 8; i++ {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{
			Index: i, Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-fixture-%d", i),
			MemTotal: 80 * (1 << 30), PowerLimit: 700, GPM: true,
		})
	}
	return info
}

// fixtureSamples is two minutes of a job whose GPUs each do something
// recognisable: GPU0 busy with a dip, GPU1 idle holding memory, GPU2 a
// sawtooth, GPU3 lost after 100 s, GPU5 power-capped, GPU7 without GPM
// numbers (N/A, never 0). The host has 16 cores, one pegged.
func fixtureSamples(n int) []timeline.Sample {
	var out []timeline.Sample
	energy := make([]float64, 8)
	var busy, total, wait float64
	coreBusy, coreTotal := make([]float64, 16), make([]float64, 16)
	for i := 0; i < n; i++ {
		s := timeline.Sample{At: fixtureStart.Add(time.Duration(i) * time.Second)}
		var ms []timeline.Metric
		add := func(name, dev string, kind timeline.Kind, v float64) {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v})
		}
		for g := 0; g < 8; g++ {
			dev := timeline.GPUDevice(g)
			if g == 3 && i >= 100 {
				s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "nvml", Device: dev, State: timeline.ProbeLost, Err: "GPU is lost"})
				continue
			}
			util, sm, power, mem, throttle := 0.0, 0.0, 70.0, 0.5, 0.0
			switch g {
			case 0, 4, 6:
				util, sm, power, mem = 97, 85, 640, 68
				if i%40 >= 38 {
					util, sm, power = 12, 5, 200
				}
			case 1:
				mem = 20
			case 2:
				util = float64((i % 6) * 20)
				sm, power, mem = util*0.8, 100+util*5, 40
			case 3:
				util, sm, power, mem = 90, 60, 500, 60
			case 5:
				util, sm, power, mem, throttle = 99, 90, 699, 70, timeline.ThrottlePowerCap
			case 7:
				util, power, mem = 50, 350, 30
			}
			energy[g] += power
			add(timeline.GPUUtil, dev, timeline.Gauge, util)
			add(timeline.GPUUtilMin, dev, timeline.Gauge, math.Max(0, util-10))
			add(timeline.GPUUtilMax, dev, timeline.Gauge, math.Min(100, util+3))
			if g == 7 {
				add(timeline.GPUSMActive, dev, timeline.Gauge, math.NaN())
			} else {
				add(timeline.GPUSMActive, dev, timeline.Gauge, sm)
				add(timeline.GPUTensor, dev, timeline.Gauge, sm*0.6)
			}
			add(timeline.GPUMemUsed, dev, timeline.Gauge, mem*(1<<30))
			add(timeline.GPUMemTotal, dev, timeline.Gauge, 80*(1<<30))
			add(timeline.GPUEnergy, dev, timeline.Counter, energy[g])
			add(timeline.GPUPowerLimit, dev, timeline.Gauge, 700)
			add(timeline.GPUTemp, dev, timeline.Gauge, 35+power/20)
			add(timeline.GPUClockSM, dev, timeline.Gauge, 1980-throttle*300)
			add(timeline.GPUThrottle, dev, timeline.Gauge, throttle)
		}
		for c := 0; c < 16; c++ {
			b := 0.2
			if c == 0 {
				b = 1
			} else if c < 6 {
				b = 0.5
			}
			coreBusy[c] += b
			coreTotal[c]++
			busy += b
			total++
		}
		wait += 0.3
		add(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, busy)
		add(timeline.HostCPUWaitSecs, timeline.HostDevice, timeline.Counter, wait)
		add(timeline.HostCPUTotSecs, timeline.HostDevice, timeline.Counter, total)
		for c := 0; c < 16; c++ {
			add(timeline.CoreBusySecs, timeline.CoreDevice(c), timeline.Counter, coreBusy[c])
			add(timeline.CoreTotalSecs, timeline.CoreDevice(c), timeline.Counter, coreTotal[c])
		}
		add(timeline.HostLoad1, timeline.HostDevice, timeline.Gauge, 6.5)
		add(timeline.HostMemUsed, timeline.HostDevice, timeline.Gauge, 210*(1<<30))
		add(timeline.HostMemTotal, timeline.HostDevice, timeline.Gauge, 2015*(1<<30))
		add(timeline.HostSwapUsed, timeline.HostDevice, timeline.Gauge, 0)
		add(timeline.ProcCPUSecs, timeline.SelfDevice, timeline.Counter, float64(i)*0.004)
		add(timeline.ProcRSS, timeline.SelfDevice, timeline.Gauge, 21*(1<<20))
		if i%5 == 0 {
			s.Processes = []timeline.Process{
				{GPU: 0, PID: 4100, User: "ml", Command: "python train.py --rank 0", GPUMem: 68 * (1 << 30), Util: 85, CPU: 104, RSS: 12 * (1 << 30)},
				{GPU: 1, PID: 4101, User: "ml", Command: "python train.py --rank 1", GPUMem: 20 * (1 << 30), Util: 0, CPU: 3, RSS: 9 * (1 << 30)},
			}
		}
		s.SetMetrics(ms)
		out = append(out, s)
	}
	return out
}

// sliceSource replays fixed samples, one per Next, then io.EOF.
type sliceSource struct {
	info    timeline.SourceInfo
	samples []timeline.Sample
}

func (s *sliceSource) Info() timeline.SourceInfo { return s.info }

func (s *sliceSource) Next(ctx context.Context) (timeline.Sample, error) {
	if len(s.samples) == 0 {
		return timeline.Sample{}, io.EOF
	}
	x := s.samples[0]
	s.samples = s.samples[1:]
	return x, nil
}
