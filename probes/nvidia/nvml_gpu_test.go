package nvidia

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/timeline"
)

func TestNVMLNotSupportedIsNaNAndNotAskedAgain(t *testing.T) {
	for _, tc := range []struct {
		fn      string // the fake's name for the function
		metrics []string
		calls   func(d *server.Device) int
	}{
		{"GetTemperature", []string{timeline.GPUTemp},
			func(d *server.Device) int { return len(d.GetTemperatureCalls()) }},
		{"GetPowerUsage", []string{timeline.GPUPower},
			func(d *server.Device) int { return len(d.GetPowerUsageCalls()) }},
		{"GetTotalEnergyConsumption", []string{timeline.GPUEnergy},
			func(d *server.Device) int { return len(d.GetTotalEnergyConsumptionCalls()) }},
		{"GetEnforcedPowerLimit", []string{timeline.GPUPowerLimit},
			func(d *server.Device) int { return len(d.GetEnforcedPowerLimitCalls()) }},
		{"GetMemoryInfo_v2", []string{timeline.GPUMemUsed, timeline.GPUMemTotal, timeline.GPUMemFree},
			func(d *server.Device) int { return len(d.GetMemoryInfo_v2Calls()) }},
		{"GetCurrentClocksEventReasons", []string{timeline.GPUThrottle},
			func(d *server.Device) int { return len(d.GetCurrentClocksEventReasonsCalls()) }},
		{"GetUtilizationRates", []string{timeline.GPUMemUtil},
			func(d *server.Device) int { return len(d.GetUtilizationRatesCalls()) }},
		{"GetFieldValues", []string{timeline.GPUPCIeTxBytes, timeline.GPUPCIeRxBytes},
			func(d *server.Device) int { return len(pcieFieldCalls(d)) }},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			r := newRig(t)
			r.symbols["nvmlGpmSampleAlloc"] = true // PCIe from the counters
			f := r.fakes[2]
			f.rets = map[string]nvml.Return{tc.fn: nvml.ERROR_NOT_SUPPORTED}
			n := r.open(t)
			atOpen := tc.calls(r.devs[2])
			var last tickResult
			for range 3 {
				r.advance(t, 5*time.Second)
				last = r.collect(t, n)[2]
				if last.err != nil {
					t.Fatalf("not supported is not an error: %v", last.err)
				}
			}
			for _, m := range tc.metrics {
				wantValue(t, last.Reading, m, math.NaN())
			}
			// Called once (at open or on the first tick), then never.
			if got := tc.calls(r.devs[2]); got != 1 {
				t.Errorf("called %d times (%d at open), want 1", got, atOpen)
			}
			// The other GPUs still read it.
			if got := tc.calls(r.devs[3]); got < 3 {
				t.Errorf("gpu3 called it %d times", got)
			}
			if !hasCheck(n, "gpu2: ") || !hasCheck(n, "Not Supported, no longer asked") {
				t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
			}
		})
	}
}

func TestNVMLPCIeFieldNotSupported(t *testing.T) {
	r := newRig(t)
	r.symbols["nvmlGpmSampleAlloc"] = true
	f := r.fakes[0]
	f.fieldRets = map[uint32]nvml.Return{nvml.FI_DEV_PCIE_COUNT_TX_BYTES: nvml.ERROR_NOT_SUPPORTED}
	n := r.open(t)
	res := r.collect(t, n)[0]
	wantValue(t, res.Reading, timeline.GPUPCIeTxBytes, math.NaN())
	wantValue(t, res.Reading, timeline.GPUPCIeRxBytes, 1<<39)
	r.collect(t, n)
	calls := pcieFieldCalls(r.devs[0])
	if len(calls) != 2 || len(calls[1].FieldValues) != 1 || calls[1].FieldValues[0].FieldId != nvml.FI_DEV_PCIE_COUNT_RX_BYTES {
		t.Fatalf("second tick asked %+v, want only the rx field", calls)
	}
	// With neither field left, GetFieldValues is not called (an empty
	// slice would panic in go-nvml).
	f.fieldRets[nvml.FI_DEV_PCIE_COUNT_RX_BYTES] = nvml.ERROR_NOT_SUPPORTED
	r.collect(t, n)
	res = r.collect(t, n)[0]
	if c := len(pcieFieldCalls(r.devs[0])); c != 3 {
		t.Errorf("GetFieldValues called %d times, want 3", c)
	}
	wantValue(t, res.Reading, timeline.GPUPCIeRxBytes, math.NaN())
}

