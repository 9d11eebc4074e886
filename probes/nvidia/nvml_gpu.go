package nvidia

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// call names one NVML device function, so that a device can remember the
// ones it does not support and never ask for them again.
type call uint16

const (
	callUtilization call = 1 << iota
	callSamples
	callGPM
	callMemory
	callPower
	callEnergy
	callPowerLimit
	callTemperature
	callClockSM
	callClockMem
	callThrottle
	callPCIeFields
	callPCIeLink
	callHealthFields
)

var callNames = map[call]string{
	callUtilization:  "utilization",
	callSamples:      "utilization samples",
	callGPM:          "GPM",
	callMemory:       "memory",
	callPower:        "power",
	callEnergy:       "energy",
	callPowerLimit:   "power limit",
	callTemperature:  "temperature",
	callClockSM:      "SM clock",
	callClockMem:     "memory clock",
	callThrottle:     "throttle reasons",
	callPCIeFields:   "PCIe counters",
	callPCIeLink:     "PCIe link",
	callHealthFields: "health counters",
}

// gpuProbe reads one GPU every tick.
type gpuProbe struct {
	n      *NVML
	dev    nvml.Device
	device string // "gpu3"
	info   timeline.GPUInfo
	lost   atomic.Bool // also set by the process probe

	// The fields below are touched only by Collect, which the sampler never
	// runs twice at once, and by Close, which excludes every Collect.
	unsupported call
	lastSample  uint64 // newest GetSamples timestamp seen, µs
	// When each paced call was last made (nvml_pace.go).
	samplesAt, energyAt, healthAt, countersAt time.Time
	pairNext                                  bool // the next tick reads the counters too
	// The energy check: power integrated since the counter's last reading
	// (energyRead, energyJ), and the tick it was last added at.
	powerAt, energyRead time.Time
	powerJ, energyJ     float64
	energyNoted         bool
	gpm                 *gpmPair
	pcieFromGPM         bool
	pcieFields          []uint32 // PCIe counter field ids still asked for
	fieldBuf            []nvml.FieldValue
	health              healthState  // links, ECC, violations (nvml_health.go)
	xid                 atomic.Int64 // the last Xid the event watcher saw; 0 for none
	// healthNow has the next tick read the health fields whatever their
	// pace: set by the event watcher on an Xid.
	healthNow atomic.Bool
	// xidWatched says the event watcher listens for this GPU's Xids, so
	// that its gpu.xid is known (0 until one comes).
	xidWatched atomic.Bool
}

// Name is "nvml".
func (g *gpuProbe) Name() string { return "nvml" }

// Device is "gpu<index>".
func (g *gpuProbe) Device() string { return g.device }

// Collect reads the GPU once. Metrics the device never has are absent;
// metrics it has but could not read this time are NaN. Failed calls other
// than "not supported" come back as one error naming each.
func (g *gpuProbe) Collect(ctx context.Context) (probe.Reading, error) {
	g.n.life.RLock()
	defer g.n.life.RUnlock()
	if g.n.closed.Load() {
		return probe.Reading{}, errNVMLClosed
	}
	if g.lost.Load() {
		return probe.Reading{Lost: true}, ErrGPULost
	}
	if err := ctx.Err(); err != nil {
		return probe.Reading{}, err
	}
	now := g.n.clock.Now()
	t := tick{g: g, now: now, slow: g.healthDue(now), metrics: make([]timeline.Metric, 0, 24)}
	t.utilization()
	t.gpmMetrics()
	t.memory()
	t.power()
	t.temperatureAndClocks()
	t.throttle()
	t.pcieCounters()
	t.pcieLink()
	t.healthFields()
	if t.lostIn != "" {
		g.markLost(t.lostIn)
		return probe.Reading{Lost: true}, ErrGPULost
	}
	if len(t.failures) > 0 {
		return probe.Reading{Metrics: t.metrics}, errors.New(strings.Join(t.failures, "; "))
	}
	return probe.Reading{Metrics: t.metrics}, nil
}

