package demo

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// The mig demo through a session: GPU0's three slices are GPUs 8-10 with
// their profiles and memory; over a minute the 3g slice's SM activity is
// high, the 1g slice's low though it holds 9 of its 10 GiB; GPU0 itself
// has no utilisation (MIG), the other seven train as ever.
func TestScenarioMIG(t *testing.T) {
	clock := probes.NewFastClock(demoStart)
	node, err := New("mig", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	info := sess.Info()
	if len(info.GPUs) != 11 {
		t.Fatalf("%d GPUs, want 8 and 3 MIG instances", len(info.GPUs))
	}
	for k, want := range []string{"3g.40gb", "2g.20gb", "1g.10gb"} {
		g := info.GPUs[8+k]
		if g.Index != 8+k || g.MIGProfile != want || g.MIGParent != 0 || !g.GPM ||
			!strings.HasSuffix(g.Name, "MIG "+want) || !strings.HasPrefix(g.UUID, "MIG-") {
			t.Errorf("instance %d: %+v", k, g)
		}
	}
	if !info.GPUs[0].MIG || info.GPUs[1].MIG {
		t.Errorf("MIG mode: gpu0 %v, gpu1 %v", info.GPUs[0].MIG, info.GPUs[1].MIG)
	}
	sums := map[string]float64{}
	var last timeline.Sample
	for range 60 {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range s.Probes {
			if ps.State != timeline.ProbeOK {
				t.Fatalf("%s %s: %s %s", ps.Probe, ps.Device, ps.State, ps.Err)
			}
		}
		for _, dev := range []string{"gpu8", "gpu9", "gpu10", "gpu3"} {
			if v, ok := s.Value(timeline.Key{Name: timeline.GPUSMActive, Device: dev}); ok && !math.IsNaN(v) {
				sums[dev] += v / 59
			}
		}
		last = s
	}
	if sums["gpu8"] < 75 || sums["gpu9"] < 30 || sums["gpu9"] > 65 || sums["gpu10"] > 12 || sums["gpu3"] < 60 {
		t.Errorf("mean SM activity %v: want 3g busy, 2g about half, 1g starved, gpu3 training", sums)
	}
	if v, ok := last.Value(timeline.Key{Name: timeline.GPUMemUsed, Device: "gpu10"}); !ok || v != 9*gib {
		t.Errorf("1g.10gb memory used %v (%v), want 9 GiB", v, ok)
	}
	if v, ok := last.Value(timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}); !ok || !math.IsNaN(v) {
		t.Errorf("gpu0 utilisation %v (%v), want unknown on a MIG GPU", v, ok)
	}
	if _, ok := last.Value(timeline.Key{Name: timeline.GPUUtil, Device: "gpu8"}); ok {
		t.Error("a MIG instance reports utilisation")
	}
}

// The layout is the mock's own state: MIG on through SetMigMode, the GPU
// and compute instances made through its API, and the ids it assigned are
// those the probe lists and those the processes in each slice carry.
func TestScenarioMIGIsMockState(t *testing.T) {
	clock := probes.NewFastClock(demoStart)
	node, err := New("mig", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	dev := node.devices[migGPU]
	if cur, pending, _ := dev.Device.GetMigMode(); cur != nvml.DEVICE_MIG_ENABLE || pending != nvml.DEVICE_MIG_ENABLE {
		t.Errorf("the mock's MIG mode %d/%d", cur, pending)
	}
	mockIDs := map[int]uint32{} // GPU instance id -> profile id, as the mock holds them
	for gi := range dev.Device.GpuInstances {
		info, _ := gi.GetInfo()
		mockIDs[int(info.Id)] = info.ProfileId
		if len(gi.ComputeInstances) != 1 {
			t.Errorf("GPU instance %d has %d compute instances", info.Id, len(gi.ComputeInstances))
		}
	}
	if len(mockIDs) != 3 {
		t.Fatalf("the mock holds GPU instances %v", mockIDs)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	profileOf := map[string]uint32{"3g.40gb": nvml.GPU_INSTANCE_PROFILE_3_SLICE,
		"2g.20gb": nvml.GPU_INSTANCE_PROFILE_2_SLICE, "1g.10gb": nvml.GPU_INSTANCE_PROFILE_1_SLICE}
	seen := map[int]bool{}
	for _, g := range sess.Info().GPUs[8:] {
		if p, ok := mockIDs[g.MIGGPUInstance]; !ok || p != profileOf[g.MIGProfile] || seen[g.MIGGPUInstance] {
			t.Errorf("%s listed as GPU instance %d; the mock holds %v", g.MIGProfile, g.MIGGPUInstance, mockIDs)
		}
		seen[g.MIGGPUInstance] = true
	}
	procs, _ := dev.GetComputeRunningProcesses()
	want := map[uint32]int{5210: 0, 5388: 1, 6021: migStarved} // PID -> slot in the layout
	for _, p := range procs {
		if gi := dev.migs[want[p.Pid]].GI(); p.GpuInstanceId != uint32(gi) || p.ComputeInstanceId != 0 {
			t.Errorf("PID %d in GPU instance %d/%d, its slice is %d", p.Pid, p.GpuInstanceId, p.ComputeInstanceId, gi)
		}
	}
	if len(procs) != 3 {
		t.Errorf("%d processes on GPU0", len(procs))
	}
	// The bare mock server answers the MIG calls too (its devices' Funcs).
	bare := node.server.Devices[migGPU]
	if n, ret := bare.GetMaxMigDeviceCount(); n != h100MaxMig || ret != nvml.SUCCESS {
		t.Errorf("bare server: GetMaxMigDeviceCount = %d, %v", n, ret)
	}
	if h, ret := bare.GetMigDeviceHandleByIndex(migStarved); ret != nvml.SUCCESS {
		t.Errorf("bare server: GetMigDeviceHandleByIndex: %v", ret)
	} else if name, _ := h.GetName(); name != "NVIDIA H100 80GB HBM3 MIG 1g.10gb" {
		t.Errorf("bare server: slice %d is %q", migStarved, name)
	}
	other, _ := node.devices[1].GetComputeRunningProcesses()
	if len(other) != 1 || other[0].GpuInstanceId != noInstance {
		t.Errorf("a process on a whole GPU: %+v", other)
	}
}
