package demo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// The simulated host's counters are integrals of its script, so Derive,
// which the store and every screen use, gives back exactly the scripted
// per-core load, iowait and disk rates, over any interval, slot-aligned or not.
func TestHostCountersDeriveTheScript(t *testing.T) {
	intervals := []struct {
		name     string
		from, to time.Duration
	}{
		{"one second", 100 * time.Second, 101 * time.Second},
		{"off the slot grid", 100050 * time.Millisecond, 101370 * time.Millisecond},
		{"a checkpoint's write", 60 * time.Second, 130 * time.Second},
	}
	for _, iv := range intervals {
		t.Run(iv.name, func(t *testing.T) {
			d, clock := newTestDemo(t, "checkpoint", 11)
			collect := func(at time.Duration) *timeline.Sample {
				clock.at(at)
				r, err := d.HostProbe().Collect(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return new(timeline.Sample{At: clock.Now()}.WithMetrics(r.Metrics))
			}
			prev := collect(iv.from)
			cur := collect(iv.to)
			got := map[timeline.Key]float64{}
			for _, v := range timeline.Derive(cur, prev) {
				got[v.Key] = v.Value
			}
			from, to := iv.from.Microseconds(), iv.to.Microseconds()
			script := func(f func(h *hostLoad) float64) float64 {
				return timeMean(from, to, func(k int64) float64 {
					var h hostLoad
					d.sc.host(slotOf(k), &h)
					return f(&h)
				})
			}
			check := func(key timeline.Key, want, tol float64) {
				t.Helper()
				if g, ok := got[key]; !ok || math.Abs(g-want) > tol {
					t.Errorf("%s = %v, script says %v", key, g, want)
				}
			}
			// The counters come in the kernel's ticks of 1/100 s and whole
			// bytes, as /proc's do: a share over s seconds is good to a tick
			// at each end, 2 × 0.01 s / s, and a byte rate to 2 bytes / s.
			secs := (iv.to - iv.from).Seconds()
			core := 100 * 0.02 / secs
			var all float64
			for c := range demoCores {
				want := script(func(h *hostLoad) float64 { return h.Core[c] })
				all += want / demoCores
				check(timeline.Key{Name: timeline.CoreBusy, Device: timeline.CoreDevice(c)}, want, core)
			}
			host := func(name string) timeline.Key { return timeline.Key{Name: name, Device: timeline.HostDevice} }
			check(host(timeline.HostCPU), all, core/demoCores)
			check(host(timeline.HostIOWait), script(func(h *hostLoad) float64 { return h.IOWait }), core/demoCores)
			check(host(timeline.HostDiskRead), script(func(h *hostLoad) float64 { return h.Read }), 2/secs)
			check(host(timeline.HostDiskWrite), script(func(h *hostLoad) float64 { return h.Write }), 2/secs)
			check(host(timeline.HostMemTotal), demoHostMem, 0)
			if used := got[host(timeline.HostMemUsed)]; used < 100*gib || used > 200*gib {
				t.Errorf("RAM used %.0f GiB, want the script's ~140-180", used/gib)
			}
		})
	}
}

// The demo host writes what the real host probe writes, so the screens,
// recordings and hints cannot tell them apart.
func TestHostProbeWritesTheRealProbesMetrics(t *testing.T) {
	real, err := probes.NewHostProbe().Collect(context.Background())
	if err != nil {
		// Some containers hide /proc/diskstats; the names are still there.
		t.Logf("real host probe: %v", err)
	}
	d, _ := newTestDemo(t, "training", 1)
	demo, err := d.HostProbe().Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type nameKind struct {
		name string
		kind timeline.Kind
	}
	layout := func(ms []timeline.Metric) map[nameKind]bool {
		out := map[nameKind]bool{}
		for _, m := range ms {
			out[nameKind{m.Key.Name, m.Kind}] = true
		}
		return out
	}
	want, got := layout(real.Metrics), layout(demo.Metrics)
	for nk := range want {
		if !got[nk] {
			t.Errorf("the real host probe writes %s (%s), the demo does not", nk.name, nk.kind)
		}
	}
	for nk := range got {
		if !want[nk] {
			t.Errorf("the demo writes %s (%s), the real host probe does not", nk.name, nk.kind)
		}
	}
	for _, m := range demo.Metrics {
		if math.IsNaN(m.Value) || m.Value < 0 {
			t.Errorf("%s = %v", m.Key, m.Value)
		}
	}
}

// The load average follows the run queue with a one-minute lag, as the
// kernel's does: during a checkpoint, when every rank's core spins, it rises.
func TestHostLoadFollowsTheRunQueue(t *testing.T) {
	d, clock := newTestDemo(t, "checkpoint", 11)
	load := func(at time.Duration) float64 {
		clock.at(at)
		r, err := d.HostProbe().Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Metrics {
			if m.Key.Name == timeline.HostLoad1 {
				return m.Value
			}
		}
		t.Fatal("no load average")
		return 0
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for s := 0; s < 600; s += 5 {
		l := load(time.Duration(s) * time.Second)
		lo, hi = min(lo, l), max(hi, l)
	}
	if lo < 5 || hi > 20 || hi-lo < 1 {
		t.Errorf("load1 %.1f-%.1f over 10 min, want ~8-12 rising in each checkpoint", lo, hi)
	}
}