// markLost records that the GPU is gone, for this probe and the process tier.
func (g *gpuProbe) markLost(where string) {
	if !g.lost.Swap(true) {
		g.n.note("%s: GPU is lost (in %s): no longer asked", g.device, where)
	}
}

// giveUp stops asking for c on this device.
func (g *gpuProbe) giveUp(c call, ret nvml.Return) {
	g.unsupported |= c
	g.n.note("%s: %s: %s, no longer asked", g.device, callNames[c], returnText(ret))
}

// tick is one Collect in progress.
type tick struct {
	g        *gpuProbe
	now      time.Time
	slow     bool // the event-counting health fields are read (Pace.Health)
	metrics  []timeline.Metric
	failures []string
	lostIn   string // the call that found the GPU lost; "" while it is not
}

// ask says whether call c is to be made: not known unsupported, GPU not lost.
func (t *tick) ask(c call) bool { return t.lostIn == "" && t.g.unsupported&c == 0 }

// check sorts the return of the call named what, recording a loss or a
// failure.
func (t *tick) check(what string, ret nvml.Return) outcome {
	o := classify(ret)
	switch o {
	case outcomeLost:
		t.lostIn = what
	case outcomeFailed:
		t.failures = append(t.failures, what+": "+returnText(ret))
	}
	return o
}

// ok says whether call c's value can be used, and gives up on c for good if
// the device does not support it.
func (t *tick) ok(c call, ret nvml.Return) bool {
	switch t.check(callNames[c], ret) {
	case outcomeOK:
		return true
	case outcomeUnsupported:
		t.g.giveUp(c, ret)
	}
	return false
}

func (t *tick) gauge(name string, v float64) {
	t.metrics = append(t.metrics, timeline.Metric{Key: timeline.Key{Name: name, Device: t.g.device}, Kind: timeline.Gauge, Value: v})
}

func (t *tick) counter(name string, v float64) {
	t.metrics = append(t.metrics, timeline.Metric{Key: timeline.Key{Name: name, Device: t.g.device}, Kind: timeline.Counter, Value: v})
}

// utilization writes the coarse utilisation and the memory controller's
// busy share from GetUtilizationRates, and the range of NVML's sub-second
// samples since they were last read, when they are read (Pace.Samples;
// NaN between). At Pace.Samples zero, or where GetUtilizationRates gives
// nothing, the tick's own samples give the mean too; with no sample, the
// rate is the range.
func (t *tick) utilization() {
	nan := math.NaN()
	rate, mem := nan, nan
	mean, lo, hi := nan, nan, nan
	// On a MIG-enabled GPU neither is supported: not asked.
	if !t.g.info.MIG {
		if t.ask(callUtilization) {
			u, ret := t.g.dev.GetUtilizationRates()
			if t.ok(callUtilization, ret) {
				rate, mem = percent(float64(u.Gpu)), percent(float64(u.Memory))
			}
		}
		paced := t.g.n.pace.Samples > 0 && !math.IsNaN(rate)
		mean = rate
		if !paced {
			lo, hi = rate, rate
		}
		if t.ask(callSamples) && (!paced || due(t.g.samplesAt, t.now, t.g.n.pace.Samples)) {
			t.g.samplesAt = t.now
			vt, samples, ret := t.g.dev.GetSamples(nvml.GPU_UTILIZATION_SAMPLES, t.g.lastSample)
			// ERROR_NOT_FOUND means no samples yet: keep the fallback.
			if ret != nvml.ERROR_NOT_FOUND && t.ok(callSamples, ret) {
				s := summarizeSamples(vt, samples, t.g.lastSample)
				t.g.noteWrapped(s)
				t.g.lastSample = max(t.g.lastSample, s.newest)
				if s.count > 0 {
					lo, hi = s.min, s.max
					if !paced {
						mean = s.mean
					}
				}
			}
		}
	}
	t.gauge(timeline.GPUUtil, mean)
	t.gauge(timeline.GPUUtilMin, lo)
	t.gauge(timeline.GPUUtilMax, hi)
	t.gauge(timeline.GPUMemUtil, mem)
}

