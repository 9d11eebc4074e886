package nvidia

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// fakeGPU is what one mock GPU answers. Tests change its fields between
// ticks; the rig's mock functions read them.
type fakeGPU struct {
	lost     bool // every call answers ERROR_GPU_IS_LOST
	util     nvml.Utilization
	samples  []nvml.Sample // GetSamples returns those newer than lastSeen
	memUsed  uint64
	memTotal uint64
	busID    string
	powerMW  uint32
	energyMJ uint64
	limitMW  uint32
	tempC    uint32
	clockSM  uint32
	clockMem uint32
	reasons  uint64
	pcieTx   uint64
	pcieRx   uint64
	gpm      map[nvml.GpmMetricId]float64
	compute  []nvml.ProcessInfo
	graphics []nvml.ProcessInfo
	procUtil []nvml.ProcessUtilizationSample

	// rets overrides a function's return, by its name ("GetTemperature").
	rets map[string]nvml.Return
	// gpmRets and fieldRets override one GPM metric's or field's own return.
	gpmRets   map[nvml.GpmMetricId]nvml.Return
	fieldRets map[uint32]nvml.Return
	// health is the PCIe link, the health fields and the events
	// (nvml_health_test.go).
	health *fakeHealth
	// migs are the GPU's MIG slots, nil for an empty one (nvml_mig_test.go).
	migs []*fakeMIG
}

func (f *fakeGPU) ret(fn string) nvml.Return {
	if f.lost {
		return nvml.ERROR_GPU_IS_LOST
	}
	if r, ok := f.rets[fn]; ok {
		return r
	}
	return nvml.SUCCESS
}

// sampleBase is an NVML timestamp (µs since the epoch) for fake samples.
const sampleBase = uint64(1_700_000_000_000_000)

// utilSamples makes utilisation samples (unsigned int) ms apart, from at.
func utilSamples(at uint64, values ...uint32) []nvml.Sample {
	out := make([]nvml.Sample, len(values))
	for i, v := range values {
		out[i].TimeStamp = at + uint64(i)*100_000
		out[i].SampleValue = [8]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
	}
	return out
}

// rig is go-nvml's dgxh100 mock (8 H100s) with every function the probe
// calls wired to a fakeGPU.
type rig struct {
	srv   *server.Server
	devs  []*server.Device
	fakes []*fakeGPU
	clock *stepClock
	// pace is what open opens with: EveryTick, unless a test of the
	// schedule sets DefaultPace.
	pace Pace

	mu    sync.Mutex
	owner map[nvml.GpmSample]int // which device last filled a GPM sample
	// migOwner is which MIG instance last filled a GPM sample.
	migOwner map[nvml.GpmSample]*fakeMIG
	gpmRet   nvml.Return         // GpmMetricsGet's own return
	symbols  map[string]bool     // symbols LookupSymbol refuses
	xids     chan nvml.EventData // what the event set's Wait hands out
}

var rigStart = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// stepClock is simulated time that jumps to wherever it is asked to sleep
// until: probes.FastClock, which this package cannot import (probes
// imports it).
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func newStepClock(start time.Time) *stepClock { return &stepClock{now: start} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	c.mu.Unlock()
	return ctx.Err()
}

// wallClock is the wall clock: probes.RealClock, for the same reason.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func newRig(t testing.TB) *rig {
	t.Helper()
	return newRigOn(t, dgxh100.New())
}

// newRigOn is the rig on another of go-nvml's mock servers (dgxa100).
func newRigOn(t testing.TB, srv *server.Server) *rig {
	t.Helper()
	r := &rig{
		srv:      srv,
		clock:    newStepClock(rigStart),
		owner:    map[nvml.GpmSample]int{},
		migOwner: map[nvml.GpmSample]*fakeMIG{},
		symbols:  map[string]bool{},
	}
	r.srv.LookupSymbolFunc = func(name string) error {
		if r.symbols[name] {
			return &symbolError{name}
		}
		return nil
	}
	r.srv.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) {
		return &mock.GpmSample{FreeFunc: func() nvml.Return { return nvml.SUCCESS }}, nvml.SUCCESS
	}
	r.srv.GpmMetricsGetFunc = r.gpmMetricsGet
	for i, d := range r.srv.Devices {
		dev := d.(*server.Device)
		f := &fakeGPU{
			util:     nvml.Utilization{Gpu: 50, Memory: 20},
			memTotal: 80 << 30,
			memUsed:  uint64(i+1) << 30,
			busID:    rigBusID(i),
			powerMW:  300_000,
			energyMJ: 1_000_000,
			limitMW:  700_000,
			tempC:    60,
			clockSM:  1980,
			clockMem: 2619,
			pcieTx:   1 << 40,
			pcieRx:   1 << 39,
			gpm:      map[nvml.GpmMetricId]float64{},
		}
		r.devs = append(r.devs, dev)
		r.fakes = append(r.fakes, f)
		r.wire(i, dev, f)
	}
	return r
}