func TestNVMLOtherErrorsAreNaNForOneTick(t *testing.T) {
	r := newRig(t)
	f := r.fakes[1]
	f.rets = map[string]nvml.Return{"GetTemperature": nvml.ERROR_UNKNOWN, "GetClockInfo/SM": nvml.ERROR_TIMEOUT}
	n := r.open(t)
	res := r.collect(t, n)[1]
	if res.err == nil || res.err.Error() != "temperature: Unknown Error; SM clock: Timeout" {
		t.Errorf("error %q", res.err)
	}
	wantValue(t, res.Reading, timeline.GPUTemp, math.NaN())
	wantValue(t, res.Reading, timeline.GPUClockSM, math.NaN())
	wantValue(t, res.Reading, timeline.GPUClockMem, 2619)
	wantValue(t, res.Reading, timeline.GPUPower, 300)

	f.rets = nil
	res = r.collect(t, n)[1]
	if res.err != nil {
		t.Errorf("tick 2: %v", res.err)
	}
	wantValue(t, res.Reading, timeline.GPUTemp, 60)
	wantValue(t, res.Reading, timeline.GPUClockSM, 1980)
}

func TestNVMLGPULostMidRun(t *testing.T) {
	r := newRig(t)
	n := r.open(t)
	procs := n.ProcessProbe(nil)
	r.collect(t, n)

	r.fakes[3].lost = true
	res := r.collect(t, n)
	if !res[3].Lost || !errors.Is(res[3].err, ErrGPULost) || res[3].err.Error() != "GPU is lost" {
		t.Fatalf("gpu3: lost %v, error %v", res[3].Lost, res[3].err)
	}
	if len(res[3].Metrics) != 0 {
		t.Errorf("a lost GPU's reading has %d metrics", len(res[3].Metrics))
	}
	before := totalCalls(r.devs[3])
	for range 2 {
		res = r.collect(t, n)
		if !res[3].Lost || !errors.Is(res[3].err, ErrGPULost) {
			t.Errorf("gpu3 after the loss: lost %v, error %v", res[3].Lost, res[3].err)
		}
		if _, err := procs.Collect(context.Background()); err != nil {
			t.Errorf("process tier: %v", err)
		}
	}
	if after := totalCalls(r.devs[3]); after != before {
		t.Errorf("%d calls to the lost GPU", after-before)
	}
	for i, rd := range res {
		if i == 3 {
			continue
		}
		if rd.err != nil || rd.Lost {
			t.Errorf("gpu%d: lost %v, error %v", i, rd.Lost, rd.err)
		}
		wantValue(t, rd.Reading, timeline.GPUTemp, 60)
	}
	if !hasCheck(n, "gpu3: GPU is lost") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
}

func TestNVMLGPUNotFoundCountsAsLost(t *testing.T) {
	r := newRig(t)
	n := r.open(t)
	r.fakes[0].rets = map[string]nvml.Return{"GetPowerUsage": nvml.ERROR_GPU_NOT_FOUND}
	res := r.collect(t, n)[0]
	if !res.Lost || !errors.Is(res.err, ErrGPULost) {
		t.Errorf("lost %v, error %v", res.Lost, res.err)
	}
	// Nothing after the call that found it gone.
	if c := len(r.devs[0].GetTotalEnergyConsumptionCalls()); c != 0 {
		t.Errorf("energy read %d times after the loss", c)
	}
}

func TestNVMLUtilizationFallback(t *testing.T) {
	t.Run("no new samples", func(t *testing.T) {
		r := newRig(t)
		f := r.fakes[0]
		f.samples = utilSamples(sampleBase, 20, 40)
		n := r.open(t)
		wantValue(t, r.collect(t, n)[0].Reading, timeline.GPUUtil, 30)
		f.util.Gpu = 77
		res := r.collect(t, n)[0]
		for _, m := range []string{timeline.GPUUtil, timeline.GPUUtilMin, timeline.GPUUtilMax} {
			wantValue(t, res.Reading, m, 77)
		}
		calls := r.devs[0].GetSamplesCalls()
		if calls[1].V != sampleBase+100_000 {
			t.Errorf("second GetSamples since %d, want the newest timestamp %d", calls[1].V, sampleBase+100_000)
		}
	})
	t.Run("not found", func(t *testing.T) {
		r := newRig(t)
		r.fakes[0].rets = map[string]nvml.Return{"GetSamples": nvml.ERROR_NOT_FOUND}
		n := r.open(t)
		r.collect(t, n)
		res := r.collect(t, n)[0]
		if res.err != nil {
			t.Errorf("error %v", res.err)
		}
		wantValue(t, res.Reading, timeline.GPUUtilMax, 50)
		if c := len(r.devs[0].GetSamplesCalls()); c != 2 {
			t.Errorf("GetSamples called %d times, want 2", c)
		}
	})
	t.Run("not supported", func(t *testing.T) {
		r := newRig(t)
		r.fakes[0].rets = map[string]nvml.Return{"GetSamples": nvml.ERROR_NOT_SUPPORTED}
		n := r.open(t)
		r.collect(t, n)
		res := r.collect(t, n)[0]
		wantValue(t, res.Reading, timeline.GPUUtil, 50)
		wantValue(t, res.Reading, timeline.GPUUtilMin, 50)
		if c := len(r.devs[0].GetSamplesCalls()); c != 1 {
			t.Errorf("GetSamples called %d times, want 1", c)
		}
	})
}

