package remote

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// busyNode is a sample shaped like a demo H100 node's: per GPU the
// metrics the NVML probe reads, the host's, and 32 cores.
func busyNode(gpus int, at time.Time) *timeline.Sample {
	s := &timeline.Sample{At: at}
	var ms []timeline.Metric
	gpuMetrics := []string{"util", "util_min", "util_max", "sm_active", "sm_occupancy", "tensor_active", "dram_active",
		"mem_used", "mem_total", "power", "energy", "power_limit", "temp", "sm_clock", "mem_clock", "clock_events",
		"pcie_tx", "pcie_rx", "nvlink_tx", "nvlink_rx", "fan", "enc_util", "dec_util", "ecc_errors"}
	for g := range gpus {
		for _, m := range gpuMetrics {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: m, Device: timeline.GPUDevice(g)}, Value: 42})
		}
		s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "nvml", Device: timeline.GPUDevice(g)})
	}
	for _, m := range []string{"cpu", "iowait", "load1", "mem_used", "mem_total", "swap_used", "disk_read", "disk_write", "net_rx", "net_tx"} {
		ms = append(ms, timeline.Metric{Key: timeline.Key{Name: m, Device: "host"}, Value: 7})
	}
	for c := range 32 {
		ms = append(ms, timeline.Metric{Key: timeline.Key{Name: "cpu", Device: timeline.CoreDevice(c)}, Value: 50})
	}
	s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "host"})
	s.SetMetrics(ms)
	return s
}

// BenchmarkMerge64Hosts is one tick of the viewer of 64 hosts of 8 GPUs:
// every host's sample renumbered into one. Issue 16's goal is 2 % of a core
// at 1 s for the whole viewer: 20 ms a second.
func BenchmarkMerge64Hosts(b *testing.B) {
	benchmarkMerge(b, 64, 8)
}

// BenchmarkMerge1000Hosts is the paper estimate's check (docs/performance.md).
func BenchmarkMerge1000Hosts(b *testing.B) {
	benchmarkMerge(b, 1000, 8)
}

func benchmarkMerge(b *testing.B, hosts, gpus int) {
	var names []string
	for i := range hosts {
		names = append(names, fmt.Sprintf("node%d", i))
	}
	s := newSource(Options{Hosts: names, Interval: time.Second})
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	for _, h := range s.hosts {
		info := node(gpus)
		h.info = info
	}
	// Each host's sample is made once: a tick reads it and does not change
	// it, its columns the same every tick, as a stream's decoder reads
	// a host's samples.
	samples := make([]timeline.Sample, hosts)
	for i := range samples {
		samples[i] = *busyNode(gpus, now)
	}
	b.ReportAllocs()
	var metrics int
	for b.Loop() {
		now = now.Add(time.Second)
		for i, h := range s.hosts {
			h.queue = append(h.queue[:0], samples[i])
		}
		out := s.merge(now)
		metrics = out.Len()
	}
	b.ReportMetric(float64(metrics), "metrics/tick")
}

// BenchmarkDeriveAbsence64Hosts is what a Deriver (the Judge's, the
// screen's store's) pays each time one of 64 hosts of 8 GPUs misses a tick,
// a different host each time: the tick without it, the tick it is back,
// and the tick after, derived from merged samples.
func BenchmarkDeriveAbsence64Hosts(b *testing.B) {
	const hosts = 64
	var names []string
	for i := range hosts {
		names = append(names, fmt.Sprintf("node%d", i))
	}
	s := newSource(Options{Hosts: names, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = node(8)
	}
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	samples := make([]timeline.Sample, hosts)
	for i := range samples {
		samples[i] = *busyNode(8, now)
	}
	// Each a copy: the next tick is merged into the last one's metrics.
	tick := func(absent int) timeline.Sample {
		now = now.Add(time.Second)
		for i, h := range s.hosts {
			if i != absent {
				h.queue = append(h.queue[:0], samples[i])
			}
		}
		out := s.merge(now)
		out.Values = slices.Clone(out.Values)
		return out
	}
	// Merged beforehand, in the order they come: full, without host h, full.
	full := tick(-1)
	short := make([]timeline.Sample, hosts)
	for h := range short {
		short[h] = tick(h)
		tick(-1)
	}
	var d timeline.Deriver
	d.Next(&full)
	d.Next(&full)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d.Next(&short[i%hosts])
		d.Next(&full)
		d.Next(&full)
	}
}
