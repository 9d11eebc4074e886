package nvidia

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// MIG: a MIG-enabled GPU is split into GPU instances, each holding one or
// more compute instances. Each compute instance becomes a GPU of the session
// of its own (a timeline.GPUInfo with MIGProfile set, Index after the
// physical GPUs, device "gpuN"), so hints, the report and the exporter treat
// a slice as a GPU. NVML gives a MIG device handle little: its memory, and
// GPM through the parent's GpmMigSampleGet (per GPU instance). Utilisation,
// power, clocks and temperature are the parent's, and are not read here.

// migSymbols are the MIG device functions (R450): all or none are used.
var migSymbols = []string{
	"nvmlDeviceGetMaxMigDeviceCount",
	"nvmlDeviceGetMigDeviceHandleByIndex",
	"nvmlDeviceGetGpuInstanceId",
	"nvmlDeviceGetComputeInstanceId",
}

// symGPMMig is GPM per GPU instance (R525).
const symGPMMig = "nvmlGpmMigSampleGet"

// migMetricList are the GPM metrics asked of a MIG instance: not PCIe,
// which is the physical GPU's.
var migMetricList = func() []int {
	var out []int
	for i, m := range gpmMetricList {
		if !m.pcie {
			out = append(out, i)
		}
	}
	return out
}()

// migProbe reads one MIG compute instance every tick.
type migProbe struct {
	n      *NVML
	parent *gpuProbe
	dev    nvml.Device // the MIG device handle
	device string      // "gpu9"
	info   timeline.GPUInfo

	// Touched only by Collect (never run twice at once) and Close.
	noMemory bool
	gpm      *gpmPair // nil when GPM per instance is off
	gpmOff   bool     // given up while running; gpm stays for Close to free
}

// Name is "nvml".
func (m *migProbe) Name() string { return "nvml" }

// Device is "gpu<index>".
func (m *migProbe) Device() string { return m.device }

// openMIG enumerates the MIG devices of every MIG-enabled GPU, numbering
// them from next on. A failure on one slot is noted and the slot skipped.
func (n *NVML) openMIG(next int) {
	if !n.syms.migDevices {
		return
	}
	for _, g := range n.gpus {
		if !g.info.MIG {
			continue
		}
		count, ret := g.dev.GetMaxMigDeviceCount()
		if ret != nvml.SUCCESS {
			n.note("%s: MIG instances not listed: GetMaxMigDeviceCount: %s", g.device, returnText(ret))
			continue
		}
		for k := range count {
			m, err := n.openMIGDevice(g, k, next)
			if err != nil {
				if errors.Is(err, ErrGPULost) {
					g.markLost("MIG enumeration")
					break
				}
				n.note("%s: MIG slot %d: %v", g.device, k, err)
				continue
			}
			if m == nil {
				continue // an empty slot
			}
			n.migs = append(n.migs, m)
			next++
		}
	}
}

// openMIGDevice opens MIG slot k of g as GPU index; nil, nil for an empty
// slot.
func (n *NVML) openMIGDevice(g *gpuProbe, k, index int) (*migProbe, error) {
	dev, ret := g.dev.GetMigDeviceHandleByIndex(k)
	switch classify(ret) {
	case outcomeOK:
	case outcomeLost:
		return nil, ErrGPULost
	default:
		if ret == nvml.ERROR_NOT_FOUND || ret == nvml.ERROR_INVALID_ARGUMENT {
			return nil, nil // no instance in this slot
		}
		return nil, errors.New("GetMigDeviceHandleByIndex: " + returnText(ret))
	}
	gi, ret := dev.GetGpuInstanceId()
	if ret != nvml.SUCCESS {
		return nil, migOpenError("GetGpuInstanceId", ret)
	}
	ci, ret := dev.GetComputeInstanceId()
	if ret != nvml.SUCCESS {
		return nil, migOpenError("GetComputeInstanceId", ret)
	}
	m := &migProbe{
		n: n, parent: g, dev: dev, device: timeline.GPUDevice(index),
		info: timeline.GPUInfo{Index: index, MIG: true, MemTotal: math.NaN(), PowerLimit: math.NaN(),
			PCIBusID: g.info.PCIBusID, MIGParent: g.info.Index, MIGGPUInstance: gi, MIGComputeInstance: ci},
	}
	if name, ret := dev.GetName(); ret == nvml.SUCCESS {
		m.info.Name = name
	} else if classify(ret) == outcomeLost {
		return nil, ErrGPULost
	}
	if uuid, ret := dev.GetUUID(); ret == nvml.SUCCESS {
		m.info.UUID = uuid
	} else if classify(ret) == outcomeLost {
		return nil, ErrGPULost
	}
	m.info.MIGProfile = migProfile(m.info.Name, gi, ci)
	mem, ret := readMemoryOf(dev, n.syms.memoryV2)
	switch classify(ret) {
	case outcomeOK:
		m.info.MemTotal = mem.total
	case outcomeLost:
		return nil, ErrGPULost
	case outcomeUnsupported:
		m.noMemory = true
	}
	gpmFact := m.openGPM()
	n.note("%s: MIG %s of %s (GPU instance %d, compute instance %d) %s: %s", m.device, m.info.MIGProfile,
		g.device, gi, ci, m.info.UUID, gpmFact)
	return m, nil
}

