package nvidia

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"

	"github.com/gputop-dev/gputop/timeline"
)

func TestOpenNVMLDescribesEveryGPU(t *testing.T) {
	r := newRig(t)
	n := r.open(t)

	if n.Driver() != "550.54.15" || n.CUDA() != "12.4" {
		t.Errorf("driver %q CUDA %q, want 550.54.15 and 12.4", n.Driver(), n.CUDA())
	}
	gpus := n.GPUs()
	if len(gpus) != 8 {
		t.Fatalf("%d GPUs, want 8", len(gpus))
	}
	for i, g := range gpus {
		if g.Index != i || g.Name != "NVIDIA H100 80GB HBM3" || !strings.HasPrefix(g.UUID, "GPU-") {
			t.Errorf("GPU %d: %+v", i, g)
		}
		if g.PCIBusID != rigBusID(i) {
			t.Errorf("GPU %d: PCI bus id %q, want %q", i, g.PCIBusID, rigBusID(i))
		}
		if g.MemTotal != 80<<30 || g.PowerLimit != 700 || !g.GPM || g.MIG {
			t.Errorf("GPU %d: memory %v, limit %v W, GPM %v, MIG %v; want 80 GiB, 700 W, GPM, no MIG",
				i, g.MemTotal, g.PowerLimit, g.GPM, g.MIG)
		}
	}
	for i, p := range n.Probes() {
		if p.Name() != "nvml" || p.Device() != fmt.Sprintf("gpu%d", i) {
			t.Errorf("probe %d is %s/%s", i, p.Name(), p.Device())
		}
	}
	for _, want := range []string{
		"symbol nvmlDeviceGetCurrentClocksEventReasons: found",
		"symbol nvmlGpmMetricsGet: found",
		"gpu7 NVIDIA H100 80GB HBM3 GPU-",
		"GPM on",
		"MIG off",
		"GetMemoryInfo_v2 (excludes reserved)",
	} {
		if !hasCheck(n, want) {
			t.Errorf("Checks lack %q:\n%s", want, strings.Join(n.Checks(), "\n"))
		}
	}
	// Every optional symbol is asked once, at open, and never again.
	asked := map[string]int{}
	for _, c := range r.srv.LookupSymbolCalls() {
		asked[c.S]++
	}
	for name, times := range asked {
		if times != 1 {
			t.Errorf("LookupSymbol(%q) called %d times", name, times)
		}
	}
	before := len(r.srv.LookupSymbolCalls())
	r.collect(t, n)
	if len(r.srv.LookupSymbolCalls()) != before {
		t.Error("LookupSymbol called after open")
	}
}

