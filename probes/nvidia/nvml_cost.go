package nvidia

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// What each NVML call gputop makes costs, measured on the library it is
// handed (the driver, or the demo's mock): the numbers to measure on the
// first real GPU (docs/real-gpu.md keeps them), behind the hidden
// `gputop nvml-bench` that scripts/gpu-check.sh runs. It opens NVML as a
// session does, collects every probe once (so that a call the device does
// not support is dropped, as gputop drops it), and then makes each call
// that gputop would make on that device, back to back, with the same
// arguments. A call gputop gave up on is listed with no timing.

// CostOptions says how much to measure.
type CostOptions struct {
	// Calls is how many times each call is made (spread over the GPUs).
	Calls int
	// Paced are the intervals at which GetSamples is asked, as a session
	// at that --interval asks it, to count the samples each call returns;
	// PacedCalls calls at each.
	Paced      []time.Duration
	PacedCalls int
	// Sleep waits between paced calls and for GPM's second sample; nil is
	// time.Sleep. Tests on a simulated clock pass one that moves it.
	Sleep func(time.Duration)
}

// CallCost is what one NVML call cost over Calls calls.
type CallCost struct {
	// Call is NVML's C name, with what sets this row apart in brackets:
	// "nvmlDeviceGetFieldValues (health, 20 fields)".
	Call string `json:"call"`
	// Tier says when gputop makes it: "open" (once per GPU at start),
	// "tick" (every sample), "procs" (the slower process tier), "xid"
	// (the event watcher's setup), "close".
	Tier  string `json:"tier"`
	Calls int    `json:"calls"`
	// Failed counts the calls that did not return SUCCESS; Return is the
	// first such return, in nvmlErrorString's words.
	Failed int    `json:"failed"`
	Return string `json:"return,omitempty"`
	// MedianUS, P99US and MaxUS are the wall time of one call, in µs;
	// P99 is nearest-rank.
	MedianUS float64 `json:"median_us"`
	P99US    float64 `json:"p99_us"`
	MaxUS    float64 `json:"max_us"`
	// CPUUS is the CPU time (user and system, of the calling thread) one
	// call took on average, in µs: where it is far below the wall time the
	// call waits (on the GPU's firmware, say) rather than costing gputop a
	// core. Absent where the system cannot tell a thread's CPU time.
	CPUUS *float64 `json:"cpu_us,omitempty"`
	// Skipped says why the call was not timed: gputop does not make it
	// on this device.
	Skipped string `json:"skipped,omitempty"`
	// Fields and CounterFields are, on the row of the health fields'
	// call with every field, how many it asks and how many of them are
	// read every tick (the rest at the health pace): what a prediction
	// from a costs file without the counters' own row apportions by.
	Fields        int `json:"fields,omitempty"`
	CounterFields int `json:"counter_fields,omitempty"`
	// PerGPUPerS is how many times a second a session at the report's
	// Interval makes the call on one GPU, from the probe's own schedule
	// (Schedule); 0 for a call made once, and for the bench's whole
	// Collect rows, which sum the calls.
	PerGPUPerS *float64 `json:"per_gpu_per_s,omitempty"`
	// PredictedCPUUS is PerGPUPerS times the call's CPU µs in the costs
	// file (its median wall time where it has no CPU column); CostNote
	// says where that cost came from when not from the row of the same
	// call, or why there is none.
	PredictedCPUUS *float64 `json:"predicted_cpu_us_per_gpu_s,omitempty"`
	CostNote       string   `json:"cost_note,omitempty"`
	// perSecond is PerGPUPerS before it was rounded for reading.
	perSecond float64
}

// SampleCount is how many utilisation samples GetSamples returned per
// call, asked every Interval with the newest timestamp seen, as a session
// asks it.
type SampleCount struct {
	Interval string `json:"interval"`
	Calls    int    `json:"calls"`
	Min      int    `json:"min"`
	Median   int    `json:"median"`
	Max      int    `json:"max"`
	// PeriodMS is the median spacing of the samples' timestamps: the
	// driver's own sampling period (200 ms on the H100 measured in
	// docs/real-gpu.md, where 1/6 s was expected).
	PeriodMS float64 `json:"period_ms"`
}