// rigReserved is the memory the rig's driver keeps for itself.
const rigReserved = 512 << 20

// rigBusID is GPU i's PCI bus id on the rig, as NVML writes one.
func rigBusID(i int) string { return fmt.Sprintf("00000000:%02X:00.0", 0x18+0x10*i) }

type symbolError struct{ name string }

func (e *symbolError) Error() string { return "undefined symbol: " + e.name }

func (r *rig) wire(i int, d *server.Device, f *fakeGPU) {
	// The driver reserves 512 MiB: v2 reports it apart, v1 counts it used.
	d.GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
		return nvml.Memory_v2{Total: f.memTotal, Used: f.memUsed, Reserved: rigReserved,
			Free: f.memTotal - f.memUsed - rigReserved}, f.ret("GetMemoryInfo_v2")
	}
	d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		return nvml.Memory{Total: f.memTotal, Used: f.memUsed + rigReserved,
			Free: f.memTotal - f.memUsed - rigReserved}, f.ret("GetMemoryInfo")
	}
	d.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
		var p nvml.PciInfo
		for k := range len(f.busID) {
			p.BusId[k] = int8(f.busID[k])
		}
		return p, f.ret("GetPciInfo")
	}
	d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return f.limitMW, f.ret("GetEnforcedPowerLimit") }
	d.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
		return nvml.GpmSupport{IsSupportedDevice: 1}, f.ret("GpmQueryDeviceSupport")
	}
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return f.util, f.ret("GetUtilizationRates") }
	d.GetSamplesFunc = func(_ nvml.SamplingType, lastSeen uint64) (nvml.ValueType, []nvml.Sample, nvml.Return) {
		var out []nvml.Sample
		for _, s := range f.samples {
			// Asked for everything, a real driver returns its unfilled
			// slots too (time stamp 0).
			if s.TimeStamp > lastSeen || lastSeen == 0 {
				out = append(out, s)
			}
		}
		return nvml.VALUE_TYPE_UNSIGNED_INT, out, f.ret("GetSamples")
	}
	d.GpmSampleGetFunc = func(s nvml.GpmSample) nvml.Return {
		r.mu.Lock()
		r.owner[s] = i
		r.mu.Unlock()
		return f.ret("GpmSampleGet")
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return f.powerMW, f.ret("GetPowerUsage") }
	d.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return f.energyMJ, f.ret("GetTotalEnergyConsumption") }
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return f.tempC, f.ret("GetTemperature") }
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_MEM {
			return f.clockMem, f.ret("GetClockInfo/MEM")
		}
		return f.clockSM, f.ret("GetClockInfo/SM")
	}
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return f.reasons, f.ret("GetCurrentClocksEventReasons") }
	d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) {
		return f.reasons, f.ret("GetCurrentClocksThrottleReasons")
	}
	d.GetFieldValuesFunc = func(values []nvml.FieldValue) nvml.Return {
		for k := range values {
			v := &values[k]
			n := f.pcieRx
			if v.FieldId == nvml.FI_DEV_PCIE_COUNT_TX_BYTES {
				n = f.pcieTx
			}
			if x, ok := f.health.fields[v.FieldId]; ok {
				n = x
			}
			if x, ok := f.health.linkField(v); ok {
				n = x
			}
			v.ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_LONG_LONG)
			for b := range 8 {
				v.Value[b] = byte(n >> (8 * b))
			}
			v.NvmlReturn = uint32(nvml.SUCCESS)
			if ret, ok := f.fieldRets[v.FieldId]; ok {
				v.NvmlReturn = uint32(ret)
			}
		}
		return f.ret("GetFieldValues")
	}
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return f.compute, f.ret("GetComputeRunningProcesses")
	}
	d.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return f.graphics, f.ret("GetGraphicsRunningProcesses")
	}
	d.GetProcessUtilizationFunc = func(lastSeen uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
		var out []nvml.ProcessUtilizationSample
		for _, s := range f.procUtil {
			if s.TimeStamp > lastSeen {
				out = append(out, s)
			}
		}
		if ret := f.ret("GetProcessUtilization"); ret != nvml.SUCCESS {
			return nil, ret
		}
		if len(out) == 0 {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return out, nvml.SUCCESS
	}
	r.wireHealth(d, f)
	r.wireMIG(d, f)
}