func TestNVMLValues(t *testing.T) {
	r := newRig(t)
	for i, f := range r.fakes {
		g := uint32(i)
		f.util = nvml.Utilization{Gpu: 55, Memory: 30 + g}
		// Sub-second samples: a dip and a spike that one reading would miss.
		f.samples = utilSamples(sampleBase, 90, 10+g, 80, 100)
		f.powerMW = 350_500 + 1000*g
		f.energyMJ = 5_000_000
		f.reasons = nvml.ClocksEventReasonSwPowerCap | nvml.ClocksThrottleReasonHwThermalSlowdown |
			nvml.ClocksEventReasonGpuIdle | nvml.ClocksEventReasonApplicationsClocksSetting
		f.gpm = map[nvml.GpmMetricId]float64{
			nvml.GPM_METRIC_SM_UTIL:         40 + float64(i),
			nvml.GPM_METRIC_SM_OCCUPANCY:    25,
			nvml.GPM_METRIC_ANY_TENSOR_UTIL: 12.5,
			nvml.GPM_METRIC_DRAM_BW_UTIL:    60,
			nvml.GPM_METRIC_PCIE_TX_PER_SEC: 100,
			nvml.GPM_METRIC_PCIE_RX_PER_SEC: 2.5,
		}
	}
	n := r.open(t)

	first := r.collect(t, n)
	for i, f := range r.fakes {
		f.samples = append(f.samples, utilSamples(sampleBase+2_000_000, 30, 70, uint32(20+i))...)
		f.energyMJ += 612_500
	}
	r.advance(t, 4*time.Second)
	second := r.collect(t, n)

	for i := range r.fakes {
		t.Run(fmt.Sprintf("gpu%d", i), func(t *testing.T) {
			a, b := first[i], second[i]
			if a.err != nil || b.err != nil {
				t.Fatalf("errors: %v, %v", a.err, b.err)
			}
			// Tick 1: every sample of NVML's newest second.
			// The mean is kept to 0.01 %.
			wantValue(t, a.Reading, timeline.GPUUtil, math.Round((90+10+float64(i)+80+100)/4*100)/100)
			wantValue(t, a.Reading, timeline.GPUUtilMin, 10+float64(i))
			wantValue(t, a.Reading, timeline.GPUUtilMax, 100)
			// Tick 2: only the samples since tick 1.
			wantValue(t, b.Reading, timeline.GPUUtil, math.Round((30+70+20+float64(i))/3*100)/100)
			wantValue(t, b.Reading, timeline.GPUUtilMin, 20+float64(i))
			wantValue(t, b.Reading, timeline.GPUUtilMax, 70)
			wantValue(t, b.Reading, timeline.GPUMemUtil, 30+float64(i))

			wantValue(t, b.Reading, timeline.GPUPower, 350.5+float64(i))
			wantValue(t, a.Reading, timeline.GPUEnergy, 5000)
			wantValue(t, b.Reading, timeline.GPUEnergy, 5612.5)
			if _, kind, _ := metric(b.Reading, timeline.GPUEnergy); kind != timeline.Counter {
				t.Errorf("energy is a %v, want a counter", kind)
			}
			wantValue(t, b.Reading, timeline.GPUPowerLimit, 700)
			wantValue(t, b.Reading, timeline.GPUMemUsed, float64(uint64(i+1)<<30))
			wantValue(t, b.Reading, timeline.GPUMemTotal, 80<<30)
			// Free is NVML's: the 512 MiB the driver reserves is not free.
			wantValue(t, b.Reading, timeline.GPUMemFree, float64(80<<30-uint64(i+1)<<30-rigReserved))
			wantValue(t, b.Reading, timeline.GPUTemp, 60)
			wantValue(t, b.Reading, timeline.GPUClockSM, 1980)
			wantValue(t, b.Reading, timeline.GPUClockMem, 2619)
			wantValue(t, b.Reading, timeline.GPUThrottle, timeline.ThrottlePowerCap|timeline.ThrottleHWThermal)

			// GPM needs a pair of samples: unknown on tick 1.
			for _, name := range []string{timeline.GPUSMActive, timeline.GPUSMOccupancy, timeline.GPUTensor, timeline.GPUDRAMBW, timeline.GPUPCIeTx} {
				wantValue(t, a.Reading, name, math.NaN())
			}
			wantValue(t, b.Reading, timeline.GPUSMActive, 40+float64(i))
			wantValue(t, b.Reading, timeline.GPUSMOccupancy, 25)
			wantValue(t, b.Reading, timeline.GPUTensor, 12.5)
			wantValue(t, b.Reading, timeline.GPUDRAMBW, 60)
			wantValue(t, b.Reading, timeline.GPUPCIeTx, 100*1024*1024)
			wantValue(t, b.Reading, timeline.GPUPCIeRx, 2.5*1024*1024)
			// PCIe comes from GPM here, so the counters are not read.
			wantAbsent(t, b.Reading, timeline.GPUPCIeTxBytes)
			if c := len(pcieFieldCalls(r.devs[i])); c != 0 {
				t.Errorf("GetFieldValues called %d times with PCIe from GPM", c)
			}
		})
	}
	// Derive shows GetPowerUsage's one-second average for ticks 1 s apart
	// (a real H100's energy counter steps every 100 ms: its rate over a
	// second is off by up to 10 %), and the energy counter's watts for
	// samples 5 s apart or more.
	s1 := timeline.Sample{At: rigStart}.WithMetrics(first[0].Metrics)
	for _, tt := range []struct {
		apart time.Duration
		want  float64
	}{{time.Second, 350.5}, {5 * time.Second, 612.5 / 5}} {
		s2 := timeline.Sample{At: rigStart.Add(tt.apart)}.WithMetrics(second[0].Metrics)
		for _, v := range timeline.Derive(&s2, &s1) {
			if v.Key == (timeline.Key{Name: timeline.GPUPower, Device: timeline.GPUDevice(0)}) && v.Value != tt.want {
				t.Errorf("ticks %v apart: derived power %v W, want %v", tt.apart, v.Value, tt.want)
			}
		}
	}
	// Same layout every tick, so Derive keeps its fast path.
	if len(first[0].Metrics) != len(second[0].Metrics) {
		t.Errorf("tick 1 has %d metrics, tick 2 %d", len(first[0].Metrics), len(second[0].Metrics))
	}
}

