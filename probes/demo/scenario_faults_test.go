package demo

import (
	"context"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// The faults demo through a whole session, Xid events and all: GPU1 (seed
// 1) reports Xid 48 at 1:40 and Xid 79 at 2:10, each a marker at its time
// on the sample of its time (on a fast clock the sampler hands them out at
// each tick, however busy this machine is), and is lost from 2:10 on while
// the other seven are read; GPU6's link runs at x8.
func TestScenarioFaults(t *testing.T) {
	clock := probes.NewFastClock(demoStart)
	node, err := New("faults", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	var markers []timeline.Marker
	lostAt := time.Duration(-1)
	var last timeline.Sample
	for range 150 {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range s.Markers {
			if !m.At.Equal(s.At) {
				t.Errorf("the marker %q of %v came on the sample of %v", m.Text, m.At.Sub(demoStart), s.At.Sub(demoStart))
			}
			if v, _ := s.Value(timeline.Key{Name: timeline.GPUXid, Device: "gpu1"}); m.At.Sub(demoStart) == 100*time.Second && v != 48 {
				t.Errorf("gpu1's Xid on the sample of Xid 48's marker: %v", v)
			}
		}
		markers = append(markers, s.Markers...)
		for _, ps := range s.Probes {
			if ps.Device == "gpu1" && ps.State == timeline.ProbeLost && lostAt < 0 {
				lostAt = s.At.Sub(demoStart)
			}
			if ps.Device != "gpu1" && ps.State != timeline.ProbeOK {
				t.Fatalf("%s %s: %s %s", ps.Probe, ps.Device, ps.State, ps.Err)
			}
		}
		last = s
	}
	want := []struct {
		at   time.Duration
		text string
	}{
		{100 * time.Second, "GPU1 Xid 48: Double Bit ECC Error"},
		{130 * time.Second, "GPU1 Xid 79: GPU has fallen off the bus"},
	}
	if len(markers) != len(want) {
		t.Fatalf("markers %+v", markers)
	}
	for i, w := range want {
		if m := markers[i]; m.At.Sub(demoStart) != w.at || m.Text != w.text || m.Origin != timeline.XidOrigin {
			t.Errorf("marker %d: %v %q %q, want %v %q", i, m.At.Sub(demoStart), m.Text, m.Origin, w.at, w.text)
		}
	}
	if lostAt < 130*time.Second || lostAt > 131*time.Second {
		t.Errorf("GPU1 lost at %v, want 2:10", lostAt)
	}
	for _, c := range []struct {
		key  timeline.Key
		want float64
	}{
		{timeline.Key{Name: timeline.GPUPCIeWidth, Device: "gpu6"}, 8},
		{timeline.Key{Name: timeline.GPUPCIeWidth, Device: "gpu0"}, 16},
		{timeline.Key{Name: timeline.GPUPCIeGen, Device: "gpu0"}, 5},
		{timeline.Key{Name: timeline.GPUXid, Device: "gpu0"}, 0},
	} {
		if v, ok := last.Value(c.key); !ok || v != c.want {
			t.Errorf("%s = %v (%v), want %v", c.key, v, ok, c.want)
		}
	}
	if _, ok := last.Value(timeline.Key{Name: timeline.GPUUtil, Device: "gpu1"}); ok {
		t.Error("the lost GPU still has metrics")
	}
}

// A lost demo GPU answers every call the probe makes first with
// GPU_IS_LOST, as a real driver does.
func TestLostDemoGPUAnswersLost(t *testing.T) {
	d, clock := newTestDemo(t, "faults", 1)
	clock.at(131 * time.Second)
	dev := d.devices[1]
	if _, ret := dev.GetUtilizationRates(); ret != nvml.ERROR_GPU_IS_LOST {
		t.Errorf("GetUtilizationRates: %v", ret)
	}
	if _, ret := dev.GetCurrPcieLinkWidth(); ret != nvml.ERROR_GPU_IS_LOST {
		t.Errorf("GetCurrPcieLinkWidth: %v", ret)
	}
	if ret := dev.GetFieldValues([]nvml.FieldValue{{FieldId: nvml.FI_DEV_ECC_DBE_VOL_TOTAL}}); ret != nvml.ERROR_GPU_IS_LOST {
		t.Errorf("GetFieldValues: %v", ret)
	}
	if _, ret := d.devices[0].GetUtilizationRates(); ret != nvml.SUCCESS {
		t.Errorf("GPU0: %v", ret)
	}
}
