package nvidia

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The calls MeasureCost times, tier by tier, in nvml.go's order. Each is
// made with the arguments the probe uses; the whole Collect of a GPU and of
// the process tier is timed too, as what one tick costs.

// asks says whether a GPU's probe still makes call c: not given up on
// (not supported), and the GPU not lost.
func asks(c call) func(g *gpuProbe) bool {
	return func(g *gpuProbe) bool { return g.unsupported&c == 0 }
}

// notMIG is a GPU whose utilisation can be asked (MIG mode off).
func notMIG(c call) func(g *gpuProbe) bool {
	return func(g *gpuProbe) bool { return !g.info.MIG && g.unsupported&c == 0 }
}

func (m *costMeter) openCalls() {
	lib := m.n.lib
	m.measure("nvmlSystemGetDriverVersion", "open", func(int) nvml.Return { _, r := lib.SystemGetDriverVersion(); return r })
	m.measure("nvmlSystemGetCudaDriverVersion", "open", func(int) nvml.Return { _, r := lib.SystemGetCudaDriverVersion(); return r })
	m.measure("nvmlDeviceGetCount", "open", func(int) nvml.Return { _, r := lib.DeviceGetCount(); return r })
	m.measure("LookupSymbol (dlsym, "+symClockEvents+")", "open", func(int) nvml.Return {
		if lib.Extensions().LookupSymbol(symClockEvents) != nil {
			return nvml.ERROR_FUNCTION_NOT_FOUND
		}
		return nvml.SUCCESS
	})
	m.time("nvmlDeviceGetHandleByIndex", "open", nil, func(g *gpuProbe) nvml.Return {
		_, r := lib.DeviceGetHandleByIndex(g.info.Index)
		return r
	})
	m.time("nvmlDeviceGetName", "open", nil, func(g *gpuProbe) nvml.Return { _, r := g.dev.GetName(); return r })
	m.time("nvmlDeviceGetUUID", "open", nil, func(g *gpuProbe) nvml.Return { _, r := g.dev.GetUUID(); return r })
	m.time("nvmlDeviceGetPciInfo", "open", nil, func(g *gpuProbe) nvml.Return { _, r := g.dev.GetPciInfo(); return r })
	if m.n.syms.migMode {
		m.time("nvmlDeviceGetMigMode", "open", nil, func(g *gpuProbe) nvml.Return { _, _, r := g.dev.GetMigMode(); return r })
	} else {
		m.skip("nvmlDeviceGetMigMode", "open", "the driver lacks it")
	}
	hasLink := func(g *gpuProbe) bool { return g.health.link }
	m.time("nvmlDeviceGetMaxPcieLinkGeneration", "open", hasLink, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetMaxPcieLinkGeneration()
		return r
	})
	m.time("nvmlDeviceGetMaxPcieLinkWidth", "open", hasLink, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetMaxPcieLinkWidth()
		return r
	})
	m.time("nvmlDeviceGetNvLinkState (link 0)", "open", nil, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetNvLinkState(0)
		return r
	})
	if !m.n.syms.gpm {
		m.skip("nvmlGpmQueryDeviceSupport", "open", "the driver lacks GPM")
		return
	}
	m.time("nvmlGpmQueryDeviceSupport", "open", nil, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GpmQueryDeviceSupport()
		return r
	})
	m.allocFree()
}