func (t *tick) memory() {
	mem := memoryInfo{math.NaN(), math.NaN(), math.NaN()}
	if t.ask(callMemory) {
		m, ret := t.g.readMemory()
		if t.ok(callMemory, ret) {
			mem = m
		}
	}
	t.gauge(timeline.GPUMemUsed, mem.used)
	t.gauge(timeline.GPUMemTotal, mem.total)
	t.gauge(timeline.GPUMemFree, mem.free)
}

// memoryInfo is one memory reading, in bytes.
type memoryInfo struct{ used, free, total float64 }

// readMemory reads the memory, from GetMemoryInfo_v2 where the driver has
// it. Free is NVML's Free, what an allocation can still get, in both
// versions: v2 reports the driver's reserve apart (used + free + reserved =
// total) where v1 counts it in Used (used + free = total), so only Used
// differs between them. Free is read, never worked out as total - used,
// which under v2 would count the reserve as free.
func (g *gpuProbe) readMemory() (memoryInfo, nvml.Return) {
	nan := memoryInfo{math.NaN(), math.NaN(), math.NaN()}
	if g.n.syms.memoryV2 {
		m, ret := g.dev.GetMemoryInfo_v2()
		if ret != nvml.SUCCESS {
			return nan, ret
		}
		return memoryInfo{float64(m.Used), float64(m.Free), float64(m.Total)}, ret
	}
	m, ret := g.dev.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return nan, ret
	}
	return memoryInfo{float64(m.Used), float64(m.Free), float64(m.Total)}, ret
}

// power writes the power gauge (W, from mW), the energy counter (J, from
// mJ; NaN on the ticks between its reads, every Pace.Energy) and the
// enforced limit. The counter checks the power integrated between its
// reads (checkEnergy): on a real H100 one read costs 3.5-4.4 ms of CPU,
// more than the rest of a tick together, and its rate over a tick is off
// by its 100 ms steps (docs/real-gpu.md), while GetPowerUsage is already a
// one-second average that costs 0.4 µs.
func (t *tick) power() {
	watts := t.uint32Value(callPower, t.g.dev.GetPowerUsage, 1000)
	t.gauge(timeline.GPUPower, watts)
	t.g.integrate(t.now, watts)
	energy := math.NaN()
	if t.ask(callEnergy) && due(t.g.energyAt, t.now, t.g.n.pace.Energy) {
		t.g.energyAt = t.now
		mJ, ret := t.g.dev.GetTotalEnergyConsumption()
		if t.ok(callEnergy, ret) {
			energy = float64(mJ) / 1000
			t.g.checkEnergy(t.now, energy)
		}
	}
	t.counter(timeline.GPUEnergy, energy)
	// The limit costs 0.4 µs and decides power-capped: read every tick.
	t.gauge(timeline.GPUPowerLimit, t.uint32Value(callPowerLimit, t.g.dev.GetEnforcedPowerLimit, 1000))
}

func (t *tick) temperatureAndClocks() {
	dev := t.g.dev
	t.gauge(timeline.GPUTemp, t.uint32Value(callTemperature, func() (uint32, nvml.Return) {
		return dev.GetTemperature(nvml.TEMPERATURE_GPU)
	}, 1))
	t.gauge(timeline.GPUClockSM, t.uint32Value(callClockSM, func() (uint32, nvml.Return) {
		return dev.GetClockInfo(nvml.CLOCK_SM)
	}, 1))
	t.gauge(timeline.GPUClockMem, t.uint32Value(callClockMem, func() (uint32, nvml.Return) {
		return dev.GetClockInfo(nvml.CLOCK_MEM)
	}, 1))
}

// uint32Value makes call c through read, if it is to be made, and scales its
// value down by per (1000 for mW to W); NaN if it was not made or failed.
func (t *tick) uint32Value(c call, read func() (uint32, nvml.Return), per float64) float64 {
	if !t.ask(c) {
		return math.NaN()
	}
	v, ret := read()
	if !t.ok(c, ret) {
		return math.NaN()
	}
	// Divide rather than multiply by 1e-3: 612345 / 1000 is the double
	// nearest 612.345, which a recording stores in a few bits.
	return float64(v) / per
}

