package probes

import (
	"math"
	"testing"

	"github.com/shirou/gopsutil/v3/cpu"

	"github.com/gputop-dev/gputop/timeline"
)

func TestHostProbeReadsThisMachine(t *testing.T) {
	p := NewHostProbe()
	if p.Name() != "host" || p.Device() != timeline.HostDevice {
		t.Fatalf("probe is %s/%s, want host/host", p.Name(), p.Device())
	}
	first, err := p.Collect(t.Context())
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	// Copy: the probe reuses its slice on the next call, as the Sampler allows.
	before := timeline.Sample{}.WithMetrics(append([]timeline.Metric(nil), first.Metrics...))
	second, err := p.Collect(t.Context())
	if err != nil {
		t.Fatalf("second Collect: %v", err)
	}
	after := timeline.Sample{}.WithMetrics(second.Metrics)

	host := func(s timeline.Sample, name string) float64 {
		v, ok := s.Value(timeline.Key{Name: name, Device: timeline.HostDevice})
		if !ok {
			t.Fatalf("no host %s", name)
		}
		return v
	}
	for _, name := range []string{timeline.HostCPUBusySecs, timeline.HostCPUWaitSecs, timeline.HostCPUTotSecs,
		timeline.HostDiskRBytes, timeline.HostDiskWBytes} {
		if b, a := host(before, name), host(after, name); a < b {
			t.Errorf("counter %s went down, %v then %v", name, b, a)
		}
	}
	for _, name := range []string{timeline.HostCPUBusySecs, timeline.HostCPUTotSecs, timeline.HostMemUsed,
		timeline.HostMemTotal, timeline.HostSwapTotal, timeline.HostLoad1} {
		if v := host(after, name); math.IsNaN(v) || v < 0 {
			t.Errorf("%s = %v, want a number", name, v)
		}
	}
	if used, total := host(after, timeline.HostMemUsed), host(after, timeline.HostMemTotal); used <= 0 || used > total {
		t.Errorf("memory used %v of %v", used, total)
	}
	if busy, total := host(after, timeline.HostCPUBusySecs), host(after, timeline.HostCPUTotSecs); busy > total {
		t.Errorf("CPU busy %v s exceeds total %v s", busy, total)
	}

	want, err := cpu.Counts(true)
	if err != nil {
		t.Fatalf("cpu.Counts: %v", err)
	}
	cores := 0
	for _, m := range after.Metrics() {
		if m.Key.Name == timeline.CoreTotalSecs {
			cores++
			if _, ok := after.Value(timeline.Key{Name: timeline.CoreBusySecs, Device: m.Key.Device}); !ok {
				t.Errorf("%s has a total but no busy counter", m.Key.Device)
			}
		}
	}
	if cores != want {
		t.Errorf("%d per-core series, want one per logical CPU, %d", cores, want)
	}
	if before.Len() != after.Len() {
		t.Errorf("layout changed between calls: %d then %d metrics", before.Len(), after.Len())
	}
}

func TestCPUSecondsSplit(t *testing.T) {
	tests := []struct {
		name                   string
		in                     cpu.TimesStat
		wantBusy, wantWait, wT float64
	}{
		{"idle core", cpu.TimesStat{Idle: 100}, 0, 0, 100},
		{"iowait is not busy", cpu.TimesStat{User: 10, Iowait: 30, Idle: 60}, 10, 30, 100},
		{"every busy state", cpu.TimesStat{User: 1, Nice: 2, System: 3, Irq: 4, Softirq: 5, Steal: 6, Idle: 79}, 21, 0, 100},
		// Guest time is already inside user (and guest_nice inside nice).
		{"guest not counted twice", cpu.TimesStat{User: 50, Guest: 40, Nice: 10, GuestNice: 10, Idle: 40}, 60, 0, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, w, tot := cpuSeconds(tt.in)
			if b != tt.wantBusy || w != tt.wantWait || tot != tt.wT {
				t.Errorf("busy, iowait, total = %v, %v, %v; want %v, %v, %v", b, w, tot, tt.wantBusy, tt.wantWait, tt.wT)
			}
		})
	}
}

func TestCoreIndex(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"cpu0", 0, true},
		{"cpu127", 127, true},
		{"cpu-total", 0, false},
		{"cpu", 0, false},
		{"cpu99999999", 0, false},
		{"gpu1", 0, false},
	}
	for _, tt := range tests {
		if got, ok := coreIndex(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("coreIndex(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func BenchmarkHostProbeCollect(b *testing.B) {
	p := NewHostProbe()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Collect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
