package demo

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// What each demo device answers, call by call, as the NVML probe reads it.

// NVML takes a utilisation sample every 1/6 s on an H100; GetSamples hands
// back each one newer than lastSeen, so a one-second tick sees six.
func TestGetSamplesReturnsEverySubSecondSample(t *testing.T) {
	d, clock := newTestDemo(t, "input-bound", 3)
	dev := handle(t, d, 0)
	if _, _, ret := dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0); ret != nvml.ERROR_NOT_FOUND {
		t.Errorf("at time zero: %v, want ERROR_NOT_FOUND (no sample has ended)", ret)
	}
	var lastSeen uint64
	saw := map[uint32]bool{}
	for s := 1; s <= 60; s++ {
		clock.at(time.Duration(s) * time.Second)
		now := uint64(clock.Now().UnixMicro())
		vt, samples, ret := dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, lastSeen)
		if ret != nvml.SUCCESS || vt != nvml.VALUE_TYPE_UNSIGNED_INT || len(samples) != slotsPerSecond {
			t.Fatalf("second %d: %d samples, type %v, %v; want 6 unsigned ints", s, len(samples), vt, ret)
		}
		for _, smp := range samples {
			if smp.TimeStamp <= lastSeen || smp.TimeStamp > now {
				t.Fatalf("second %d: timestamp %d outside (%d, %d]", s, smp.TimeStamp, lastSeen, now)
			}
			lastSeen = smp.TimeStamp
			v := binary.LittleEndian.Uint32(smp.SampleValue[:4])
			if v > 100 {
				t.Fatalf("utilisation %d %%", v)
			}
			saw[v/10] = true
		}
		if _, _, ret := dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, lastSeen); ret != nvml.ERROR_NOT_FOUND {
			t.Errorf("second %d: asked again with nothing new: %v, want ERROR_NOT_FOUND", s, ret)
		}
	}
	// The sawtooth's edges fall inside slots: partly busy slots read
	// between idle and busy, not only 0 and 100.
	if !saw[0] || !saw[9] || len(saw) < 4 {
		t.Errorf("sample values by tens: %v, want idle, busy and edges", saw)
	}
	clock.at(time.Hour)
	if _, samples, _ := dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0); len(samples) != sampleBuffer {
		t.Errorf("lastSeen 0 after an hour: %d samples, want NVML's buffer of %d", len(samples), sampleBuffer)
	}
}

// Power is the last second's average, and the energy counter is its
// integral: over any whole second the two agree, as on a real H100.
func TestEnergyCounterIsTheIntegralOfPower(t *testing.T) {
	d, clock := newTestDemo(t, "checkpoint", 4)
	dev := handle(t, d, 0)
	prev, _ := dev.GetTotalEnergyConsumption()
	for s := 1; s <= 300; s++ {
		clock.at(time.Duration(s) * time.Second)
		e, _ := dev.GetTotalEnergyConsumption()
		p, _ := dev.GetPowerUsage()
		if diff := math.Abs(float64(e-prev) - float64(p)); diff > 2 { // mJ over 1 s vs mW: rounding only
			t.Fatalf("second %d: energy rose %d mJ, power %d mW", s, e-prev, p)
		}
		prev = e
	}
}

