package nvidia

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

func TestNVMLGPMPairSpacing(t *testing.T) {
	r := newRig(t)
	r.fakes[0].gpm[nvml.GPM_METRIC_SM_UTIL] = 42
	var pairs [][2]nvml.GpmSample
	get := r.srv.GpmMetricsGetFunc
	r.srv.GpmMetricsGetFunc = func(m *nvml.GpmMetricsGetType) nvml.Return {
		pairs = append(pairs, [2]nvml.GpmSample{m.Sample1, m.Sample2})
		return get(m)
	}
	n := r.open(t)
	p := n.Probes()[0]
	d := r.devs[0]
	read := func(after time.Duration) probe.Reading {
		t.Helper()
		r.advance(t, after)
		rd, err := p.Collect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return rd
	}

	// Tick 1: one sample, no pair yet.
	wantValue(t, read(0), timeline.GPUSMActive, math.NaN())
	first := d.GpmSampleGetCalls()[0].GpmSample
	// 50 ms later: too close for a good pair. Skipped: no sample taken,
	// nothing asked, and the first sample kept for the next pair.
	wantValue(t, read(50*time.Millisecond), timeline.GPUSMActive, math.NaN())
	if len(d.GpmSampleGetCalls()) != 1 || len(pairs) != 0 {
		t.Fatalf("%d samples taken, %d pairs asked; want 1 and 0", len(d.GpmSampleGetCalls()), len(pairs))
	}
	// 150 ms after the first: a pair, from the first sample.
	wantValue(t, read(100*time.Millisecond), timeline.GPUSMActive, 42)
	second := d.GpmSampleGetCalls()[1].GpmSample
	if pairs[0] != [2]nvml.GpmSample{first, second} || first == second {
		t.Errorf("pair %v, want (first, second) = (%v, %v)", pairs[0], first, second)
	}
	// Next tick: the samples swap, so the new pair starts where the last ended.
	wantValue(t, read(time.Second), timeline.GPUSMActive, 42)
	if pairs[1] != [2]nvml.GpmSample{second, first} {
		t.Errorf("pair %v, want (second, first)", pairs[1])
	}
}

func TestNVMLGPMMetricChecks(t *testing.T) {
	r := newRig(t)
	f := r.fakes[0]
	f.gpm = map[nvml.GpmMetricId]float64{
		nvml.GPM_METRIC_SM_UTIL:         140, // out of range
		nvml.GPM_METRIC_SM_OCCUPANCY:    30,
		nvml.GPM_METRIC_ANY_TENSOR_UTIL: -1, // out of range
		nvml.GPM_METRIC_DRAM_BW_UTIL:    10,
		nvml.GPM_METRIC_PCIE_TX_PER_SEC: 1,
		nvml.GPM_METRIC_PCIE_RX_PER_SEC: 1,
	}
	f.gpmRets = map[nvml.GpmMetricId]nvml.Return{
		nvml.GPM_METRIC_DRAM_BW_UTIL:    nvml.ERROR_UNKNOWN,
		nvml.GPM_METRIC_PCIE_TX_PER_SEC: nvml.ERROR_NOT_SUPPORTED,
	}
	n := r.open(t)
	r.collect(t, n)
	res := r.collect(t, n)[0]
	if res.err == nil || res.err.Error() != "GPM DRAM bandwidth: Unknown Error" {
		t.Errorf("error %v", res.err)
	}
	wantValue(t, res.Reading, timeline.GPUSMActive, math.NaN())
	wantValue(t, res.Reading, timeline.GPUSMOccupancy, 30)
	wantValue(t, res.Reading, timeline.GPUTensor, math.NaN())
	wantValue(t, res.Reading, timeline.GPUDRAMBW, math.NaN())
	// GPM has no PCIe on this device: the counters take over, this tick on.
	wantAbsent(t, res.Reading, timeline.GPUPCIeTx)
	wantValue(t, res.Reading, timeline.GPUPCIeTxBytes, 1<<40)

	var asked []nvml.GpmMetricId
	get := r.srv.GpmMetricsGetFunc
	r.srv.GpmMetricsGetFunc = func(m *nvml.GpmMetricsGetType) nvml.Return {
		if m.Sample2 == n.gpus[0].gpm.cur {
			for k := range m.NumMetrics {
				asked = append(asked, nvml.GpmMetricId(m.Metrics[k].MetricId))
			}
		}
		return get(m)
	}
	r.collect(t, n)
	want := []nvml.GpmMetricId{nvml.GPM_METRIC_SM_UTIL, nvml.GPM_METRIC_SM_OCCUPANCY, nvml.GPM_METRIC_ANY_TENSOR_UTIL, nvml.GPM_METRIC_DRAM_BW_UTIL}
	if !slices.Equal(asked, want) {
		t.Errorf("tick 3 asked GPM metrics %v, want %v (no PCIe)", asked, want)
	}
	for _, want := range []string{
		"gpu0: GPM SM activity gave values out of range",
		"gpu0: GPM PCIe tx: Not Supported, no longer asked",
		"gpu0: PCIe from counters",
	} {
		if !hasCheck(n, want) {
			t.Errorf("Checks lack %q:\n%s", want, strings.Join(n.Checks(), "\n"))
		}
	}
}

