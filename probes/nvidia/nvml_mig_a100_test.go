package nvidia

import (
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"

	"github.com/gputop-dev/gputop/probes/mockmig"
	"github.com/gputop-dev/gputop/timeline"
)

// MIG on an A100, through go-nvml's dgxa100 mock (eight A100-SXM4-40GB):
// GPU0 is split through the mock's own API and its MIG handles come from
// probes/mockmig, as in the demo. An A100 has no GPM (nvml.h, in go-nvml:
// the GPM functions are "For Hopper or newer fully supported devices"), and
// NVML gives no utilisation on a MIG-enabled GPU ("On MIG-enabled GPUs,
// querying device utilization rates is not currently supported", and
// process utilization likewise). So the probe can show each slice's memory
// and processes, and must invent nothing else: no activity, no power.

// a100Layout is GPU0's slices: 3g.20gb, 2g.10gb and 1g.5gb.
var a100Layout = []mockmig.Slice{
	{GIProfile: nvml.GPU_INSTANCE_PROFILE_3_SLICE, CIProfile: nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE},
	{GIProfile: nvml.GPU_INSTANCE_PROFILE_2_SLICE, CIProfile: nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE},
	{GIProfile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, CIProfile: nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE},
}

// a100Used is what the processes in each slice hold, by slot in a100Layout.
var a100Used = []uint64{12 << 30, 6 << 30, 4<<30 + 512<<20}

// a100Rig is the rig on the dgxa100 mock with GPU0 split into a100Layout.
// fault, if set, answers before the rig's fakes for the MIG calls.
type a100Rig struct {
	*rig
	mig   *mockmig.GPU
	fault func(fn string, on *mockmig.Device) nvml.Return
}

func newA100Rig(t *testing.T) *a100Rig {
	t.Helper()
	r := &a100Rig{rig: newRigOn(t, dgxa100.New())}
	for i, f := range r.fakes {
		// An A100-SXM4-40GB: 400 W, 1410 MHz boost, HBM2 at 1215 MHz.
		f.memTotal, f.limitMW, f.powerMW, f.clockSM, f.clockMem = 40<<30, 400_000, 180_000, 1410, 1215
		dev := r.devs[i]
		dev.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
			return nvml.GpmSupport{Version: nvml.GPM_SUPPORT_VERSION}, f.ret("GpmQueryDeviceSupport")
		}
		dev.GpmMigSampleGetFunc = func(int, nvml.GpmSample) nvml.Return { return nvml.ERROR_NOT_SUPPORTED }
	}
	dev0 := r.devs[0]
	if _, err := mockmig.Create(dev0, a100Layout); err != nil {
		t.Fatal(err)
	}
	r.mig = mockmig.New(dev0)
	r.mig.Wire()
	r.mig.Fault = func(fn string, on *mockmig.Device) nvml.Return {
		if r.fault != nil {
			if ret := r.fault(fn, on); ret != nvml.SUCCESS {
				return ret
			}
		}
		if r.fakes[0].lost {
			return nvml.ERROR_GPU_IS_LOST
		}
		return nvml.SUCCESS
	}
	handles := r.mig.Devices()
	used := map[int]uint64{}
	var procs []nvml.ProcessInfo
	for k, h := range handles {
		used[h.GI()] = a100Used[k]
		procs = append(procs, nvml.ProcessInfo{Pid: uint32(3101 + k), UsedGpuMemory: a100Used[k],
			GpuInstanceId: uint32(h.GI()), ComputeInstanceId: uint32(h.CI())})
	}
	r.mig.Used = func(gi int) uint64 { return used[gi] }
	r.fakes[0].compute = procs
	r.fakes[0].memUsed = a100Used[0] + a100Used[1] + a100Used[2]
	// On a MIG GPU the driver refuses both utilisation calls.
	r.fakes[0].rets = map[string]nvml.Return{"GetUtilizationRates": nvml.ERROR_NOT_SUPPORTED,
		"GetSamples": nvml.ERROR_NOT_SUPPORTED, "GetProcessUtilization": nvml.ERROR_NOT_SUPPORTED}
	return r
}