// CostReport is the whole measurement.
type CostReport struct {
	Driver string `json:"driver"`
	CUDA   string `json:"cuda"`
	GPUs   int    `json:"gpus"`
	// OpenMS is OpenNVML's wall time: nvmlInit and the enumeration.
	OpenMS float64 `json:"open_ms"`
	// BufferSamples and BufferSpanMS are what GetSamples returns with
	// lastSeen 0 (its whole buffer) on the first GPU: the samples with a
	// time stamp and the time between the oldest and the newest of them.
	// BufferEmpty counts the entries without one (time stamp 0), which a
	// real driver returns for the buffer's slots it has not filled yet.
	BufferSamples int           `json:"buffer_samples"`
	BufferEmpty   int           `json:"buffer_empty"`
	BufferSpanMS  float64       `json:"buffer_span_ms"`
	Calls         []CallCost    `json:"calls"`
	Samples       []SampleCount `json:"samples"`
	// Checks are the lines of the session's `?` screen: symbols found,
	// what each GPU supports, what was given up.
	Checks []string `json:"checks"`
	// Note says where a report comes from when nvml-bench did not write
	// it as it stands (docs/real-gpu/).
	Note string `json:"note,omitempty"`
	// Interval is the session interval of the schedule (Schedule); the
	// predictions follow (Predict): the CPU µs per GPU-second of the GPU
	// probe's calls and of the process tier's, from CostsFrom.
	Interval            string   `json:"interval,omitempty"`
	PredictedCPUUS      *float64 `json:"predicted_cpu_us_per_gpu_s,omitempty"`
	PredictedProcsCPUUS *float64 `json:"predicted_procs_cpu_us_per_gpu_s,omitempty"`
	CostsFrom           string   `json:"costs_from,omitempty"`
}

// MeasureCost opens NVML on lib and measures every call gputop makes; see
// the comment above. It closes NVML before it returns.
func MeasureCost(lib nvml.Interface, clock Clock, opts CostOptions) (*CostReport, error) {
	if opts.Calls <= 0 {
		return nil, errors.New("the number of calls must be at least 1")
	}
	if opts.Sleep == nil {
		opts.Sleep = time.Sleep
	}
	start := time.Now()
	n, err := OpenNVML(lib, clock)
	if err != nil {
		return nil, err
	}
	rep := &CostReport{Driver: n.driver, CUDA: n.cuda, GPUs: len(n.gpus), OpenMS: ms(time.Since(start))}
	// One tick of every probe first: what a device does not support is
	// dropped here, as in a session, and not timed below.
	ctx := context.Background()
	for _, p := range n.Probes() {
		_, _ = p.Collect(ctx) // failures show in the rows below and in Checks
	}
	m := &costMeter{n: n, opts: opts}
	m.openCalls()
	m.tickCalls()
	m.gpmCalls()
	m.procCalls(ctx)
	m.xidCalls()
	rep.Calls = m.rows
	rep.Samples = m.paced()
	// After the paced calls: a demo that has just begun has no samples yet.
	rep.BufferSamples, rep.BufferEmpty, rep.BufferSpanMS = m.buffer()
	rep.Checks = n.Checks()
	if err := n.Close(); err != nil {
		return rep, err
	}
	return rep, nil
}

// costMeter makes the calls and keeps their rows.
type costMeter struct {
	n    *NVML
	opts CostOptions
	rows []CallCost
}

// time makes call Calls times, the k-th on GPU k mod the GPUs that pass
// use (nil: every GPU not lost), and records its row.
func (m *costMeter) time(call, tier string, use func(g *gpuProbe) bool, do func(g *gpuProbe) nvml.Return) {
	var gpus []*gpuProbe
	for _, g := range m.n.gpus {
		if !g.lost.Load() && (use == nil || use(g)) {
			gpus = append(gpus, g)
		}
	}
	if len(gpus) == 0 {
		m.skip(call, tier, "not made on any GPU here")
		return
	}
	m.measure(call, tier, func(k int) nvml.Return { return do(gpus[k%len(gpus)]) })
}