// allocFree times nvmlGpmSampleAlloc and nvmlGpmSampleFree, each on its
// own: one sample allocated and freed per round.
func (m *costMeter) allocFree() {
	var alloc, free []time.Duration
	var allocCPU, freeCPU threadCPUSum
	allocRow := CallCost{Call: "nvmlGpmSampleAlloc", Tier: "open"}
	freeRow := CallCost{Call: "nvmlGpmSampleFree", Tier: "close"}
	fail := func(row *CallCost, r nvml.Return) {
		row.Failed++
		if row.Return == "" {
			row.Return = returnText(r)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range m.opts.Calls {
		t0 := time.Now()
		allocCPU.start()
		s, r := m.n.lib.GpmSampleAlloc()
		allocCPU.stop()
		alloc = append(alloc, time.Since(t0))
		if r != nvml.SUCCESS {
			fail(&allocRow, r)
			break
		}
		t0 = time.Now()
		freeCPU.start()
		r = s.Free()
		freeCPU.stop()
		free = append(free, time.Since(t0))
		if r != nvml.SUCCESS {
			fail(&freeRow, r)
		}
	}
	for _, x := range []struct {
		row  *CallCost
		took []time.Duration
		cpu  *threadCPUSum
	}{{&allocRow, alloc, &allocCPU}, {&freeRow, free, &freeCPU}} {
		x.row.Calls = len(x.took)
		if len(x.took) > 0 {
			x.row.MedianUS, x.row.P99US, x.row.MaxUS = quantilesUS(x.took)
			x.row.CPUUS = x.cpu.perCallUS(len(x.took))
		}
		m.rows = append(m.rows, *x.row)
	}
}

func (m *costMeter) tickCalls() {
	m.time("nvmlDeviceGetUtilizationRates", "tick", notMIG(callUtilization), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetUtilizationRates()
		return r
	})
	m.time("nvmlDeviceGetSamples (since the last seen)", "tick", notMIG(callSamples), func(g *gpuProbe) nvml.Return {
		_, _, r := g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, g.lastSample)
		if r == nvml.ERROR_NOT_FOUND {
			return nvml.SUCCESS // no sample newer: what most back-to-back calls get
		}
		return r
	})
	m.time("nvmlDeviceGetSamples (whole buffer)", "tick", notMIG(callSamples), func(g *gpuProbe) nvml.Return {
		_, _, r := g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, 0)
		if r == nvml.ERROR_NOT_FOUND {
			return nvml.SUCCESS // an empty buffer: no sample taken yet
		}
		return r
	})
	memName := "nvmlDeviceGetMemoryInfo"
	if m.n.syms.memoryV2 {
		memName = "nvmlDeviceGetMemoryInfo_v2"
	}
	m.time(memName, "tick", asks(callMemory), func(g *gpuProbe) nvml.Return { _, r := g.readMemory(); return r })
	m.time("nvmlDeviceGetPowerUsage", "tick", asks(callPower), func(g *gpuProbe) nvml.Return { _, r := g.dev.GetPowerUsage(); return r })
	m.time("nvmlDeviceGetTotalEnergyConsumption", "tick", asks(callEnergy), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetTotalEnergyConsumption()
		return r
	})
	m.time("nvmlDeviceGetEnforcedPowerLimit", "tick", asks(callPowerLimit), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetEnforcedPowerLimit()
		return r
	})
	m.time("nvmlDeviceGetTemperature (GPU)", "tick", asks(callTemperature), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetTemperature(nvml.TEMPERATURE_GPU)
		return r
	})
	m.time("nvmlDeviceGetClockInfo (SM)", "tick", asks(callClockSM), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetClockInfo(nvml.CLOCK_SM)
		return r
	})
	m.time("nvmlDeviceGetClockInfo (MEM)", "tick", asks(callClockMem), func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetClockInfo(nvml.CLOCK_MEM)
		return r
	})
	switch {
	case m.n.syms.clockEvents:
		m.time("nvmlDeviceGetCurrentClocksEventReasons", "tick", asks(callThrottle), func(g *gpuProbe) nvml.Return {
			_, r := g.dev.GetCurrentClocksEventReasons()
			return r
		})
	case m.n.syms.clockThrottle:
		m.time("nvmlDeviceGetCurrentClocksThrottleReasons", "tick", asks(callThrottle), func(g *gpuProbe) nvml.Return {
			_, r := g.dev.GetCurrentClocksThrottleReasons()
			return r
		})
	default:
		m.skip("nvmlDeviceGetCurrentClocksEventReasons", "tick", "the driver has neither name")
	}
	pcieCounters := func(g *gpuProbe) bool {
		return !g.pcieFromGPM && len(g.pcieFields) > 0 && g.unsupported&callPCIeFields == 0
	}
	m.time("nvmlDeviceGetFieldValues (PCIe counters)", "tick", pcieCounters, func(g *gpuProbe) nvml.Return {
		buf := make([]nvml.FieldValue, 0, len(g.pcieFields))
		for _, id := range g.pcieFields {
			buf = append(buf, nvml.FieldValue{FieldId: id})
		}
		return g.dev.GetFieldValues(buf)
	})
	link := func(g *gpuProbe) bool { return g.health.link && g.unsupported&callPCIeLink == 0 }
	m.time("nvmlDeviceGetCurrPcieLinkGeneration", "tick", link, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetCurrPcieLinkGeneration()
		return r
	})
	m.time("nvmlDeviceGetCurrPcieLinkWidth", "tick", link, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetCurrPcieLinkWidth()
		return r
	})
	m.healthCalls()
	ctx := context.Background()
	m.time("gputop: one GPU's whole Collect", "tick", nil, func(g *gpuProbe) nvml.Return {
		if _, err := g.Collect(ctx); err != nil {
			return nvml.ERROR_UNKNOWN
		}
		return nvml.SUCCESS
	})
}

