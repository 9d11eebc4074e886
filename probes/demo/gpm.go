package demo

import (
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// gpmSample is a GPM sample buffer: Get records a device's running totals at
// that instant, and GpmMetricsGet turns two of them into the averages over
// the time between. It is the demo's own nvml.GpmSample rather than go-nvml's
// mock.GpmSample because the mock keeps every call it gets in a slice, which
// a demo left running for days would grow without end.
type gpmSample struct {
	demo *Node

	mu    sync.Mutex
	gpu   int // -1 until Get
	at    int64
	total gpuTotals
}

// Free releases the buffer; the garbage collector does the rest.
func (s *gpmSample) Free() nvml.Return { return nvml.SUCCESS }

// Get records dev's totals now.
func (s *gpmSample) Get(dev nvml.Device) nvml.Return {
	g := s.demo.gpuOf(dev)
	if g == nil {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	us := s.demo.time.now()
	t := g.totals.at(us)
	s.mu.Lock()
	s.gpu, s.at, s.total = g.index, us, t
	s.mu.Unlock()
	return nvml.SUCCESS
}

// MigGet records the totals of GPU instance gi of dev now. A slice's
// samples carry an id apart from every GPU's (migSampleID), so that
// GpmMetricsGet never pairs a slice's sample with its GPU's.
func (s *gpmSample) MigGet(dev nvml.Device, gi int) nvml.Return {
	g := s.demo.gpuOf(dev)
	if g == nil {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	m := s.demo.devices[g.index].migOf(gi)
	if m == nil {
		return nvml.ERROR_NOT_FOUND
	}
	us := s.demo.time.now()
	t := m.totals.at(us)
	s.mu.Lock()
	s.gpu, s.at, s.total = migSampleID(g.index, m.slot), us, t
	s.mu.Unlock()
	return nvml.SUCCESS
}

// migSampleID is the id a GPM sample of MIG slot k of GPU g carries.
func migSampleID(g, k int) int { return demoGPUs + g*h100MaxMig + k }

func (s *gpmSample) read() (gpu int, at int64, t gpuTotals) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gpu, s.at, s.total
}

// gpmSampleAlloc is the library's GpmSampleAlloc.
func (d *Node) gpmSampleAlloc() (nvml.GpmSample, nvml.Return) {
	return &gpmSample{demo: d, gpu: -1}, nvml.SUCCESS
}

// gpmMetricsGet is the library's GpmMetricsGet: every metric asked for,
// averaged between Sample1 and Sample2 (taken later, from the same GPU).
// Metrics the script does not model answer NOT_SUPPORTED in their own
// NvmlReturn, as the driver does for a metric a GPU lacks.
func (d *Node) gpmMetricsGet(m *nvml.GpmMetricsGetType) nvml.Return {
	s1, ok1 := m.Sample1.(*gpmSample)
	s2, ok2 := m.Sample2.(*gpmSample)
	if !ok1 || !ok2 || int(m.NumMetrics) > len(m.Metrics) {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	g1, at1, t1 := s1.read()
	g2, at2, t2 := s2.read()
	if g1 < 0 || g1 != g2 || at2 <= at1 {
		return nvml.ERROR_INVALID_ARGUMENT
	}
	secs := float64(at2-at1) / 1e6
	avg := func(a, b float64) float64 { return (b - a) / secs }
	for i := range m.Metrics[:m.NumMetrics] {
		mt := &m.Metrics[i]
		v, ok := 0.0, true
		switch nvml.GpmMetricId(mt.MetricId) {
		case nvml.GPM_METRIC_GRAPHICS_UTIL:
			v = avg(t1.Util, t2.Util)
		case nvml.GPM_METRIC_SM_UTIL:
			v = avg(t1.SM, t2.SM)
		case nvml.GPM_METRIC_SM_OCCUPANCY:
			v = avg(t1.Occupancy, t2.Occupancy)
		case nvml.GPM_METRIC_ANY_TENSOR_UTIL:
			v = avg(t1.Tensor, t2.Tensor)
		case nvml.GPM_METRIC_DRAM_BW_UTIL:
			v = avg(t1.DRAM, t2.DRAM)
		case nvml.GPM_METRIC_PCIE_TX_PER_SEC: // MiB/s, per nvml.h
			v = avg(t1.Tx, t2.Tx) / (1 << 20)
		case nvml.GPM_METRIC_PCIE_RX_PER_SEC:
			v = avg(t1.Rx, t2.Rx) / (1 << 20)
		default:
			ok = false
		}
		if !ok {
			mt.NvmlReturn, mt.Value = uint32(nvml.ERROR_NOT_SUPPORTED), 0
			continue
		}
		mt.NvmlReturn, mt.Value = uint32(nvml.SUCCESS), v
	}
	return nvml.SUCCESS
}

// gpuOf finds the scripted GPU behind a device handle: the demo's own
// handles, or the mock server's devices for code that holds those.
func (d *Node) gpuOf(dev nvml.Device) *demoGPU {
	switch h := dev.(type) {
	case *demoDevice:
		return h.gpu
	case *server.Device:
		for _, dd := range d.devices {
			if dd.Device == h {
				return dd.gpu
			}
		}
	}
	return nil
}