func TestNVMLMIGOnA100(t *testing.T) {
	r := newA100Rig(t)
	n := r.open(t)
	gpus := n.GPUs()
	if len(gpus) != 8+3 {
		t.Fatalf("%d GPUs, want 8 and 3 MIG instances", len(gpus))
	}
	handles := r.mig.Devices()
	for k, want := range []struct {
		profile string
		mem     float64
	}{{"3g.20gb", 19968 << 20}, {"2g.10gb", 9856 << 20}, {"1g.5gb", 4864 << 20}} {
		g := gpus[8+k]
		if g.MIGProfile != want.profile || g.Name != "Mock NVIDIA A100-SXM4-40GB MIG "+want.profile ||
			g.MIGGPUInstance != handles[k].GI() || g.MIGComputeInstance != handles[k].CI() || g.MIGParent != 0 ||
			g.MemTotal != want.mem || g.GPM || !g.IsMIGInstance() || !strings.HasPrefix(g.UUID, "MIG-") || g.PCIBusID != rigBusID(0) {
			t.Errorf("instance %d: %+v", k, g)
		}
	}
	// The GPU instance ids are the mock's: in the order of creation.
	if gpus[8].MIGGPUInstance != 0 || gpus[10].MIGGPUInstance != 2 {
		t.Errorf("GPU instances %d, %d, %d", gpus[8].MIGGPUInstance, gpus[9].MIGGPUInstance, gpus[10].MIGGPUInstance)
	}
	if g := gpus[0]; !g.MIG || g.GPM || g.PowerLimit != 400 || g.MemTotal != 40<<30 {
		t.Errorf("gpu0: %+v", g)
	}
	for _, want := range []string{"gpu0 Mock NVIDIA A100-SXM4-40GB", "MIG on: utilisation and per-process SM % not supported",
		"GPM not supported by the device", "gpu8: MIG 3g.20gb of gpu0 (GPU instance 0, compute instance 0)", ": GPM off"} {
		if !hasCheck(n, want) {
			t.Errorf("no check %q in:\n%s", want, strings.Join(n.Checks(), "\n"))
		}
	}

	r.collect(t, n)
	res := r.collect(t, n)
	for k := range 3 {
		rd := res[8+k]
		if rd.err != nil || rd.Lost {
			t.Errorf("instance %d: %v (lost %v)", k, rd.err, rd.Lost)
		}
		wantValue(t, rd.Reading, timeline.GPUMemUsed, float64(a100Used[k]))
		wantValue(t, rd.Reading, timeline.GPUMemTotal, gpus[8+k].MemTotal)
		// Nothing NVML does not give on an A100 slice: no activity (no
		// GPM), no utilisation, power, clocks or temperature of its own.
		for _, absent := range []string{timeline.GPUSMActive, timeline.GPUSMOccupancy, timeline.GPUTensor, timeline.GPUDRAMBW,
			timeline.GPUUtil, timeline.GPUPower, timeline.GPUTemp, timeline.GPUClockSM, timeline.GPUPCIeTx} {
			wantAbsent(t, rd.Reading, absent)
		}
	}
	// The parent: its utilisation unknown, its power its own, no GPM.
	wantValue(t, res[0].Reading, timeline.GPUUtil, math.NaN())
	wantValue(t, res[0].Reading, timeline.GPUPower, 180)
	wantAbsent(t, res[0].Reading, timeline.GPUSMActive)
	for fn, calls := range map[string]int{
		"GpmMigSampleGet":     len(r.devs[0].GpmMigSampleGetCalls()),
		"GpmSampleGet":        len(r.devs[0].GpmSampleGetCalls()),
		"GetUtilizationRates": len(r.devs[0].GetUtilizationRatesCalls()),
		"GetSamples":          len(r.devs[0].GetSamplesCalls()),
	} {
		if calls != 0 {
			t.Errorf("%s called %d times on a MIG A100", fn, calls)
		}
	}

	// The processes in the slices, with their memory and no utilisation.
	rd, err := n.ProcessProbe(nil).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var onGPU0 []timeline.Process
	for _, p := range rd.Processes {
		if p.GPU == 0 || p.GPU >= 8 {
			onGPU0 = append(onGPU0, p)
		}
	}
	if len(onGPU0) != 3 {
		t.Fatalf("processes on gpu0 and its slices: %+v", onGPU0)
	}
	for k, p := range onGPU0 {
		if p.PID != 3101+k || p.GPUMem != float64(a100Used[k]) || !math.IsNaN(p.Util) {
			t.Errorf("process %d: %+v", k, p)
		}
		// The slice its GPU and compute instance ids name.
		if p.GPU != 8+k {
			t.Errorf("process %d on GPU %d", p.PID, p.GPU)
		}
	}
	if c := len(r.devs[0].GetProcessUtilizationCalls()); c != 0 {
		t.Errorf("GetProcessUtilization called %d times on a MIG GPU", c)
	}
}

