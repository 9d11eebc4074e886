package nvidia

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Symbols newer than the R418 baseline that the probe uses. Each is looked
// up once, at open; a missing one is never called (a call would kill the
// process, see nvml.go).
const (
	symClockEvents   = "nvmlDeviceGetCurrentClocksEventReasons"    // R535
	symClockThrottle = "nvmlDeviceGetCurrentClocksThrottleReasons" // the older, deprecated name
	symMemoryV2      = "nvmlDeviceGetMemoryInfo_v2"                // R510
	symMigMode       = "nvmlDeviceGetMigMode"                      // R450
)

// gpmSymbols are the GPM functions (R520, Hopper): all or none are used.
var gpmSymbols = []string{
	"nvmlGpmQueryDeviceSupport",
	"nvmlGpmSampleAlloc",
	"nvmlGpmSampleGet",
	"nvmlGpmMetricsGet",
	"nvmlGpmSampleFree",
}

// symbols says which optional functions the installed driver has.
type symbols struct {
	clockEvents   bool
	clockThrottle bool
	memoryV2      bool
	migMode       bool
	gpm           bool
	migDevices    bool // MIG device handles and their instance ids
	gpmMig        bool // GPM per GPU instance
}

// Clock is the time the probe stamps GPM samples and Xid events with: the
// session's (probes.Clock), the wall clock or the demo's simulated one.
type Clock interface {
	Now() time.Time
}

// OpenNVML initialises NVML once and enumerates the GPUs. clock times the
// GPM sample pairs (the demo's simulated clock, or probes.RealClock).
//
// After a failed Init it returns an *InitError and the library is never
// touched again. If Init succeeds but no GPU can be used, it shuts NVML down
// and returns an error saying why. A GPU that fails to open (lost at start,
// say) is left out and explained in Checks while the others are monitored.
func OpenNVML(lib nvml.Interface, clock Clock) (*NVML, error) {
	return OpenNVMLPaced(lib, clock, DefaultPace)
}

// OpenNVMLPaced is OpenNVML with the costly calls made at pace
// (nvml_pace.go) rather than DefaultPace.
func OpenNVMLPaced(lib nvml.Interface, clock Clock, pace Pace) (*NVML, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, &InitError{Return: ret}
	}
	n := &NVML{lib: lib, clock: clock, pace: pace, noted: map[string]bool{}}
	if err := n.open(); err != nil {
		if ret := lib.Shutdown(); ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%w (and nvmlShutdown: %s)", err, returnText(ret))
		}
		return nil, err
	}
	return n, nil
}

func (n *NVML) open() error {
	n.lookupSymbols()
	n.readVersions()
	count, ret := n.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return errors.New("NVML: nvmlDeviceGetCount failed: " + returnText(ret))
	}
	n.note("NVML: driver %s, CUDA %s, %s", orUnknown(n.driver), orUnknown(n.cuda), units.Count(count, "GPU"))
	for i := 0; i < count; i++ {
		g, err := n.openGPU(i)
		if err != nil {
			n.note("gpu%d: not monitored: %v", i, err)
			continue
		}
		n.gpus = append(n.gpus, g)
	}
	if len(n.gpus) == 0 {
		return fmt.Errorf("NVML: driver %s: no usable GPU (%d found)", orUnknown(n.driver), count)
	}
	// MIG instances are numbered after every physical GPU, so that a GPU's
	// number is its NVML index whether or not another GPU has slices.
	n.openMIG(count)
	return nil
}

func (n *NVML) lookupSymbols() {
	ext := n.lib.Extensions()
	has := func(name string) bool {
		err := ext.LookupSymbol(name)
		if err != nil {
			n.note("symbol %s: missing", name)
			return false
		}
		n.note("symbol %s: found", name)
		return true
	}
	n.syms.clockEvents = has(symClockEvents)
	if !n.syms.clockEvents {
		n.syms.clockThrottle = has(symClockThrottle)
	}
	n.syms.memoryV2 = has(symMemoryV2)
	n.syms.migMode = has(symMigMode)
	if n.syms.migMode {
		n.syms.migDevices = true
		for _, s := range migSymbols {
			if !has(s) {
				n.syms.migDevices = false
			}
		}
	}
	n.syms.gpm = true
	for _, s := range gpmSymbols {
		// Ask for every one, so Checks names each missing symbol.
		if !has(s) {
			n.syms.gpm = false
		}
	}
	if n.syms.gpm && n.syms.migDevices {
		n.syms.gpmMig = has(symGPMMig)
	}
	if !n.syms.clockEvents && !n.syms.clockThrottle {
		n.note("clock-event (throttle) reasons: off, the driver has neither function")
	}
	if !n.syms.gpm {
		n.note("GPM (SM activity, tensor, DRAM bandwidth): off, the driver lacks GPM")
	}
}