func TestNVMLGPMRefusedAtRunTime(t *testing.T) {
	// A MIG parent, say: the device claims GPM, then refuses samples.
	r := newRig(t)
	r.fakes[1].rets = map[string]nvml.Return{"GpmSampleGet": nvml.ERROR_NOT_SUPPORTED}
	n := r.open(t)
	r.collect(t, n)
	res := r.collect(t, n)[1]
	wantValue(t, res.Reading, timeline.GPUSMActive, math.NaN())
	wantValue(t, res.Reading, timeline.GPUPCIeRxBytes, 1<<39)
	if c := len(r.devs[1].GpmSampleGetCalls()); c != 1 {
		t.Errorf("GpmSampleGet called %d times, want 1", c)
	}
}

func TestGPMValue(t *testing.T) {
	pct, pcie := gpmMetricList[0], gpmMetricList[4]
	for _, tc := range []struct {
		m    gpmMetric
		in   float64
		want float64
	}{
		{pct, 0, 0},
		{pct, 100, 100},
		{pct, 55.5, 55.5},
		{pct, 100.01, math.NaN()},
		{pct, -0.1, math.NaN()},
		{pct, math.NaN(), math.NaN()},
		{pct, math.Inf(1), math.NaN()},
		{pcie, 1, 1 << 20},
		{pcie, 0, 0},
		{pcie, -5, math.NaN()},
		{pcie, math.Inf(1), math.NaN()},
	} {
		got := gpmValue(tc.m, tc.in)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s %v: got %v, want %v", tc.m.label, tc.in, got, tc.want)
		}
	}
}

func TestNVMLGPMOffAtOpen(t *testing.T) {
	t.Run("device without GPM", func(t *testing.T) {
		r := newRig(t)
		r.devs[6].GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
			return nvml.GpmSupport{IsSupportedDevice: 0}, nvml.SUCCESS
		}
		n := r.open(t)
		if n.GPUs()[6].GPM || !n.GPUs()[5].GPM {
			t.Errorf("GPM: gpu6 %v, gpu5 %v; want false, true", n.GPUs()[6].GPM, n.GPUs()[5].GPM)
		}
		res := r.collect(t, n)[6]
		wantAbsent(t, res.Reading, timeline.GPUSMActive)
		wantValue(t, res.Reading, timeline.GPUPCIeTxBytes, 1<<40)
		if !hasCheck(n, "GPM not supported by the device") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
	t.Run("second sample cannot be allocated", func(t *testing.T) {
		r := newRig(t)
		var allocated []*mock.GpmSample
		r.srv.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) {
			if len(allocated) == 1 {
				return nil, nvml.ERROR_MEMORY
			}
			s := &mock.GpmSample{FreeFunc: func() nvml.Return { return nvml.SUCCESS }}
			allocated = append(allocated, s)
			return s, nvml.SUCCESS
		}
		n := r.open(t)
		if n.GPUs()[0].GPM {
			t.Error("gpu0 says GPM without its samples")
		}
		if len(allocated[0].FreeCalls()) != 1 {
			t.Error("the first sample was not freed")
		}
		if !hasCheck(n, "GPM off (GpmSampleAlloc: Insufficient Memory)") {
			t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
		}
	})
}