// What a driver does wrong on an A100 in MIG mode: the slices that can be
// read are, the GPU that is gone is lost with its slices, and a driver
// without the MIG functions has the GPU whole.
func TestNVMLMIGOnA100Faults(t *testing.T) {
	for _, c := range []struct {
		name string
		// setup runs before open: a fault, a missing symbol.
		setup     func(r *a100Rig)
		instances int
		lost      bool
		mig       bool // gpu0 seen in MIG mode
		check     string
	}{
		{"GetMaxMigDeviceCount not supported", func(r *a100Rig) {
			r.fault = only("GetMaxMigDeviceCount", nvml.ERROR_NOT_SUPPORTED)
		}, 0, false, true, "gpu0: MIG instances not listed: GetMaxMigDeviceCount: Not Supported"},
		{"GPU lost during the enumeration", func(r *a100Rig) {
			calls := 0
			r.fault = func(fn string, _ *mockmig.Device) nvml.Return {
				if fn == "GetMigDeviceHandleByIndex" {
					if calls++; calls > 1 {
						return nvml.ERROR_GPU_IS_LOST
					}
				}
				return nvml.SUCCESS
			}
		}, 1, true, true, "gpu0: GPU is lost (in MIG enumeration)"},
		{"GPU lost on a slice's name", func(r *a100Rig) {
			second := r.mig.Devices()[1]
			r.fault = func(fn string, on *mockmig.Device) nvml.Return {
				if fn == "GetName" && on == second {
					return nvml.ERROR_GPU_IS_LOST
				}
				return nvml.SUCCESS
			}
		}, 1, true, true, "gpu0: GPU is lost (in MIG enumeration)"},
		{"slice memory not supported", func(r *a100Rig) {
			r.fault = only("GetMemoryInfo_v2", nvml.ERROR_NOT_SUPPORTED)
		}, 3, false, true, "gpu10: MIG 1g.5gb of gpu0"},
		{"driver without GetMaxMigDeviceCount", func(r *a100Rig) {
			r.symbols["nvmlDeviceGetMaxMigDeviceCount"] = true
		}, 0, false, true, "symbol nvmlDeviceGetMaxMigDeviceCount: missing"},
		{"driver without GetMigMode", func(r *a100Rig) {
			r.symbols["nvmlDeviceGetMigMode"] = true
		}, 0, false, false, "symbol nvmlDeviceGetMigMode: missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newA100Rig(t)
			c.setup(r)
			n := r.open(t)
			if got := len(n.GPUs()) - 8; got != c.instances {
				t.Errorf("%d instances, want %d", got, c.instances)
			}
			if n.GPUs()[0].MIG != c.mig {
				t.Errorf("gpu0 MIG %v, want %v", n.GPUs()[0].MIG, c.mig)
			}
			if !hasCheck(n, c.check) {
				t.Errorf("no check %q in:\n%s", c.check, strings.Join(n.Checks(), "\n"))
			}
			res := r.collect(t, n)
			if res[0].Lost != c.lost || res[1].Lost {
				t.Errorf("lost: gpu0 %v (want %v), gpu1 %v", res[0].Lost, c.lost, res[1].Lost)
			}
			for _, rd := range res[8:] {
				if rd.Lost != c.lost {
					t.Errorf("a slice lost %v, want %v", rd.Lost, c.lost)
				}
				if !c.lost {
					wantAbsent(t, rd.Reading, timeline.GPUSMActive)
				}
			}
			if c.instances == 3 { // memory refused: unknown, never zero
				wantValue(t, res[10].Reading, timeline.GPUMemUsed, math.NaN())
				wantValue(t, res[10].Reading, timeline.GPUMemTotal, math.NaN())
			}
			if !c.mig || strings.Contains(c.name, "without") {
				if calls := len(r.devs[0].GetMaxMigDeviceCountCalls()); calls != 0 {
					t.Errorf("GetMaxMigDeviceCount called %d times", calls)
				}
			}
			if !c.mig {
				// Seen whole, the GPU is asked for utilisation, which the
				// MIG A100 refuses: unknown, not zero.
				wantValue(t, res[0].Reading, timeline.GPUUtil, math.NaN())
			}
		})
	}
	t.Run("GPU lost after open", func(t *testing.T) {
		r := newA100Rig(t)
		n := r.open(t)
		r.collect(t, n)
		r.fakes[0].lost = true
		res := r.collect(t, n)
		if !res[0].Lost || !res[8].Lost || !res[9].Lost || !res[10].Lost || res[1].Lost {
			t.Errorf("lost: gpu0 %v, slices %v %v %v, gpu1 %v", res[0].Lost, res[8].Lost, res[9].Lost, res[10].Lost, res[1].Lost)
		}
	})
}

// only faults one call, on the GPU and every handle.
func only(fn string, ret nvml.Return) func(string, *mockmig.Device) nvml.Return {
	return func(f string, _ *mockmig.Device) nvml.Return {
		if f == fn {
			return ret
		}
		return nvml.SUCCESS
	}
}