// healthCalls times the health fields' GetFieldValues as the probe makes
// it: every field on the ticks the rare-event counts are due (Pace.Health),
// and only those read every tick (everyTick) on the others.
func (m *costMeter) healthCalls() {
	health := func(g *gpuProbe) bool { return len(g.health.list) > 0 && g.unsupported&callHealthFields == 0 }
	ask := func(g *gpuProbe, counters bool) []nvml.FieldValue {
		buf := make([]nvml.FieldValue, 0, len(g.health.list))
		for _, f := range g.health.list {
			if !counters || everyTick(f.kind, f.held) {
				buf = append(buf, nvml.FieldValue{FieldId: f.id, ScopeId: f.scope})
			}
		}
		return buf
	}
	fields, counters := 0, 0
	for _, g := range m.n.gpus {
		if health(g) {
			fields, counters = max(fields, len(ask(g, false))), max(counters, len(ask(g, true)))
		}
	}
	m.time(fmt.Sprintf("nvmlDeviceGetFieldValues (health, %d fields)", fields), "tick", health, func(g *gpuProbe) nvml.Return {
		return g.dev.GetFieldValues(ask(g, false))
	})
	if len(m.rows) > 0 && m.rows[len(m.rows)-1].Skipped == "" {
		m.rows[len(m.rows)-1].Fields, m.rows[len(m.rows)-1].CounterFields = fields, counters
	}
	some := func(g *gpuProbe) bool { return health(g) && len(ask(g, true)) > 0 }
	m.time(fmt.Sprintf("nvmlDeviceGetFieldValues (health counters, %d fields)", counters), "tick", some, func(g *gpuProbe) nvml.Return {
		return g.dev.GetFieldValues(ask(g, true))
	})
}

// gpmCalls times a GPM sample and the metrics between two samples taken
// gpmMinGap apart, with the metric list the probe asks for.
func (m *costMeter) gpmCalls() {
	lib := m.n.lib
	var gpus []*gpuProbe
	var pairs [][2]nvml.GpmSample
	for _, g := range m.n.gpus {
		if !g.info.GPM || g.lost.Load() || g.unsupported&callGPM != 0 {
			continue
		}
		a, r1 := lib.GpmSampleAlloc()
		b, r2 := lib.GpmSampleAlloc()
		if r1 != nvml.SUCCESS || r2 != nvml.SUCCESS {
			continue
		}
		gpus = append(gpus, g)
		pairs = append(pairs, [2]nvml.GpmSample{a, b})
	}
	defer func() {
		for _, p := range pairs {
			p[0].Free()
			p[1].Free()
		}
	}()
	if len(gpus) == 0 {
		m.skip("nvmlGpmSampleGet", "tick", "no GPU here has GPM")
		m.skip("nvmlGpmMetricsGet", "tick", "no GPU here has GPM")
		return
	}
	m.measure("nvmlGpmSampleGet", "tick", func(k int) nvml.Return {
		i := k % len(gpus)
		return gpus[i].dev.GpmSampleGet(pairs[i][0])
	})
	for i, g := range gpus {
		g.dev.GpmSampleGet(pairs[i][0])
	}
	m.opts.Sleep(gpmMinGap)
	for i, g := range gpus {
		g.dev.GpmSampleGet(pairs[i][1])
	}
	var req nvml.GpmMetricsGetType
	wanted := len(gpus[0].gpm.wanted)
	m.measure(fmt.Sprintf("nvmlGpmMetricsGet (%d metrics)", wanted), "tick", func(k int) nvml.Return {
		i := k % len(gpus)
		p := gpus[i].gpm
		req.Sample1, req.Sample2 = pairs[i][0], pairs[i][1]
		req.NumMetrics = uint32(len(p.wanted))
		for slot, w := range p.wanted {
			req.Metrics[slot] = nvml.GpmMetric{MetricId: uint32(gpmMetricList[w].id)}
		}
		return lib.GpmMetricsGet(&req)
	})
	m.migCalls()
}

