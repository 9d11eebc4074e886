package probes

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

func TestSelfProbeReadsGputop(t *testing.T) {
	p := NewSelfProbe()
	if p.Name() != "self" || p.Device() != timeline.SelfDevice {
		t.Fatalf("probe is %s/%s, want self/self", p.Name(), p.Device())
	}
	cpuKey := timeline.Key{Name: timeline.ProcCPUSecs, Device: timeline.SelfDevice}
	rssKey := timeline.Key{Name: timeline.ProcRSS, Device: timeline.SelfDevice}
	read := func() (cpu, rss float64) {
		t.Helper()
		r, err := p.Collect(t.Context())
		if err != nil {
			t.Fatalf("Collect: %v", err)
		}
		smp := timeline.Sample{}.WithMetrics(r.Metrics)
		cpu, _ = smp.Value(cpuKey)
		rss, _ = smp.Value(rssKey)
		return cpu, rss
	}
	cpu1, rss := read()
	if !(rss > 1<<20) {
		t.Errorf("RSS = %v bytes, want at least a megabyte for a Go test binary", rss)
	}
	if !(cpu1 > 0) {
		t.Errorf("CPU = %v s, want > 0 for a process that has run", cpu1)
	}
	// Burn some CPU (the counter is in microseconds, so any work shows).
	sum := 0
	for i := range 20_000_000 {
		sum += i & 3
	}
	if cpu2, _ := read(); !(cpu2 > cpu1) {
		t.Errorf("CPU after work (checksum %d) = %v s, want more than %v", sum, cpu2, cpu1)
	}
}
