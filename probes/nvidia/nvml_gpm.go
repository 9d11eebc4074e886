package nvidia

import (
	"errors"
	"math"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

// gpmMinGap is the least time between the two samples of a GPM pair: NVML
// refuses, or gives noise, for samples closer together.
const gpmMinGap = 100 * time.Millisecond

// mib is GPM's PCIe unit: nvml.h gives PCIE_TX_PER_SEC and RX_PER_SEC in
// MiB/s, and timeline wants bytes/s.
const mib = 1 << 20

// gpmMetric is one GPM metric the probe asks for.
type gpmMetric struct {
	id      nvml.GpmMetricId
	name    string  // timeline metric
	label   string  // for errors and Checks
	scale   float64 // to timeline's unit
	percent bool    // must lie in 0..100
	pcie    bool
}

var gpmMetricList = []gpmMetric{
	{nvml.GPM_METRIC_SM_UTIL, timeline.GPUSMActive, "GPM SM activity", 1, true, false},
	{nvml.GPM_METRIC_SM_OCCUPANCY, timeline.GPUSMOccupancy, "GPM SM occupancy", 1, true, false},
	{nvml.GPM_METRIC_ANY_TENSOR_UTIL, timeline.GPUTensor, "GPM tensor activity", 1, true, false},
	{nvml.GPM_METRIC_DRAM_BW_UTIL, timeline.GPUDRAMBW, "GPM DRAM bandwidth", 1, true, false},
	{nvml.GPM_METRIC_PCIE_TX_PER_SEC, timeline.GPUPCIeTx, "GPM PCIe tx", mib, false, true},
	{nvml.GPM_METRIC_PCIE_RX_PER_SEC, timeline.GPUPCIeRx, "GPM PCIe rx", mib, false, true},
}

// gpmPair is one device's two GPM samples. Each tick fills cur, takes the
// metrics between prev and cur, and swaps them, so one new sample per tick
// serves every metric.
type gpmPair struct {
	prev, cur nvml.GpmSample
	prevAt    time.Time
	havePrev  bool
	wanted    []int // indices into gpmMetricList still asked for
	// request is reused: it holds 477 metric slots (about 19 KB).
	request nvml.GpmMetricsGetType
}

func newGPMPair(lib nvml.Interface) (*gpmPair, error) {
	a, ret := lib.GpmSampleAlloc()
	if ret != nvml.SUCCESS {
		return nil, errors.New("GpmSampleAlloc: " + returnText(ret))
	}
	b, ret := lib.GpmSampleAlloc()
	if ret != nvml.SUCCESS {
		err := errors.New("GpmSampleAlloc: " + returnText(ret))
		if fret := a.Free(); fret != nvml.SUCCESS {
			err = errors.New(err.Error() + "; GpmSampleFree: " + returnText(fret))
		}
		return nil, err
	}
	p := &gpmPair{prev: a, cur: b}
	for i := range gpmMetricList {
		p.wanted = append(p.wanted, i)
	}
	return p, nil
}

// free releases both samples, returning what failed.
func (p *gpmPair) free() []string {
	var problems []string
	for _, s := range []nvml.GpmSample{p.prev, p.cur} {
		if ret := s.Free(); ret != nvml.SUCCESS {
			problems = append(problems, "GpmSampleFree: "+returnText(ret))
		}
	}
	return problems
}

// gpmMetrics writes the profiling-grade metrics of a GPM device (absent on
// others): NaN on the first tick, on a tick too close to the last pair, and
// for any metric whose own return or range is wrong.
func (t *tick) gpmMetrics() {
	g := t.g
	if !g.info.GPM {
		return
	}
	values := make([]float64, len(gpmMetricList))
	for i := range values {
		values[i] = math.NaN()
	}
	if t.ask(callGPM) {
		t.readGPM(values)
	}
	for i, m := range gpmMetricList {
		if m.pcie && !g.pcieFromGPM {
			continue
		}
		t.gauge(m.name, values[i])
	}
}

func (t *tick) readGPM(values []float64) {
	g, p := t.g, t.g.gpm
	now := g.n.clock.Now()
	if p.havePrev && now.Sub(p.prevAt) < gpmMinGap {
		// Too soon for a good pair: skip, and keep prev for the next tick.
		return
	}
	switch ret := g.dev.GpmSampleGet(p.cur); classify(ret) {
	case outcomeOK:
	case outcomeUnsupported:
		t.ok(callGPM, ret)
		g.usePCIeCounters()
		return
	default:
		// Lost, or a failure: cur holds nothing usable; prev stays.
		t.check("GPM sample", ret)
		return
	}
	if p.havePrev {
		t.pairMetrics(values)
	}
	p.prev, p.cur = p.cur, p.prev
	p.prevAt, p.havePrev = now, true
}

// pairMetrics asks for every wanted metric between prev and cur.
func (t *tick) pairMetrics(values []float64) {
	g, p := t.g, t.g.gpm
	req := &p.request
	req.Sample1, req.Sample2 = p.prev, p.cur
	req.NumMetrics = uint32(len(p.wanted))
	for slot, i := range p.wanted {
		req.Metrics[slot] = nvml.GpmMetric{MetricId: uint32(gpmMetricList[i].id)}
	}
	ret := g.n.lib.GpmMetricsGet(req)
	if !t.ok(callGPM, ret) {
		if g.unsupported&callGPM != 0 {
			g.usePCIeCounters()
		}
		return
	}
	var keep []int
	for slot, i := range p.wanted {
		m, got := gpmMetricList[i], req.Metrics[slot]
		ret := nvml.Return(got.NvmlReturn)
		switch t.check(m.label, ret) {
		case outcomeUnsupported:
			g.n.note("%s: %s: %s, no longer asked", g.device, m.label, returnText(ret))
			if m.pcie {
				g.usePCIeCounters()
			}
			continue
		case outcomeOK:
			values[i] = gpmValue(m, got.Value)
			if math.IsNaN(values[i]) {
				g.n.note("%s: %s gave values out of range: shown as unknown", g.device, m.label)
			}
		}
		keep = append(keep, i)
	}
	if !g.pcieFromGPM {
		keep = dropPCIe(keep)
	}
	p.wanted = keep
}

// gpmValue scales a GPM value to timeline's unit, or NaN if it is out of
// range: some driver and library pairs have returned nonsense.
//
// Percentages are kept to 0.01 %: GPM's own sampling is far coarser than
// that, and the digits past it are noise that a recording would otherwise
// have to store exactly (they cost more than half of a recording's size).
func gpmValue(m gpmMetric, v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return math.NaN()
	}
	if m.percent {
		return math.Round(percent(v)*100) / 100
	}
	return math.Round(v * m.scale)
}

// usePCIeCounters switches PCIe to the field counters from the next read:
// GPM cannot give it on this device.
func (g *gpuProbe) usePCIeCounters() {
	if !g.pcieFromGPM {
		return
	}
	g.pcieFromGPM = false
	g.pcieFields = []uint32{nvml.FI_DEV_PCIE_COUNT_TX_BYTES, nvml.FI_DEV_PCIE_COUNT_RX_BYTES}
	g.n.note("%s: PCIe from counters: GPM does not give it", g.device)
}

func dropPCIe(indices []int) []int {
	out := indices[:0]
	for _, i := range indices {
		if !gpmMetricList[i].pcie {
			out = append(out, i)
		}
	}
	return out
}