// GPM's averages between two samples are the script's averages over the
// time between them, whatever that time is.
func TestGPMAveragesBetweenSamples(t *testing.T) {
	d, clock := newTestDemo(t, "imbalance", 8)
	lib := d.NVML()
	dev := handle(t, d, imbalanceBusyGPU)
	if sup, ret := dev.GpmQueryDeviceSupport(); ret != nvml.SUCCESS || sup.IsSupportedDevice != 1 {
		t.Fatalf("GpmQueryDeviceSupport = %+v, %v", sup, ret)
	}
	s1, _ := lib.GpmSampleAlloc()
	s2, _ := lib.GpmSampleAlloc()
	clock.at(10 * time.Second)
	if ret := dev.GpmSampleGet(s1); ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	clock.at(12500 * time.Millisecond)
	if ret := lib.GpmSampleGet(dev, s2); ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	req := &nvml.GpmMetricsGetType{NumMetrics: 3, Sample1: s1, Sample2: s2}
	req.Metrics[0].MetricId = uint32(nvml.GPM_METRIC_SM_UTIL)
	req.Metrics[1].MetricId = uint32(nvml.GPM_METRIC_PCIE_RX_PER_SEC)
	req.Metrics[2].MetricId = uint32(nvml.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC)
	if ret := lib.GpmMetricsGet(req); ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	gpu := d.devices[imbalanceBusyGPU].gpu
	sm := timeMean(10e6, 12.5e6, func(k int64) float64 { return gpu.state(k).SM })
	rx := timeMean(10e6, 12.5e6, func(k int64) float64 { return gpu.state(k).Rx })
	if got := req.Metrics[0].Value; math.Abs(got-sm) > 1e-9 || req.Metrics[0].NvmlReturn != uint32(nvml.SUCCESS) {
		t.Errorf("SM activity %v, want the slots' mean %v", got, sm)
	}
	if got, want := req.Metrics[1].Value, rx/(1<<20); math.Abs(got-want) > 1e-6 {
		t.Errorf("PCIe rx %v MiB/s, want %v", got, want)
	}
	if req.Metrics[2].NvmlReturn != uint32(nvml.ERROR_NOT_SUPPORTED) {
		t.Errorf("NVLink (not scripted): return %d, want NOT_SUPPORTED", req.Metrics[2].NvmlReturn)
	}
	other, _ := lib.GpmSampleAlloc()
	if ret := handle(t, d, 0).GpmSampleGet(other); ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	for _, bad := range []*nvml.GpmMetricsGetType{
		{NumMetrics: 1, Sample1: s2, Sample2: s1},    // backwards in time
		{NumMetrics: 1, Sample1: s1, Sample2: other}, // two GPUs
	} {
		if ret := lib.GpmMetricsGet(bad); ret != nvml.ERROR_INVALID_ARGUMENT {
			t.Errorf("GpmMetricsGet(bad pair) = %v, want ERROR_INVALID_ARGUMENT", ret)
		}
	}
}

func TestPCIeFieldCountersDeriveTheScriptedRates(t *testing.T) {
	d, clock := newTestDemo(t, "training", 2)
	dev := handle(t, d, 3)
	read := func() (tx, rx float64) {
		f := []nvml.FieldValue{{FieldId: nvml.FI_DEV_PCIE_COUNT_TX_BYTES}, {FieldId: nvml.FI_DEV_PCIE_COUNT_RX_BYTES}, {FieldId: nvml.FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL}}
		if ret := dev.GetFieldValues(f); ret != nvml.SUCCESS {
			t.Fatal(ret)
		}
		for _, v := range f[:2] {
			if v.NvmlReturn != uint32(nvml.SUCCESS) || v.ValueType != uint32(nvml.VALUE_TYPE_UNSIGNED_LONG_LONG) {
				t.Fatalf("field %d: return %d type %d", v.FieldId, v.NvmlReturn, v.ValueType)
			}
		}
		if f[2].NvmlReturn != uint32(nvml.ERROR_NOT_SUPPORTED) {
			t.Errorf("unscripted field: return %d, want NOT_SUPPORTED", f[2].NvmlReturn)
		}
		return float64(binary.LittleEndian.Uint64(f[0].Value[:])), float64(binary.LittleEndian.Uint64(f[1].Value[:]))
	}
	clock.at(100 * time.Second)
	tx0, rx0 := read()
	clock.at(101 * time.Second)
	tx1, rx1 := read()
	gpu := d.devices[3].gpu
	tx := timeMean(100e6, 101e6, func(k int64) float64 { return gpu.state(k).Tx })
	rx := timeMean(100e6, 101e6, func(k int64) float64 { return gpu.state(k).Rx })
	if math.Abs(tx1-tx0-tx) > 2 || math.Abs(rx1-rx0-rx) > 2 {
		t.Errorf("counters rose %.0f / %.0f bytes in a second, script says %.0f / %.0f", tx1-tx0, rx1-rx0, tx, rx)
	}
	if ret := dev.GetFieldValues(nil); ret != nvml.ERROR_INVALID_ARGUMENT {
		t.Errorf("GetFieldValues(empty) = %v, want ERROR_INVALID_ARGUMENT", ret)
	}
}