func migOpenError(what string, ret nvml.Return) error {
	if classify(ret) == outcomeLost {
		return ErrGPULost
	}
	return errors.New(what + ": " + returnText(ret))
}

// migProfile is the instance's profile from its device name, which NVML
// gives as "<GPU name> MIG 3g.40gb"; from its ids if the name lacks it.
// It becomes a label on the screen: printable ASCII without spaces, at most
// migProfileMax characters (the longest real one, "1c.7g.80gb+me", is 13).
func migProfile(name string, gi, ci int) string {
	if i := strings.LastIndex(name, "MIG "); i >= 0 {
		p := strings.TrimSpace(name[i+len("MIG "):])
		ok := p != "" && len(p) <= migProfileMax
		for _, c := range []byte(p) {
			ok = ok && c > ' ' && c <= '~'
		}
		if ok {
			return p
		}
	}
	return fmt.Sprintf("gi%d.ci%d", gi, ci)
}

const migProfileMax = 16

// openGPM sets up GPM for the instance when the parent has GPM and the
// driver can sample per GPU instance. It returns the line for Checks.
func (m *migProbe) openGPM() string {
	if !m.parent.info.GPM || !m.n.syms.gpmMig {
		return "GPM off"
	}
	pair, err := newGPMPair(m.n.lib)
	if err != nil {
		return "GPM off (" + err.Error() + ")"
	}
	pair.wanted = append([]int(nil), migMetricList...)
	m.gpm = pair
	m.info.GPM = true
	return "GPM per GPU instance on"
}

// Collect reads the instance's memory and GPM metrics. The instance is lost
// with its parent.
func (m *migProbe) Collect(ctx context.Context) (probe.Reading, error) {
	m.n.life.RLock()
	defer m.n.life.RUnlock()
	if m.n.closed.Load() {
		return probe.Reading{}, errNVMLClosed
	}
	if m.parent.lost.Load() {
		return probe.Reading{Lost: true}, ErrGPULost
	}
	if err := ctx.Err(); err != nil {
		return probe.Reading{}, err
	}
	t := migTick{m: m}
	t.memory()
	t.gpmMetrics()
	if t.lostIn != "" {
		m.parent.markLost(m.device + " " + t.lostIn)
		return probe.Reading{Lost: true}, ErrGPULost
	}
	if len(t.failures) > 0 {
		return probe.Reading{Metrics: t.metrics}, errors.New(strings.Join(t.failures, "; "))
	}
	return probe.Reading{Metrics: t.metrics}, nil
}

type migTick struct {
	m        *migProbe
	metrics  []timeline.Metric
	failures []string
	lostIn   string
}

func (t *migTick) gauge(name string, v float64) {
	t.metrics = append(t.metrics, timeline.Metric{Key: timeline.Key{Name: name, Device: t.m.device}, Kind: timeline.Gauge, Value: v})
}

// check sorts a return: true for a usable value.
func (t *migTick) check(what string, ret nvml.Return) bool {
	switch classify(ret) {
	case outcomeOK:
		return true
	case outcomeLost:
		t.lostIn = what
	case outcomeFailed:
		t.failures = append(t.failures, what+": "+returnText(ret))
	}
	return false
}

