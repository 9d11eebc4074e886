package demo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/nvidia"
	"github.com/gputop-dev/gputop/timeline"
)

// demoStart is time zero of every test demo: a fixed instant, so runs are
// reproducible.
var demoStart = time.Date(2025, 7, 27, 0, 34, 45, 0, time.UTC)

// demoRun is a demo recorded the way `gputop record --demo --fast` records
// it: the real NVML probe over the demo's mock, the demo's host probe and
// process lookup, on a Sampler with a FastClock; every sample derived as the
// Store derives it.
type demoRun struct {
	demo    *Node
	nvml    *nvidia.NVML
	samples []timeline.Sample
	// derived holds each display value per tick (NaN where a tick lacked it).
	derived map[timeline.Key][]float64
	procs   [][]timeline.Process // the slow tier's answer, on the ticks it ran
}

// recordDemo runs a scenario for ticks seconds at 1 s and fails the test on
// any probe status that is not OK: a nil mock Func panics, the sampler
// recovers it and reports the probe failed.
func recordDemo(t testing.TB, scenario string, seed int64, ticks int) *demoRun {
	t.Helper()
	clock := probes.NewFastClock(demoStart)
	demo, err := New(scenario, seed, clock)
	if err != nil {
		t.Fatal(err)
	}
	// Every call every tick: these tests check what each scenario plays,
	// tick by tick (a sawtooth in util.max), not the pace (pace_test.go).
	nv, err := nvidia.OpenNVMLPaced(demo.NVML(), clock, nvidia.EveryTick)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nv.Close(); err != nil {
			t.Error(err)
		}
	})
	sampler := probes.NewSampler(probes.SamplerConfig{
		Interval: time.Second,
		// A generous real-time timeout: the race detector on a busy machine
		// must not turn a slow call into a "late" that looks like a bug.
		Timeout: 30 * time.Second,
		Probes:  append(nv.Probes(), demo.HostProbe()),
		Slow:    []probes.Probe{nv.ProcessProbe(demo.Processes())},
		Clock:   clock,
	})
	t.Cleanup(sampler.Close)

	run := &demoRun{demo: demo, nvml: nv, derived: map[timeline.Key][]float64{}}
	var d timeline.Deriver
	for i := range ticks {
		smp, err := sampler.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range smp.Probes {
			if st.State != timeline.ProbeOK {
				t.Fatalf("tick %d: %s %s: %s %s", i, st.Probe, st.Device, st.State, st.Err)
			}
		}
		run.samples = append(run.samples, smp)
		nums := d.Next(&run.samples[len(run.samples)-1])
		for j, k := range d.Keys() {
			col := run.derived[k]
			for len(col) < i {
				col = append(col, math.NaN())
			}
			run.derived[k] = append(col, nums[j])
		}
		if smp.Processes != nil {
			run.procs = append(run.procs, smp.Processes)
		}
	}
	return run
}

// series is a display metric of one device per tick, from tick skip on
// (counters have no value on the first tick, GPM none until its second).
func (r *demoRun) series(name, device string) []float64 {
	return r.derived[timeline.Key{Name: name, Device: device}]
}

func (r *demoRun) gpu(name string, g int) []float64 { return r.series(name, timeline.GPUDevice(g)) }

// stat is what the tests check of a series: its known values summarised.
type stat struct{ n, mean, min, max float64 }

func summarize(xs []float64) stat {
	s := stat{min: math.Inf(1), max: math.Inf(-1)}
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		s.n++
		s.mean += x
		s.min, s.max = min(s.min, x), max(s.max, x)
	}
	if s.n > 0 {
		s.mean /= s.n
	}
	return s
}

// BenchmarkRecordTenMinutes is `gputop record --demo --fast` of ten simulated
// minutes at 1 s (the product's goal: about a second).
func BenchmarkRecordTenMinutes(b *testing.B) {
	for b.Loop() {
		recordDemo(b, "checkpoint", 1, 600)
	}
}

// BenchmarkDemoTick is what one live tick costs the demo and the probes that
// read it: eight GPUs and the host, read one after the other.
func BenchmarkDemoTick(b *testing.B) {
	clock := probes.NewFastClock(demoStart)
	demo, err := New("training", 1, clock)
	if err != nil {
		b.Fatal(err)
	}
	// Every call every tick: these tests check what each scenario plays,
	// tick by tick (a sawtooth in util.max), not the pace (pace_test.go).
	nv, err := nvidia.OpenNVMLPaced(demo.NVML(), clock, nvidia.EveryTick)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := nv.Close(); err != nil {
			b.Error(err)
		}
	})
	probes := append(nv.Probes(), demo.HostProbe())
	ctx := context.Background()
	at := demoStart
	for b.Loop() {
		at = at.Add(time.Second)
		if err := clock.SleepUntil(ctx, at); err != nil {
			b.Fatal(err)
		}
		for _, p := range probes {
			if _, err := p.Collect(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}