func TestNVMLMIGMode(t *testing.T) {
	r := newRig(t)
	r.devs[4].MigMode = nvml.DEVICE_MIG_ENABLE
	r.fakes[4].gpm[nvml.GPM_METRIC_SM_UTIL] = 33
	r.fakes[4].compute = []nvml.ProcessInfo{{Pid: 10, UsedGpuMemory: 1 << 30}}
	n := r.open(t)
	if !n.GPUs()[4].MIG || !n.GPUs()[4].GPM {
		t.Fatalf("gpu4: %+v", n.GPUs()[4])
	}
	r.collect(t, n)
	res := r.collect(t, n)[4]
	for _, m := range []string{timeline.GPUUtil, timeline.GPUUtilMin, timeline.GPUUtilMax, timeline.GPUMemUtil} {
		wantValue(t, res.Reading, m, math.NaN())
	}
	wantValue(t, res.Reading, timeline.GPUSMActive, 33)
	got, err := n.ProcessProbe(nil).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got.Processes {
		if p.GPU == 4 && !math.IsNaN(p.Util) {
			t.Errorf("util %v on a MIG GPU", p.Util)
		}
	}
	d := r.devs[4]
	if c := len(d.GetUtilizationRatesCalls()) + len(d.GetSamplesCalls()) + len(d.GetProcessUtilizationCalls()); c != 0 {
		t.Errorf("%d utilisation calls on a MIG GPU", c)
	}
	if !hasCheck(n, "gpu4 ") || !hasCheck(n, "MIG on") || !hasCheck(n, "GPM on (on the parent GPU in MIG mode") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
}

// Every probe at once, as the sampler runs them, for the race detector.
func TestNVMLProbesRunConcurrently(t *testing.T) {
	r := newRig(t)
	for _, f := range r.fakes {
		f.compute = []nvml.ProcessInfo{{Pid: 1, UsedGpuMemory: 1}}
	}
	// MIG instances read through their parent's handle, beside it.
	r.addMIG(0, h100Slices()...)
	n := r.open(t)
	probes := append(n.Probes(), n.ProcessProbe(nil))
	for range 3 {
		var wg sync.WaitGroup
		for _, p := range probes {
			wg.Go(func() {
				if _, err := p.Collect(context.Background()); err != nil {
					t.Errorf("%s %s: %v", p.Name(), p.Device(), err)
				}
			})
		}
		wg.Wait()
		r.advance(t, 1e9)
	}
}

func TestThrottleBits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reasons uint64
		want    uint64
	}{
		{"none", 0, 0},
		{"idle is not a throttle", nvml.ClocksEventReasonGpuIdle, 0},
		{"application clocks are not a throttle", nvml.ClocksEventReasonApplicationsClocksSetting, 0},
		{"power cap", nvml.ClocksEventReasonSwPowerCap, timeline.ThrottlePowerCap},
		{"hw slowdown", nvml.ClocksThrottleReasonHwSlowdown, timeline.ThrottleHWSlowdown},
		{"sync boost", nvml.ClocksEventReasonSyncBoost, timeline.ThrottleSyncBoost},
		{"thermal", nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwThermalSlowdown, timeline.ThrottleThermal},
		{"power brake", nvml.ClocksThrottleReasonHwPowerBrakeSlowdown, timeline.ThrottleHWPowerBrake},
		{"display", nvml.ClocksEventReasonDisplayClockSetting, timeline.ThrottleDisplayClocks},
		{"board limit", nvml.ClocksEventReasonBoardLimit, timeline.ThrottleBoardLimit},
		{"reliability", nvml.ClocksEventReasonReliability, timeline.ThrottleReliability},
		{"unknown future bits dropped", 1 << 40, 0},
		{"all", nvml.ClocksEventReasonAll, 1<<len(timeline.ThrottleNames) - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := throttleBits(tc.reasons); got != tc.want {
				t.Errorf("throttleBits(%#x) = %#x, want %#x", tc.reasons, got, tc.want)
			}
		})
	}
}

// BenchmarkNVMLCollect is the probe's own cost for one GPU tick, on the mock
// (a real driver adds its own time per call).
func BenchmarkNVMLCollect(b *testing.B) {
	r := newRig(b)
	n, err := OpenNVML(r.srv, r.clock)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := n.Close(); err != nil {
			b.Error(err)
		}
	}()
	p := n.Probes()[0]
	b.ReportAllocs()
	for b.Loop() {
		if err := r.clock.SleepUntil(b.Context(), r.clock.Now().Add(time.Second)); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Collect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
