package nvidia

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/timeline"
)

// fakeMIG is one MIG compute instance of a rig GPU.
type fakeMIG struct {
	gi, ci   int
	name     string
	memTotal uint64
	memUsed  uint64
	gpm      map[nvml.GpmMetricId]float64
	gpmRets  map[nvml.GpmMetricId]nvml.Return
	// rets overrides a function's return by name, as fakeGPU.rets does:
	// the MIG handle's ("GetGpuInstanceId", "GetMemoryInfo_v2"), and
	// "GpmMigSampleGet" and "GpmMetricsGet" for this instance.
	rets map[string]nvml.Return
	dev  *mock.Device
}

func (m *fakeMIG) ret(fn string) nvml.Return {
	if r, ok := m.rets[fn]; ok {
		return r
	}
	return nvml.SUCCESS
}

// migSlots is what an H100 80GB gives as its maximum of MIG devices.
const migSlots = 7

// wireMIG answers the MIG calls of a rig GPU from f.migs.
func (r *rig) wireMIG(d *server.Device, f *fakeGPU) {
	d.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return migSlots, f.ret("GetMaxMigDeviceCount") }
	d.GetMigDeviceHandleByIndexFunc = func(k int) (nvml.Device, nvml.Return) {
		if ret := f.ret("GetMigDeviceHandleByIndex"); ret != nvml.SUCCESS {
			return nil, ret
		}
		if k < 0 || k >= migSlots {
			return nil, nvml.ERROR_INVALID_ARGUMENT
		}
		if k >= len(f.migs) || f.migs[k] == nil {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return f.migs[k].dev, nvml.SUCCESS
	}
	d.GpmMigSampleGetFunc = func(gi int, s nvml.GpmSample) nvml.Return {
		if f.lost {
			return nvml.ERROR_GPU_IS_LOST
		}
		for _, m := range f.migs {
			if m != nil && m.gi == gi {
				r.mu.Lock()
				r.migOwner[s] = m
				r.mu.Unlock()
				return m.ret("GpmMigSampleGet")
			}
		}
		return nvml.ERROR_INVALID_ARGUMENT
	}
}

// addMIG turns MIG on for rig GPU i with the given instances in slots
// 0, 1, ... (nil: an empty slot).
func (r *rig) addMIG(i int, migs ...*fakeMIG) {
	r.devs[i].MigMode = nvml.DEVICE_MIG_ENABLE
	f := r.fakes[i]
	for _, m := range migs {
		if m != nil {
			m.wire(f)
		}
	}
	f.migs = migs
}

func (m *fakeMIG) wire(parent *fakeGPU) {
	lost := func(fn string) nvml.Return {
		if parent.lost {
			return nvml.ERROR_GPU_IS_LOST
		}
		return m.ret(fn)
	}
	m.dev = &mock.Device{
		GetGpuInstanceIdFunc:     func() (int, nvml.Return) { return m.gi, lost("GetGpuInstanceId") },
		GetComputeInstanceIdFunc: func() (int, nvml.Return) { return m.ci, lost("GetComputeInstanceId") },
		GetNameFunc:              func() (string, nvml.Return) { return m.name, lost("GetName") },
		GetUUIDFunc: func() (string, nvml.Return) {
			return "MIG-" + strings.ReplaceAll(m.name, " ", "-"), lost("GetUUID")
		},
		GetMemoryInfo_v2Func: func() (nvml.Memory_v2, nvml.Return) {
			return nvml.Memory_v2{Total: m.memTotal, Used: m.memUsed, Free: m.memTotal - m.memUsed}, lost("GetMemoryInfo_v2")
		},
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: m.memTotal, Used: m.memUsed, Free: m.memTotal - m.memUsed}, lost("GetMemoryInfo")
		},
	}
}