// The bare mock server answers every call the NVML probe makes (see the
// list in probes/nvidia/nvml.go), so code handed dgxh100's server never meets a nil Func.
func TestBareServerAnswersEveryProbeCall(t *testing.T) {
	d, clock := newTestDemo(t, "cpu-fallback", 1)
	clock.at(5 * time.Second)
	srv := d.server
	ok := func(what string, ret nvml.Return) {
		t.Helper()
		if ret != nvml.SUCCESS {
			t.Errorf("%s: %v", what, ret)
		}
	}
	second := func(_ any, ret nvml.Return) nvml.Return { return ret }
	ok("Init", srv.Init())
	ok("SystemGetDriverVersion", second(srv.SystemGetDriverVersion()))
	ok("SystemGetCudaDriverVersion", second(srv.SystemGetCudaDriverVersion()))
	ok("DeviceGetCount", second(srv.DeviceGetCount()))
	if err := srv.Extensions().LookupSymbol("nvmlGpmMetricsGet"); err != nil {
		t.Error(err)
	}
	for _, dev := range srv.Devices {
		ok("GetName", second(dev.GetName()))
		ok("GetUUID", second(dev.GetUUID()))
		ok("GetPciInfo", second(dev.GetPciInfo()))
		ok("GetMemoryInfo", second(dev.GetMemoryInfo()))
		ok("GetMemoryInfo_v2", second(dev.GetMemoryInfo_v2()))
		ok("GetEnforcedPowerLimit", second(dev.GetEnforcedPowerLimit()))
		_, _, ret := dev.GetMigMode()
		ok("GetMigMode", ret)
		ok("GpmQueryDeviceSupport", second(dev.GpmQueryDeviceSupport()))
		ok("GetUtilizationRates", second(dev.GetUtilizationRates()))
		_, _, ret = dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0)
		ok("GetSamples", ret)
		ok("GetPowerUsage", second(dev.GetPowerUsage()))
		ok("GetTotalEnergyConsumption", second(dev.GetTotalEnergyConsumption()))
		ok("GetTemperature", second(dev.GetTemperature(nvml.TEMPERATURE_GPU)))
		ok("GetClockInfo(SM)", second(dev.GetClockInfo(nvml.CLOCK_SM)))
		ok("GetClockInfo(MEM)", second(dev.GetClockInfo(nvml.CLOCK_MEM)))
		ok("GetCurrentClocksEventReasons", second(dev.GetCurrentClocksEventReasons()))
		ok("GetCurrentClocksThrottleReasons", second(dev.GetCurrentClocksThrottleReasons()))
		ok("GetFieldValues", dev.GetFieldValues([]nvml.FieldValue{{FieldId: nvml.FI_DEV_PCIE_COUNT_TX_BYTES}}))
		ok("GetMaxPcieLinkGeneration", second(dev.GetMaxPcieLinkGeneration()))
		ok("GetMaxPcieLinkWidth", second(dev.GetMaxPcieLinkWidth()))
		ok("GetCurrPcieLinkGeneration", second(dev.GetCurrPcieLinkGeneration()))
		ok("GetCurrPcieLinkWidth", second(dev.GetCurrPcieLinkWidth()))
		ok("GetSupportedEventTypes", second(dev.GetSupportedEventTypes()))
		set, ret := srv.EventSetCreate()
		ok("EventSetCreate", ret)
		ok("RegisterEvents", dev.RegisterEvents(nvml.EventTypeXidCriticalError, set))
		ok("EventSet.Free", set.Free())
		ok("GetComputeRunningProcesses", second(dev.GetComputeRunningProcesses()))
		ok("GetGraphicsRunningProcesses", second(dev.GetGraphicsRunningProcesses()))
		// GPU0 runs the job; the others have no process to report on.
		if _, ret := dev.GetProcessUtilization(0); ret != nvml.SUCCESS && ret != nvml.ERROR_NOT_FOUND {
			t.Errorf("GetProcessUtilization: %v", ret)
		}
		s1, ret := srv.GpmSampleAlloc()
		ok("GpmSampleAlloc", ret)
		s2, ret := srv.GpmSampleAlloc()
		ok("GpmSampleAlloc", ret)
		ok("GpmSampleGet (device)", dev.GpmSampleGet(s1))
		clock.at(6 * time.Second)
		ok("GpmSampleGet (library)", srv.GpmSampleGet(dev, s2))
		ok("GpmMetricsGet", srv.GpmMetricsGet(&nvml.GpmMetricsGetType{Sample1: s1, Sample2: s2}))
		ok("GpmSample.Free", s1.Free())
		ok("GpmSampleFree", srv.GpmSampleFree(s2))
		clock.at(5 * time.Second)
	}
	ok("Shutdown", srv.Shutdown())
}