// throttle writes the clock-event reasons active now, as timeline's bits.
// Absent when the driver has neither function.
func (t *tick) throttle() {
	var read func() (uint64, nvml.Return)
	switch {
	case t.g.n.syms.clockEvents:
		read = t.g.dev.GetCurrentClocksEventReasons
	case t.g.n.syms.clockThrottle:
		read = t.g.dev.GetCurrentClocksThrottleReasons
	default:
		return
	}
	v := math.NaN()
	if t.ask(callThrottle) {
		reasons, ret := read()
		if t.ok(callThrottle, ret) {
			v = float64(throttleBits(reasons))
		}
	}
	t.gauge(timeline.GPUThrottle, v)
}

// nvmlThrottle maps NVML's clock-event reasons to timeline's Throttle bits.
// GpuIdle and the application/user clock settings are left out: they hold
// nothing back.
var nvmlThrottle = []struct{ nvml, timeline uint64 }{
	{nvml.ClocksEventReasonSwPowerCap, timeline.ThrottlePowerCap},
	{nvml.ClocksThrottleReasonHwSlowdown, timeline.ThrottleHWSlowdown},
	{nvml.ClocksEventReasonSyncBoost, timeline.ThrottleSyncBoost},
	{nvml.ClocksEventReasonSwThermalSlowdown, timeline.ThrottleSWThermal},
	{nvml.ClocksThrottleReasonHwThermalSlowdown, timeline.ThrottleHWThermal},
	{nvml.ClocksThrottleReasonHwPowerBrakeSlowdown, timeline.ThrottleHWPowerBrake},
	{nvml.ClocksEventReasonBoardLimit, timeline.ThrottleBoardLimit},
	{nvml.ClocksEventReasonReliability, timeline.ThrottleReliability},
	{nvml.ClocksEventReasonDisplayClockSetting, timeline.ThrottleDisplayClocks},
}

func throttleBits(reasons uint64) uint64 {
	var bits uint64
	for _, m := range nvmlThrottle {
		if reasons&m.nvml != 0 {
			bits |= m.timeline
		}
	}
	return bits
}

// pcieCounters writes the PCIe byte counters (Derive makes them bytes/s)
// when PCIe does not come from GPM. Each field has its own return; one the
// device does not support is not asked again, and GetFieldValues is never
// called with no field (go-nvml indexes the slice's first element).
func (t *tick) pcieCounters() {
	if t.g.pcieFromGPM {
		return
	}
	tx, rx := math.NaN(), math.NaN()
	if len(t.g.pcieFields) > 0 && t.ask(callPCIeFields) {
		buf := t.g.fieldBuf[:0]
		for _, id := range t.g.pcieFields {
			buf = append(buf, nvml.FieldValue{FieldId: id})
		}
		t.g.fieldBuf = buf
		if t.ok(callPCIeFields, t.g.dev.GetFieldValues(buf)) {
			var keep []uint32
			for _, f := range buf {
				what := "PCIe rx counter"
				if f.FieldId == nvml.FI_DEV_PCIE_COUNT_TX_BYTES {
					what = "PCIe tx counter"
				}
				ret := nvml.Return(f.NvmlReturn)
				switch t.check(what, ret) {
				case outcomeUnsupported:
					t.g.n.note("%s: %s: %s, no longer asked", t.g.device, what, returnText(ret))
					continue
				case outcomeOK:
					v, ok := decodeValue(nvml.ValueType(f.ValueType), f.Value)
					if ok && v >= 0 {
						if f.FieldId == nvml.FI_DEV_PCIE_COUNT_TX_BYTES {
							tx = v
						} else {
							rx = v
						}
					}
				}
				keep = append(keep, f.FieldId)
			}
			t.g.pcieFields = keep
		}
	}
	t.counter(timeline.GPUPCIeTxBytes, tx)
	t.counter(timeline.GPUPCIeRxBytes, rx)
}

// percent is v if it is a percentage, else NaN: a value out of 0..100 is a
// driver's mistake, not a reading.
func percent(v float64) float64 {
	if v >= 0 && v <= 100 {
		return v
	}
	return math.NaN()
}