// h100Slices is GPU0 of the demo's layout: 3g.40gb, 2g.20gb and 1g.10gb,
// with an empty slot between the last two.
func h100Slices() []*fakeMIG {
	return []*fakeMIG{
		{gi: 2, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 3g.40gb", memTotal: 40 << 30, memUsed: 30 << 30,
			gpm: map[nvml.GpmMetricId]float64{nvml.GPM_METRIC_SM_UTIL: 91, nvml.GPM_METRIC_SM_OCCUPANCY: 60}},
		{gi: 3, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 2g.20gb", memTotal: 20 << 30, memUsed: 5 << 30,
			gpm: map[nvml.GpmMetricId]float64{nvml.GPM_METRIC_SM_UTIL: 40}},
		nil,
		{gi: 9, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 1g.10gb", memTotal: 10 << 30, memUsed: 9 << 30,
			gpm: map[nvml.GpmMetricId]float64{nvml.GPM_METRIC_SM_UTIL: 3}},
	}
}

func TestNVMLMIGInstancesAreGPUs(t *testing.T) {
	r := newRig(t)
	r.addMIG(0, h100Slices()...)
	n := r.open(t)
	gpus := n.GPUs()
	if len(gpus) != 8+3 {
		t.Fatalf("%d GPUs, want 8 and 3 MIG instances", len(gpus))
	}
	want := []struct {
		profile string
		gi      int
		mem     float64
	}{{"3g.40gb", 2, 40 << 30}, {"2g.20gb", 3, 20 << 30}, {"1g.10gb", 9, 10 << 30}}
	for k, w := range want {
		g := gpus[8+k]
		if g.Index != 8+k || !g.IsMIGInstance() || g.MIGProfile != w.profile || g.MIGParent != 0 ||
			g.MIGGPUInstance != w.gi || g.MemTotal != w.mem || !g.GPM || !g.MIG || g.PCIBusID != rigBusID(0) {
			t.Errorf("instance %d: %+v", k, g)
		}
	}
	if gpus[0].IsMIGInstance() || !gpus[0].MIG {
		t.Errorf("gpu0: %+v", gpus[0])
	}
	probes := n.Probes()
	if len(probes) != 11 || probes[10].Device() != "gpu10" {
		t.Fatalf("%d probes, last %s", len(probes), probes[len(probes)-1].Device())
	}
	r.collect(t, n)
	res := r.collect(t, n)
	for k, sm := range []float64{91, 40, 3} {
		rd := res[8+k]
		if rd.err != nil {
			t.Errorf("instance %d: %v", k, rd.err)
		}
		wantValue(t, rd.Reading, timeline.GPUSMActive, sm)
		// Utilisation, power and clocks are the parent's: never reported
		// for a slice, not even as unknown.
		for _, absent := range []string{timeline.GPUUtil, timeline.GPUPower, timeline.GPUPCIeTx, timeline.GPUTemp} {
			wantAbsent(t, rd.Reading, absent)
		}
	}
	wantValue(t, res[10].Reading, timeline.GPUMemUsed, 9<<30)
	wantValue(t, res[10].Reading, timeline.GPUMemTotal, 10<<30)
	if !hasCheck(n, "gpu10: MIG 1g.10gb of gpu0 (GPU instance 9, compute instance 0)") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
}