// gpmMetricsGet answers for the device that filled Sample2.
func (r *rig) gpmMetricsGet(m *nvml.GpmMetricsGetType) nvml.Return {
	r.mu.Lock()
	i, ok := r.owner[m.Sample2]
	mig := r.migOwner[m.Sample2]
	ret := r.gpmRet
	r.mu.Unlock()
	var values map[nvml.GpmMetricId]float64
	var rets map[nvml.GpmMetricId]nvml.Return
	switch {
	case mig != nil:
		values, rets = mig.gpm, mig.gpmRets
		if r, ok := mig.rets["GpmMetricsGet"]; ok {
			return r
		}
	case ok:
		values, rets = r.fakes[i].gpm, r.fakes[i].gpmRets
	default:
		return nvml.ERROR_INVALID_ARGUMENT
	}
	for k := range m.NumMetrics {
		id := nvml.GpmMetricId(m.Metrics[k].MetricId)
		m.Metrics[k].Value = values[id]
		m.Metrics[k].NvmlReturn = uint32(nvml.SUCCESS)
		if mr, ok := rets[id]; ok {
			m.Metrics[k].NvmlReturn = uint32(mr)
		}
	}
	return ret
}

// open opens the probe on the rig and closes it when the test ends.
func (r *rig) open(t *testing.T) *NVML {
	t.Helper()
	n, err := OpenNVMLPaced(r.srv, r.clock, r.pace)
	if err != nil {
		t.Fatalf("OpenNVML: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

// tickResult is one GPU probe's answer.
type tickResult struct {
	probe.Reading
	err error
}

// collect reads every GPU probe once, then moves the clock on a second.
func (r *rig) collect(t *testing.T, n *NVML) []tickResult {
	t.Helper()
	var out []tickResult
	for _, p := range n.Probes() {
		rd, err := p.Collect(context.Background())
		out = append(out, tickResult{rd, err})
	}
	r.advance(t, time.Second)
	return out
}

// advance moves the rig's clock on by d.
func (r *rig) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if err := r.clock.SleepUntil(context.Background(), r.clock.Now().Add(d)); err != nil {
		t.Fatal(err)
	}
}

// metric finds a metric of a reading: its value and kind, and whether it is there.
func metric(rd probe.Reading, name string) (float64, timeline.Kind, bool) {
	for _, m := range rd.Metrics {
		if m.Key.Name == name {
			return m.Value, m.Kind, true
		}
	}
	return 0, 0, false
}

// wantValue fails unless the reading has name at want (NaN matches NaN).
func wantValue(t *testing.T, rd probe.Reading, name string, want float64) {
	t.Helper()
	got, _, ok := metric(rd, name)
	switch {
	case !ok:
		t.Errorf("%s missing", name)
	case math.IsNaN(want) && !math.IsNaN(got):
		t.Errorf("%s = %v, want NaN", name, got)
	case !math.IsNaN(want) && math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)):
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func wantAbsent(t *testing.T, rd probe.Reading, name string) {
	t.Helper()
	if v, _, ok := metric(rd, name); ok {
		t.Errorf("%s = %v, want absent", name, v)
	}
}

// totalCalls counts every call recorded by a moq mock (the sum of all its
// ...Calls() lists), except the methods named in except.
func totalCalls(m any, except ...string) int {
	v := reflect.ValueOf(m)
	total := 0
	for k := range v.NumMethod() {
		name := v.Type().Method(k).Name
		mt := v.Method(k).Type()
		if !strings.HasSuffix(name, "Calls") || mt.NumIn() != 0 || mt.NumOut() != 1 || mt.Out(0).Kind() != reflect.Slice {
			continue
		}
		skip := false
		for _, e := range except {
			skip = skip || name == e+"Calls"
		}
		if !skip {
			total += v.Method(k).Call(nil)[0].Len()
		}
	}
	return total
}

func hasCheck(n *NVML, substr string) bool {
	for _, c := range n.Checks() {
		if strings.Contains(c, substr) {
			return true
		}
	}
	return false
}