// go-nvml's mock appends every call to a slice it never trims; the demo's
// handles must bypass it, or a demo left running for days grows without end.
func TestRunningDemoLeavesTheMockCallLogsEmpty(t *testing.T) {
	r := recordDemo(t, "training", 1, 60)
	for i, dev := range r.demo.server.Devices {
		m := dev.(*server.Device)
		logged := len(m.GetSamplesCalls()) + len(m.GetTemperatureCalls()) + len(m.GetClockInfoCalls()) +
			len(m.GetFieldValuesCalls()) + len(m.GpmSampleGetCalls()) + len(m.GetProcessUtilizationCalls())
		if logged != 0 {
			t.Errorf("gpu%d: the mock logged %d calls after 60 ticks", i, logged)
		}
	}
	if n := len(r.demo.server.GpmMetricsGetCalls()); n != 0 {
		t.Errorf("the mock logged %d GpmMetricsGet calls (19 KB each)", n)
	}
	for _, c := range r.nvml.Checks() {
		for _, bad := range []string{"missing", "no longer asked", "GPM off", "not monitored", "lost"} {
			if strings.Contains(c, bad) {
				t.Errorf("the probe gave something up on the demo: %q", c)
			}
		}
	}
}

// timeMean is the time-weighted mean of a per-slot value between two
// instants (µs since the demo began): slots last 166666 or 166667 µs, and
// the ends may cut a slot, so a plain mean over slots would be off.
func timeMean(from, to int64, f func(k int64) float64) float64 {
	var sum float64
	for k := slotAt(from); k <= slotAt(to); k++ {
		lo, hi := max(from, slotStart(k)), min(to, slotStart(k+1))
		if hi > lo {
			sum += f(k) * float64(hi-lo)
		}
	}
	return sum / float64(to-from)
}

// A snapshot taken as the demo starts still gets each process's SM share,
// as it would from a driver that was sampling before gputop started; and a
// later call returns only what is newer than what it saw.
func TestProcessUtilizationFromTheFirstInstant(t *testing.T) {
	d, clock := newTestDemo(t, "training", 1)
	dev := handle(t, d, 2)
	clock.at(50 * time.Millisecond)
	first, ret := dev.GetProcessUtilization(0)
	if ret != nvml.SUCCESS || len(first) != 1 || first[0].Pid != 4102 || first[0].SmUtil < 90 {
		t.Fatalf("at 50 ms: %+v, %v; want rank 2 busy", first, ret)
	}
	if _, ret := dev.GetProcessUtilization(first[0].TimeStamp); ret != nvml.ERROR_NOT_FOUND {
		t.Errorf("again at the same instant: %v, want ERROR_NOT_FOUND", ret)
	}
	clock.at(5 * time.Second)
	later, ret := dev.GetProcessUtilization(first[0].TimeStamp)
	if ret != nvml.SUCCESS || later[0].TimeStamp <= first[0].TimeStamp || later[0].TimeStamp > uint64(clock.Now().UnixMicro()) {
		t.Errorf("5 s later: %+v, %v; want a newer sample, not from the future", later, ret)
	}
	if _, ret := handle(t, d, 2).GetProcessUtilization(later[0].TimeStamp); ret != nvml.ERROR_NOT_FOUND {
		t.Errorf("nothing new: %v, want ERROR_NOT_FOUND", ret)
	}
}