func TestNVMLMIGProfileFromName(t *testing.T) {
	for _, c := range []struct {
		name   string
		gi, ci int
		want   string
	}{
		{"NVIDIA H100 80GB HBM3 MIG 3g.40gb", 2, 0, "3g.40gb"},
		{"NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb", 1, 2, "1c.3g.20gb"},
		{"NVIDIA A100-SXM4-40GB", 1, 2, "gi1.ci2"},
		{"", 7, 0, "gi7.ci0"},
		{"MIG ", 3, 1, "gi3.ci1"},
	} {
		if got := migProfile(c.name, c.gi, c.ci); got != c.want {
			t.Errorf("migProfile(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// Each MIG call that fails at open: unsupported (or missing from the
// driver) skips what it would give; a lost GPU ends its listing.
func TestNVMLMIGOpenFailures(t *testing.T) {
	for _, c := range []struct {
		fn        string
		ret       nvml.Return
		instances int
		lost      bool
		check     string
	}{
		{"GetMaxMigDeviceCount", nvml.ERROR_NOT_SUPPORTED, 0, false, "MIG instances not listed: GetMaxMigDeviceCount: Not Supported"},
		{"GetMaxMigDeviceCount", nvml.ERROR_FUNCTION_NOT_FOUND, 0, false, "GetMaxMigDeviceCount: Function Not Found"},
		{"GetMaxMigDeviceCount", nvml.ERROR_GPU_IS_LOST, 0, false, "GetMaxMigDeviceCount: GPU is lost"},
		{"GetMigDeviceHandleByIndex", nvml.ERROR_NOT_SUPPORTED, 0, false, "MIG slot 0: GetMigDeviceHandleByIndex: Not Supported"},
		{"GetMigDeviceHandleByIndex", nvml.ERROR_FUNCTION_NOT_FOUND, 0, false, "GetMigDeviceHandleByIndex: Function Not Found"},
		{"GetMigDeviceHandleByIndex", nvml.ERROR_GPU_IS_LOST, 0, true, "GPU is lost (in MIG enumeration)"},
		{"GetGpuInstanceId", nvml.ERROR_NOT_SUPPORTED, 0, false, "GetGpuInstanceId: Not Supported"},
		{"GetGpuInstanceId", nvml.ERROR_FUNCTION_NOT_FOUND, 0, false, "GetGpuInstanceId: Function Not Found"},
		{"GetGpuInstanceId", nvml.ERROR_GPU_IS_LOST, 0, true, "GPU is lost"},
		{"GetComputeInstanceId", nvml.ERROR_NOT_SUPPORTED, 0, false, "GetComputeInstanceId: Not Supported"},
		{"GetComputeInstanceId", nvml.ERROR_FUNCTION_NOT_FOUND, 0, false, "GetComputeInstanceId: Function Not Found"},
		{"GetComputeInstanceId", nvml.ERROR_GPU_IS_LOST, 0, true, "GPU is lost"},
		{"GetMemoryInfo_v2", nvml.ERROR_NOT_SUPPORTED, 3, false, "MIG 1g.10gb of gpu0"},
		{"GetMemoryInfo_v2", nvml.ERROR_GPU_IS_LOST, 0, true, "GPU is lost"},
		{"GetName", nvml.ERROR_NOT_SUPPORTED, 3, false, "MIG gi9.ci0 of gpu0"},
	} {
		t.Run(c.fn+"/"+returnText(c.ret), func(t *testing.T) {
			r := newRig(t)
			slices := h100Slices()
			switch c.fn {
			case "GetMaxMigDeviceCount", "GetMigDeviceHandleByIndex":
				r.fakes[0].rets = map[string]nvml.Return{c.fn: c.ret}
			default:
				for _, m := range slices {
					if m != nil {
						m.rets = map[string]nvml.Return{c.fn: c.ret}
					}
				}
			}
			r.addMIG(0, slices...)
			n := r.open(t)
			if got := len(n.GPUs()) - 8; got != c.instances {
				t.Errorf("%d instances, want %d", got, c.instances)
			}
			res := r.collect(t, n)
			if c.lost != res[0].Lost {
				t.Errorf("gpu0 lost %v, want %v", res[0].Lost, c.lost)
			}
			if !hasCheck(n, c.check) {
				t.Errorf("no check %q in:\n%s", c.check, strings.Join(n.Checks(), "\n"))
			}
		})
	}
}

// Unsupported memory on a MIG handle: unknown, and not asked again.
func TestNVMLMIGMemoryUnsupported(t *testing.T) {
	r := newRig(t)
	slices := h100Slices()
	r.addMIG(0, slices...)
	n := r.open(t)
	slices[0].rets = map[string]nvml.Return{"GetMemoryInfo_v2": nvml.ERROR_NOT_SUPPORTED}
	r.collect(t, n)
	res := r.collect(t, n)[8]
	wantValue(t, res.Reading, timeline.GPUMemUsed, math.NaN())
	if c := len(slices[0].dev.GetMemoryInfo_v2Calls()); c != 2 { // at open, and the first tick
		t.Errorf("GetMemoryInfo_v2 called %d times, want 2", c)
	}
}

// GPM per instance: unsupported or missing gives it up (absent from then
// on); a lost GPU loses its instances with it; an old driver without
// GpmMigSampleGet has the instances without GPM.
func TestNVMLMIGGPMFailures(t *testing.T) {
	for _, c := range []struct {
		fn   string
		ret  nvml.Return
		lost bool
	}{
		{"GpmMigSampleGet", nvml.ERROR_NOT_SUPPORTED, false},
		{"GpmMigSampleGet", nvml.ERROR_FUNCTION_NOT_FOUND, false},
		{"GpmMetricsGet", nvml.ERROR_NOT_SUPPORTED, false},
		{"GpmMetricsGet", nvml.ERROR_FUNCTION_NOT_FOUND, false},
		{"GpmMigSampleGet", nvml.ERROR_GPU_IS_LOST, true},
	} {
		t.Run(c.fn+"/"+returnText(c.ret), func(t *testing.T) {
			r := newRig(t)
			slices := h100Slices()
			r.addMIG(0, slices...)
			n := r.open(t)
			slices[3].rets = map[string]nvml.Return{c.fn: c.ret}
			r.collect(t, n)
			r.collect(t, n)
			res := r.collect(t, n)
			if c.lost {
				if !res[8].Lost || !res[10].Lost || !res[0].Lost || res[1].Lost {
					t.Errorf("lost: gpu0 %v, instances %v %v, gpu1 %v", res[0].Lost, res[8].Lost, res[10].Lost, res[1].Lost)
				}
				return
			}
			wantAbsent(t, res[10].Reading, timeline.GPUSMActive)
			wantValue(t, res[10].Reading, timeline.GPUMemUsed, 9<<30)
			wantValue(t, res[8].Reading, timeline.GPUSMActive, 91)
			if !hasCheck(n, "gpu10: GPM "+map[string]string{"GpmMigSampleGet": "MIG sample", "GpmMetricsGet": "metrics"}[c.fn]) {
				t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
			}
		})
	}
	t.Run("driver without GpmMigSampleGet", func(t *testing.T) {
		r := newRig(t)
		r.symbols[symGPMMig] = true
		r.addMIG(0, h100Slices()...)
		n := r.open(t)
		if len(n.GPUs()) != 11 || n.GPUs()[8].GPM {
			t.Fatalf("%+v", n.GPUs()[8:])
		}
		r.collect(t, n)
		res := r.collect(t, n)[8]
		wantAbsent(t, res.Reading, timeline.GPUSMActive)
		if c := len(r.devs[0].GpmMigSampleGetCalls()); c != 0 {
			t.Errorf("GpmMigSampleGet called %d times", c)
		}
	})
	t.Run("driver without MIG device functions", func(t *testing.T) {
		r := newRig(t)
		r.symbols["nvmlDeviceGetMigDeviceHandleByIndex"] = true
		r.addMIG(0, h100Slices()...)
		n := r.open(t)
		if len(n.GPUs()) != 8 || len(r.devs[0].GetMaxMigDeviceCountCalls()) != 0 {
			t.Errorf("%d GPUs, %d calls", len(n.GPUs()), len(r.devs[0].GetMaxMigDeviceCountCalls()))
		}
	})
}

// The profile, from a name the driver gives, is a short printable label.
// The seeds in testdata/fuzz/FuzzMIGProfile are the names nvidia-smi -L
// shows for an H100's and an A100's MIG devices, written by hand.
func FuzzMIGProfile(f *testing.F) {
	f.Add("NVIDIA H100 80GB HBM3 MIG 3g.40gb", 2, 0)
	f.Add("NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb", 1, 1)
	f.Add("MIG \x00\x01", 3, 0)
	f.Fuzz(func(t *testing.T, name string, gi, ci int) {
		got := migProfile(name, gi, ci)
		if got == "" || len(got) > max(migProfileMax, len(fmt.Sprintf("gi%d.ci%d", gi, ci))) {
			t.Fatalf("migProfile(%q) = %q", name, got)
		}
		for _, c := range []byte(got) {
			if c <= ' ' || c > '~' {
				t.Fatalf("migProfile(%q) = %q holds %#x", name, got, c)
			}
		}
	})
}