func TestOpenNVMLFailedInit(t *testing.T) {
	for _, tc := range []struct {
		ret  nvml.Return
		want string
	}{
		{nvml.ERROR_LIBRARY_NOT_FOUND, "NVML: libnvidia-ml.so.1 not found (ERROR_LIBRARY_NOT_FOUND)"},
		{nvml.ERROR_DRIVER_NOT_LOADED, "NVML: nvmlInit failed: Driver Not Loaded"},
		{nvml.ERROR_LIB_RM_VERSION_MISMATCH, "NVML: nvmlInit failed: Driver/library version mismatch"},
		{nvml.ERROR_NO_PERMISSION, "NVML: nvmlInit failed: Insufficient Permissions"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			// A bare mock: any call other than Init panics, and the panic
			// is turned into a failure here. Then every ...Calls() is checked.
			lib := &mock.Interface{InitFunc: func() nvml.Return { return tc.ret }}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("library touched after a failed Init: %v", p)
					}
				}()
				_, err = OpenNVML(lib, wallClock{})
			}()
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
			var ie *InitError
			if !errors.As(err, &ie) || ie.Return != tc.ret {
				t.Errorf("error is not an *InitError of %v", tc.ret)
			}
			if c := totalCalls(lib, "Init"); c != 0 {
				t.Errorf("%d calls after a failed Init", c)
			}

			// The same on the full dgxh100 server, whose functions answer.
			srv := dgxh100.New()
			srv.InitFunc = func() nvml.Return { return tc.ret }
			if _, err := OpenNVML(srv, wallClock{}); err == nil || err.Error() != tc.want {
				t.Fatalf("dgxh100: error %q, want %q", err, tc.want)
			}
			calls := totalCalls(&srv.Interface, "Init") + totalCalls(&srv.ExtendedInterface)
			for _, d := range srv.Devices {
				calls += totalCalls(d)
			}
			if calls != 0 || len(srv.InitCalls()) != 1 {
				t.Errorf("dgxh100: %d calls after a failed Init; Init called %d times", calls, len(srv.InitCalls()))
			}
		})
	}
}

func TestOpenNVMLWithoutUsableGPUsShutsDown(t *testing.T) {
	r := newRig(t)
	r.srv.DeviceGetCountFunc = func() (int, nvml.Return) { return 0, nvml.SUCCESS }
	_, err := OpenNVML(r.srv, r.clock)
	if err == nil || err.Error() != "NVML: driver 550.54.15: no usable GPU (0 found)" {
		t.Errorf("error %v", err)
	}
	if len(r.srv.ShutdownCalls()) != 1 {
		t.Errorf("Shutdown called %d times, want 1 (Init succeeded)", len(r.srv.ShutdownCalls()))
	}
}

func TestOpenNVMLSkipsAGPULostAtStart(t *testing.T) {
	r := newRig(t)
	r.fakes[5].lost = true
	n := r.open(t)
	if len(n.GPUs()) != 7 || len(n.Probes()) != 7 {
		t.Fatalf("%d GPUs, want 7", len(n.GPUs()))
	}
	for _, g := range n.GPUs() {
		if g.Index == 5 {
			t.Error("lost GPU 5 is listed")
		}
	}
	if !hasCheck(n, "gpu5: not monitored: GPU is lost") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
}