// migCalls times what a MIG instance's probe asks, where there are any.
func (m *costMeter) migCalls() {
	if len(m.n.migs) == 0 {
		return
	}
	migs := m.n.migs
	m.measure("nvmlDeviceGetMemoryInfo (MIG instance)", "tick", func(k int) nvml.Return {
		_, r := readMemoryOf(migs[k%len(migs)].dev, m.n.syms.memoryV2)
		return r
	})
	var withGPM []*migProbe
	for _, mp := range migs {
		if mp.gpm != nil && !mp.gpmOff {
			withGPM = append(withGPM, mp)
		}
	}
	if len(withGPM) == 0 {
		m.skip("nvmlGpmMigSampleGet", "tick", "no MIG instance here has GPM")
		return
	}
	m.measure("nvmlGpmMigSampleGet", "tick", func(k int) nvml.Return {
		mp := withGPM[k%len(withGPM)]
		return mp.parent.dev.GpmMigSampleGet(mp.info.MIGGPUInstance, mp.gpm.prev)
	})
}

func (m *costMeter) procCalls(ctx context.Context) {
	m.time("nvmlDeviceGetComputeRunningProcesses", "procs", nil, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetComputeRunningProcesses()
		return r
	})
	m.time("nvmlDeviceGetGraphicsRunningProcesses", "procs", nil, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetGraphicsRunningProcesses()
		return r
	})
	m.time("nvmlDeviceGetProcessUtilization", "procs", func(g *gpuProbe) bool { return !g.info.MIG }, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetProcessUtilization(0)
		if r == nvml.ERROR_NOT_FOUND {
			return nvml.SUCCESS // no process ran a kernel in the buffer's time
		}
		return r
	})
	procs := m.n.ProcessProbe(nil)
	m.measure("gputop: the process tier's whole Collect (every GPU)", "procs", func(int) nvml.Return {
		if _, err := procs.Collect(ctx); err != nil {
			return nvml.ERROR_UNKNOWN
		}
		return nvml.SUCCESS
	})
}

// xidCalls times the event watcher's setup on a set of its own.
func (m *costMeter) xidCalls() {
	ext := m.n.lib.Extensions()
	for _, s := range eventSymbols {
		if ext.LookupSymbol(s) != nil {
			m.skip("nvmlEventSetCreate", "xid", "the driver lacks "+s)
			return
		}
	}
	m.time("nvmlDeviceGetSupportedEventTypes", "xid", nil, func(g *gpuProbe) nvml.Return {
		_, r := g.dev.GetSupportedEventTypes()
		return r
	})
	m.measure("nvmlEventSetCreate+RegisterEvents(Xid)+EventSetFree", "xid", func(k int) nvml.Return {
		set, r := m.n.lib.EventSetCreate()
		if r != nvml.SUCCESS {
			return r
		}
		g := m.n.gpus[k%len(m.n.gpus)]
		r = g.dev.RegisterEvents(nvml.EventTypeXidCriticalError, set)
		if fr := set.Free(); r == nvml.SUCCESS {
			r = fr
		}
		return r
	})
}