func (n *NVML) readVersions() {
	if v, ret := n.lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		n.driver = v
	} else {
		n.note("driver version: %s", returnText(ret))
	}
	if v, ret := n.lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		// NVML encodes 12.4 as 12040.
		n.cuda = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	} else {
		n.note("CUDA version: %s", returnText(ret))
	}
}

// openGPU reads what stays the same about GPU i and sets up its probe. An
// error means the GPU cannot be monitored at all.
func (n *NVML) openGPU(i int) (*gpuProbe, error) {
	dev, ret := n.lib.DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		return nil, errors.New("DeviceGetHandleByIndex: " + returnText(ret))
	}
	g := &gpuProbe{
		n:      n,
		dev:    dev,
		device: timeline.GPUDevice(i),
		info:   timeline.GPUInfo{Index: i, MemTotal: math.NaN(), PowerLimit: math.NaN()},
	}
	var facts []string
	// identity records a failed identity call; it returns false if the GPU
	// is lost, which ends the opening.
	identity := func(what string, ret nvml.Return) bool {
		switch classify(ret) {
		case outcomeOK:
		case outcomeLost:
			return false
		default:
			facts = append(facts, what+": "+returnText(ret))
		}
		return true
	}
	name, ret := dev.GetName()
	if !identity("name", ret) {
		return nil, ErrGPULost
	}
	g.info.Name = name
	uuid, ret := dev.GetUUID()
	if !identity("UUID", ret) {
		return nil, ErrGPULost
	}
	g.info.UUID = uuid
	pci, ret := dev.GetPciInfo()
	if !identity("PCI bus id", ret) {
		return nil, ErrGPULost
	}
	if ret == nvml.SUCCESS {
		g.info.PCIBusID = pciBusID(pci)
	}

	mem, ret := g.readMemory()
	if !identity("memory", ret) {
		return nil, ErrGPULost
	}
	g.info.MemTotal = mem.total
	if classify(ret) == outcomeUnsupported {
		g.giveUp(callMemory, ret)
	}
	limit, ret := dev.GetEnforcedPowerLimit()
	if !identity("power limit", ret) {
		return nil, ErrGPULost
	}
	if ret == nvml.SUCCESS {
		g.info.PowerLimit = float64(limit) / 1000
	}
	if classify(ret) == outcomeUnsupported {
		g.giveUp(callPowerLimit, ret)
	}

	if n.syms.migMode {
		current, _, ret := dev.GetMigMode()
		if !identity("MIG mode", ret) {
			return nil, ErrGPULost
		}
		g.info.MIG = ret == nvml.SUCCESS && current == nvml.DEVICE_MIG_ENABLE
	}
	if g.info.MIG {
		facts = append(facts, "MIG on: utilisation and per-process SM % not supported")
	} else {
		facts = append(facts, "MIG off")
	}

	linkFact, err := g.openHealth()
	if err != nil {
		return nil, err
	}
	facts = append(facts, linkFact)
	nvlinkFact, err := g.openNVLink()
	if err != nil {
		return nil, err
	}
	facts = append(facts, nvlinkFact)

	gpmFact, err := g.openGPM()
	if err != nil {
		return nil, err
	}
	facts = append(facts, gpmFact)
	if n.syms.memoryV2 {
		facts = append(facts, "memory used from GetMemoryInfo_v2 (excludes reserved)")
	} else {
		facts = append(facts, "memory used from GetMemoryInfo (includes reserved)")
	}
	if !g.pcieFromGPM {
		g.pcieFields = []uint32{nvml.FI_DEV_PCIE_COUNT_TX_BYTES, nvml.FI_DEV_PCIE_COUNT_RX_BYTES}
	}
	n.note("%s %s %s: %s", g.device, name, uuid, strings.Join(facts, ", "))
	return g, nil
}

// openGPM asks whether the device has GPM and, if so, allocates its pair of
// samples. It returns the line for Checks.
func (g *gpuProbe) openGPM() (string, error) {
	if !g.n.syms.gpm {
		return "GPM off (driver)", nil
	}
	support, ret := g.dev.GpmQueryDeviceSupport()
	switch classify(ret) {
	case outcomeLost:
		return "", ErrGPULost
	case outcomeOK:
	default:
		return "GPM off (query: " + returnText(ret) + ")", nil
	}
	if support.IsSupportedDevice == 0 {
		return "GPM not supported by the device", nil
	}
	pair, err := newGPMPair(g.n.lib)
	if err != nil {
		return "GPM off (" + err.Error() + ")", nil
	}
	g.gpm = pair
	g.pcieFromGPM = true
	g.info.GPM = true
	if g.info.MIG {
		return "GPM on (on the parent GPU in MIG mode: may be refused)", nil
	}
	return "GPM on", nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