func TestNVMLMissingSymbols(t *testing.T) {
	t.Run("clock events: the older name is used", func(t *testing.T) {
		r := newRig(t)
		r.symbols[symClockEvents] = true
		for _, f := range r.fakes {
			f.reasons = nvml.ClocksEventReasonSwThermalSlowdown
		}
		n := r.open(t)
		res := r.collect(t, n)
		wantValue(t, res[0].Reading, timeline.GPUThrottle, timeline.ThrottleSWThermal)
		for i, d := range r.devs {
			if len(d.GetCurrentClocksEventReasonsCalls()) != 0 || len(d.GetCurrentClocksThrottleReasonsCalls()) != 1 {
				t.Errorf("gpu%d: %d event-reason calls, %d throttle-reason calls; want 0 and 1", i,
					len(d.GetCurrentClocksEventReasonsCalls()), len(d.GetCurrentClocksThrottleReasonsCalls()))
			}
		}
		if !hasCheck(n, "symbol nvmlDeviceGetCurrentClocksEventReasons: missing") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
	t.Run("clock events: neither", func(t *testing.T) {
		r := newRig(t)
		r.symbols[symClockEvents] = true
		r.symbols[symClockThrottle] = true
		n := r.open(t)
		res := r.collect(t, n)
		wantAbsent(t, res[0].Reading, timeline.GPUThrottle)
		for i, d := range r.devs {
			if len(d.GetCurrentClocksEventReasonsCalls())+len(d.GetCurrentClocksThrottleReasonsCalls()) != 0 {
				t.Errorf("gpu%d: a clock-reason function was called", i)
			}
		}
		if !hasCheck(n, "clock-event (throttle) reasons: off") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
	t.Run("GPM", func(t *testing.T) {
		r := newRig(t)
		r.symbols["nvmlGpmSampleAlloc"] = true
		n := r.open(t)
		r.collect(t, n)
		res := r.collect(t, n)
		for _, g := range n.GPUs() {
			if g.GPM {
				t.Errorf("gpu%d says GPM", g.Index)
			}
		}
		wantAbsent(t, res[0].Reading, timeline.GPUSMActive)
		// PCIe then comes from the counters.
		wantValue(t, res[0].Reading, timeline.GPUPCIeTxBytes, 1<<40)
		wantValue(t, res[0].Reading, timeline.GPUPCIeRxBytes, 1<<39)
		if c := len(r.srv.GpmSampleAllocCalls()) + len(r.srv.GpmMetricsGetCalls()); c != 0 {
			t.Errorf("%d GPM library calls", c)
		}
		for i, d := range r.devs {
			if c := len(d.GpmQueryDeviceSupportCalls()) + len(d.GpmSampleGetCalls()); c != 0 {
				t.Errorf("gpu%d: %d GPM device calls", i, c)
			}
		}
		if !hasCheck(n, "symbol nvmlGpmSampleAlloc: missing") || !hasCheck(n, "GPM off (driver)") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
	t.Run("memory v2", func(t *testing.T) {
		r := newRig(t)
		r.symbols[symMemoryV2] = true
		n := r.open(t)
		res := r.collect(t, n)
		// GetMemoryInfo counts the driver's reserved memory in Used.
		wantValue(t, res[2].Reading, timeline.GPUMemUsed, 3<<30+512<<20)
		// Free is the same under both: what an allocation can still get.
		wantValue(t, res[2].Reading, timeline.GPUMemFree, 80<<30-3<<30-512<<20)
		for i, d := range r.devs {
			if len(d.GetMemoryInfo_v2Calls()) != 0 {
				t.Errorf("gpu%d: GetMemoryInfo_v2 called", i)
			}
		}
		if !hasCheck(n, "memory used from GetMemoryInfo (includes reserved)") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
}

func TestNVMLClose(t *testing.T) {
	r := newRig(t)
	n, err := OpenNVML(r.srv, r.clock)
	if err != nil {
		t.Fatal(err)
	}
	r.collect(t, n)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if len(r.srv.ShutdownCalls()) != 1 {
		t.Errorf("Shutdown called %d times, want 1", len(r.srv.ShutdownCalls()))
	}
	for _, g := range n.gpus {
		for _, s := range []nvml.GpmSample{g.gpm.prev, g.gpm.cur} {
			if len(s.(*mock.GpmSample).FreeCalls()) != 1 {
				t.Errorf("%s: a GPM sample was not freed once", g.device)
			}
		}
	}
	before := totalCalls(r.devs[0])
	if _, err := n.Probes()[0].Collect(context.Background()); err == nil {
		t.Error("Collect after Close: no error")
	}
	if _, err := n.ProcessProbe(nil).Collect(context.Background()); err == nil {
		t.Error("process Collect after Close: no error")
	}
	if totalCalls(r.devs[0]) != before {
		t.Error("a device was called after Close")
	}
}

func TestNVMLCloseDoesNotWaitForAHungCall(t *testing.T) {
	r := newRig(t)
	n, err := OpenNVML(r.srv, r.clock)
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	r.devs[0].GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
		close(entered)
		<-release
		return 60, nvml.SUCCESS
	}
	done := make(chan error)
	go func() {
		_, err := n.Probes()[0].Collect(context.Background())
		done <- err
	}()
	<-entered
	if err := n.Close(); err == nil {
		t.Error("Close with a call in flight: no error")
	}
	if len(r.srv.ShutdownCalls()) != 0 {
		t.Error("Shutdown under a call in flight")
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the hung Collect: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Errorf("Close once idle: %v", err)
	}
	if len(r.srv.ShutdownCalls()) != 1 {
		t.Errorf("Shutdown called %d times, want 1", len(r.srv.ShutdownCalls()))
	}
}