// measure makes do(k) for k up to Calls and records the row. A call whose
// first answer is "not supported" or "lost" is made once: gputop would
// not ask again.
func (m *costMeter) measure(call, tier string, do func(k int) nvml.Return) {
	row := CallCost{Call: call, Tier: tier}
	took := make([]time.Duration, 0, m.opts.Calls)
	// On one thread, for its CPU time.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu threadCPUSum
	cpu.start()
	for k := range m.opts.Calls {
		t0 := time.Now()
		ret := do(k)
		took = append(took, time.Since(t0))
		if ret != nvml.SUCCESS {
			row.Failed++
			if row.Return == "" {
				row.Return = returnText(ret)
			}
			if k == 0 && (classify(ret) == outcomeUnsupported || classify(ret) == outcomeLost) {
				break
			}
		}
	}
	cpu.stop()
	row.Calls = len(took)
	row.MedianUS, row.P99US, row.MaxUS = quantilesUS(took)
	row.CPUUS = cpu.perCallUS(len(took))
	m.rows = append(m.rows, row)
}

// skip records a call gputop makes elsewhere but not on this device.
func (m *costMeter) skip(call, tier, why string) {
	m.rows = append(m.rows, CallCost{Call: call, Tier: tier, Skipped: why})
}

// quantilesUS gives the median, nearest-rank p99 and maximum of took, in µs.
func quantilesUS(took []time.Duration) (median, p99, maxUS float64) {
	s := slices.Clone(took)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	us := func(d time.Duration) float64 { return math.Round(float64(d)/1e1) / 1e2 }
	return us(rank(0.5)), us(rank(0.99)), us(s[len(s)-1])
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 1e2 }

// buffer is GetSamples' whole buffer on the first GPU that has samples.
func (m *costMeter) buffer() (stamped, empty int, spanMS float64) {
	for _, g := range m.n.gpus {
		if g.info.MIG || g.lost.Load() || g.unsupported&callSamples != 0 {
			continue
		}
		_, samples, ret := g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0)
		if ret != nvml.SUCCESS {
			return 0, 0, 0
		}
		var lo, hi uint64
		for _, s := range samples {
			if s.TimeStamp == 0 {
				empty++
				continue
			}
			if stamped == 0 || s.TimeStamp < lo {
				lo = s.TimeStamp
			}
			hi = max(hi, s.TimeStamp)
			stamped++
		}
		return stamped, empty, float64(hi-lo) / 1e3
	}
	return 0, 0, 0
}

// paced asks GetSamples at each of opts.Paced on the first GPU that has
// samples, as a session at that interval does, and counts what comes back.
func (m *costMeter) paced() []SampleCount {
	var g *gpuProbe
	for _, c := range m.n.gpus {
		if !c.info.MIG && !c.lost.Load() && c.unsupported&callSamples == 0 {
			g = c
			break
		}
	}
	out := []SampleCount{}
	if g == nil || m.opts.PacedCalls <= 0 {
		return out
	}
	for _, every := range m.opts.Paced {
		_, first, _ := g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0)
		var last uint64
		for _, s := range first {
			last = max(last, s.TimeStamp)
		}
		row := SampleCount{Interval: every.String()}
		var counts []int
		var stamps []uint64
		for range m.opts.PacedCalls {
			m.opts.Sleep(every)
			_, samples, ret := g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, last)
			if ret != nvml.SUCCESS && ret != nvml.ERROR_NOT_FOUND {
				continue
			}
			got := 0
			for _, s := range samples {
				if s.TimeStamp > last {
					got++
					stamps = append(stamps, s.TimeStamp)
				}
			}
			for _, s := range samples {
				last = max(last, s.TimeStamp)
			}
			counts = append(counts, got)
		}
		row.Calls = len(counts)
		if len(counts) > 0 {
			slices.Sort(counts)
			row.Min, row.Median, row.Max = counts[0], counts[len(counts)/2], counts[len(counts)-1]
		}
		row.PeriodMS = medianSpacingMS(stamps)
		out = append(out, row)
	}
	return out
}

// medianSpacingMS is the median gap between consecutive timestamps (µs),
// in ms; 0 with fewer than two.
func medianSpacingMS(stamps []uint64) float64 {
	slices.Sort(stamps)
	var gaps []uint64
	for i := 1; i < len(stamps); i++ {
		if d := stamps[i] - stamps[i-1]; d > 0 {
			gaps = append(gaps, d)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	return float64(gaps[len(gaps)/2]) / 1e3
}