func (t *migTick) memory() {
	mem := memoryInfo{math.NaN(), math.NaN(), math.NaN()}
	if !t.m.noMemory {
		v, ret := readMemoryOf(t.m.dev, t.m.n.syms.memoryV2)
		if classify(ret) == outcomeUnsupported {
			t.m.noMemory = true
			t.m.n.note("%s: memory: %s, no longer asked", t.m.device, returnText(ret))
		} else if t.check("memory", ret) {
			mem = v
		}
	}
	t.gauge(timeline.GPUMemUsed, mem.used)
	t.gauge(timeline.GPUMemTotal, mem.total)
	t.gauge(timeline.GPUMemFree, mem.free)
}

// gpmMetrics samples the GPU instance through the parent's handle and asks
// for the metrics between this sample and the last: NaN on the first tick
// and on a tick too close to the last pair; absent once GPM is given up.
func (t *migTick) gpmMetrics() {
	m, p := t.m, t.m.gpm
	if p == nil || m.gpmOff {
		return
	}
	values := map[int]float64{}
	for _, i := range p.wanted {
		values[i] = math.NaN()
	}
	now := m.n.clock.Now()
	if !p.havePrev || now.Sub(p.prevAt) >= gpmMinGap {
		t.samplePair(values, now)
	}
	if m.gpmOff {
		return // given up this tick
	}
	for _, i := range p.wanted {
		t.gauge(gpmMetricList[i].name, values[i])
	}
}

func (t *migTick) samplePair(values map[int]float64, now time.Time) {
	m, p := t.m, t.m.gpm
	ret := m.parent.dev.GpmMigSampleGet(m.info.MIGGPUInstance, p.cur)
	if classify(ret) == outcomeUnsupported {
		t.giveUpGPM("GPM MIG sample", ret)
		return
	}
	if !t.check("GPM MIG sample", ret) {
		return
	}
	if p.havePrev {
		req := &p.request
		req.Sample1, req.Sample2 = p.prev, p.cur
		req.NumMetrics = uint32(len(p.wanted))
		for slot, i := range p.wanted {
			req.Metrics[slot] = nvml.GpmMetric{MetricId: uint32(gpmMetricList[i].id)}
		}
		ret := m.n.lib.GpmMetricsGet(req)
		switch {
		case classify(ret) == outcomeUnsupported:
			t.giveUpGPM("GPM metrics", ret)
			return
		case t.check("GPM metrics", ret):
			var keep []int
			for slot, i := range p.wanted {
				gm, got := gpmMetricList[i], req.Metrics[slot]
				r := nvml.Return(got.NvmlReturn)
				if classify(r) == outcomeUnsupported {
					m.n.note("%s: %s: %s, no longer asked", m.device, gm.label, returnText(r))
					continue
				}
				if t.check(gm.label, r) {
					values[i] = gpmValue(gm, got.Value)
				}
				keep = append(keep, i)
			}
			p.wanted = keep
		}
	}
	p.prev, p.cur = p.cur, p.prev
	p.prevAt, p.havePrev = now, true
}

// giveUpGPM stops asking for GPM on this instance: its metrics are absent
// from now on. The samples stay allocated until Close frees them.
func (t *migTick) giveUpGPM(what string, ret nvml.Return) {
	t.m.n.note("%s: %s: %s, GPM no longer asked", t.m.device, what, returnText(ret))
	t.m.gpmOff = true
}

// readMemoryOf reads a device's memory, from GetMemoryInfo_v2 if v2.
func readMemoryOf(dev nvml.Device, v2 bool) (memoryInfo, nvml.Return) {
	nan := memoryInfo{math.NaN(), math.NaN(), math.NaN()}
	if v2 {
		m, ret := dev.GetMemoryInfo_v2()
		if ret != nvml.SUCCESS {
			return nan, ret
		}
		return memoryInfo{float64(m.Used), float64(m.Free), float64(m.Total)}, ret
	}
	m, ret := dev.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return nan, ret
	}
	return memoryInfo{float64(m.Used), float64(m.Free), float64(m.Total)}, ret
}
