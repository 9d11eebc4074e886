package nvidia

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// MeasureCost times every call the probe makes each tick, with the probe's
// own arguments, and leaves out what the device gave up on: a GPU whose
// temperature is not supported is never asked for it again, so it is not
// timed either.
func TestMeasureCostTimesEveryTickCall(t *testing.T) {
	r := newRig(t)
	for _, f := range r.fakes {
		f.rets = map[string]nvml.Return{"GetTemperature": nvml.ERROR_NOT_SUPPORTED}
	}
	// The driver's sampler: a utilisation sample every 1/6 s on GPU0,
	// taken as simulated time passes.
	const period = time.Second / 6
	r.fakes[0].samples = utilSamples(sampleBase, 50)
	// Two unfilled slots, as a real driver returns them: time stamp 0.
	r.fakes[0].samples = append([]nvml.Sample{{}, {}}, r.fakes[0].samples...)
	first := r.fakes[0].samples[2].TimeStamp
	sleep := func(d time.Duration) {
		r.advance(t, d)
		f := r.fakes[0]
		for k := time.Duration(0); k < d/period; k++ {
			last := f.samples[len(f.samples)-1].TimeStamp
			f.samples = append(f.samples, nvml.Sample{TimeStamp: last + uint64(period/time.Microsecond)})
		}
	}
	rep, err := MeasureCost(r.srv, r.clock, CostOptions{Calls: 50, Paced: []time.Duration{250 * time.Millisecond, time.Second},
		PacedCalls: 4, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]CallCost{}
	for _, c := range rep.Calls {
		rows[c.Call] = c
	}
	timed := []string{"nvmlDeviceGetUtilizationRates", "nvmlDeviceGetSamples (since the last seen)",
		"nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetTotalEnergyConsumption",
		"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetClockInfo (SM)", "nvmlDeviceGetClockInfo (MEM)",
		"nvmlDeviceGetCurrentClocksEventReasons", "nvmlGpmSampleGet", "nvmlGpmMetricsGet (6 metrics)",
		"nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses", "nvmlDeviceGetProcessUtilization",
		"gputop: one GPU's whole Collect", "nvmlGpmSampleAlloc", "nvmlGpmSampleFree"}
	for _, name := range timed {
		c, ok := rows[name]
		if !ok || c.Calls != 50 || c.Failed != 0 || c.Skipped != "" || c.P99US < c.MedianUS || c.MaxUS < c.P99US {
			t.Errorf("%s: %+v (in the report: %v); want 50 calls, none failed, median <= p99 <= max", name, c, ok)
		}
	}
	var health bool
	for name, c := range rows {
		health = health || strings.HasPrefix(name, "nvmlDeviceGetFieldValues (health, ") && c.Calls == 50
	}
	if !health {
		t.Errorf("the health fields' call is not timed: %+v", rep.Calls)
	}
	if c := rows["nvmlDeviceGetTemperature (GPU)"]; c.Skipped == "" || c.Calls != 0 {
		t.Errorf("temperature, which every GPU gave up on, was timed: %+v", c)
	}
	if len(rep.Samples) != 2 {
		t.Fatalf("paced GetSamples: %+v; want 250ms and 1s", rep.Samples)
	}
	// Every 250 ms a session gets one or two of the 1/6 s samples; every
	// second, six.
	if s := rep.Samples[0]; s.Interval != "250ms" || s.Calls != 4 || s.Min < 1 || s.Max > 2 || s.PeriodMS != 166.666 {
		t.Errorf("every 250ms: %+v", s)
	}
	if s := rep.Samples[1]; s.Interval != "1s" || s.Median != 6 {
		t.Errorf("every 1s: %+v", s)
	}
	// The whole buffer: its stamped samples' span, the empty slots apart.
	last := r.fakes[0].samples[len(r.fakes[0].samples)-1].TimeStamp
	if rep.BufferEmpty != 2 || rep.BufferSamples != len(r.fakes[0].samples)-2 || rep.BufferSpanMS != float64(last-first)/1e3 {
		t.Errorf("buffer: %d samples over %v ms, %d empty; want %d over %v ms, 2 empty",
			rep.BufferSamples, rep.BufferSpanMS, rep.BufferEmpty, len(r.fakes[0].samples)-2, float64(last-first)/1e3)
	}
	// Each timed row says its CPU time, which no call can exceed by
	// more than the clock's grain.
	for _, c := range rep.Calls {
		if c.Skipped == "" && (c.CPUUS == nil || *c.CPUUS < 0) {
			t.Errorf("%s: CPU time %v", c.Call, c.CPUUS)
		}
	}
	if rep.GPUs != 8 || len(rep.Checks) == 0 {
		t.Errorf("GPUs %d, checks %q", rep.GPUs, rep.Checks)
	}
}

// A call whose first answer is "not supported" is made once, as gputop
// would make it, and reported with that answer.
func TestMeasureCostStopsAtNotSupported(t *testing.T) {
	m := &costMeter{opts: CostOptions{Calls: 100}}
	n := 0
	m.measure("nvmlDeviceGetSomething", "tick", func(int) nvml.Return { n++; return nvml.ERROR_NOT_SUPPORTED })
	if c := m.rows[0]; n != 1 || c.Calls != 1 || c.Failed != 1 || c.Return != "Not Supported" {
		t.Errorf("made %d times: %+v", n, c)
	}
}

func TestQuantilesUS(t *testing.T) {
	var took []time.Duration
	for i := 100; i >= 1; i-- {
		took = append(took, time.Duration(i)*time.Microsecond)
	}
	if med, p99, hi := quantilesUS(took); med != 50 || p99 != 99 || hi != 100 {
		t.Errorf("1..100 µs: median %v, p99 %v, max %v; want 50, 99, 100", med, p99, hi)
	}
}

// A prediction prices each scheduled call with the costs file's row of the
// same call, whatever its counts; the health counters, which a run before
// they were read apart lacks, as their share of the every-field call.
func TestPredictPricesTheSchedule(t *testing.T) {
	cpu := func(v float64) *float64 { return &v }
	costs := &CostReport{Driver: "580", GPUs: 1, Calls: []CallCost{
		{Call: "nvmlDeviceGetSamples (since the last seen)", Tier: "tick", Calls: 9, CPUUS: cpu(2000)},
		{Call: "nvmlDeviceGetFieldValues (health, 13 fields)", Tier: "tick", Calls: 9, CPUUS: cpu(800), Fields: 13, CounterFields: 6},
		{Call: "nvmlDeviceGetPowerUsage", Tier: "tick", Calls: 9, MedianUS: 0.5},
		{Call: "nvmlDeviceGetProcessUtilization", Tier: "procs", Calls: 9, CPUUS: cpu(2100)},
	}}
	rep := &CostReport{Calls: []CallCost{
		{Call: "nvmlDeviceGetSamples (since the last seen)", Tier: "tick", Calls: 1},
		{Call: "nvmlDeviceGetFieldValues (health, 128 fields)", Tier: "tick", Calls: 1},
		{Call: "nvmlDeviceGetFieldValues (health counters, 116 fields)", Tier: "tick", Calls: 1},
		{Call: "nvmlDeviceGetPowerUsage", Tier: "tick", Calls: 1},
		{Call: "nvmlDeviceGetTemperature (GPU)", Tier: "tick", Calls: 1},
		{Call: "nvmlDeviceGetProcessUtilization", Tier: "procs", Calls: 1},
		{Call: "nvmlDeviceGetName", Tier: "open", Calls: 1},
	}}
	rep.Schedule(time.Second, DefaultPace, 5*time.Second)
	rep.Predict(costs, "h100.json")
	want := map[string]float64{
		"nvmlDeviceGetSamples (since the last seen)":             200,
		"nvmlDeviceGetFieldValues (health, 128 fields)":          800.0 / 30,
		"nvmlDeviceGetFieldValues (health counters, 116 fields)": (1 - 1.0/30) * 800 * 6 / 13,
		"nvmlDeviceGetPowerUsage":                                0.5,
		"nvmlDeviceGetProcessUtilization":                        420,
	}
	for _, c := range rep.Calls {
		w, priced := want[c.Call]
		switch {
		case priced && (c.PredictedCPUUS == nil || math.Abs(*c.PredictedCPUUS-w) > 0.01):
			t.Errorf("%s: %v µs per GPU-second, want %v", c.Call, c.PredictedCPUUS, w)
		case !priced && c.PredictedCPUUS != nil:
			t.Errorf("%s: priced at %v without a cost", c.Call, *c.PredictedCPUUS)
		}
	}
	if c := rep.Calls[4]; c.CostNote != "no cost measured" {
		t.Errorf("a call without a cost: %+v", c)
	}
	if tick := 200 + 800.0/30 + (1-1.0/30)*800*6/13 + 0.5; math.Abs(*rep.PredictedCPUUS-tick) > 0.01 || *rep.PredictedProcsCPUUS != 420 {
		t.Errorf("sums %v and %v, want %v and 420", *rep.PredictedCPUUS, *rep.PredictedProcsCPUUS, tick)
	}
}
