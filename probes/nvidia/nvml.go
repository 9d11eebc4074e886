package nvidia

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// NVML is the GPU source: NVML initialised once, its GPUs enumerated, one
// Probe per GPU and a slower process tier. It works on an nvml.Interface:
// nvml.New() in production, go-nvml's mock server (dgxh100.New()) in tests
// and in the demo (probes/demo).
//
// # Two calls kill the process, and recover() cannot catch either
//
//   - Any call after a failed Init (symbol lookup error, exit 127). OpenNVML
//     returns at once when Init fails and the library is never touched
//     again: no Shutdown, no ErrorString (error texts come from returnText).
//   - A function the installed driver lacks. The baseline is the R418 driver
//     API; every function newer than that is looked up once with
//     Extensions().LookupSymbol at open, and a missing one is never called.
//
// # The exact calls, for the demo's mock in probes/demo (every one needs its ...Func set)
//
// At open, in order:
//   - Init
//   - Extensions().LookupSymbol for "nvmlDeviceGetCurrentClocksEventReasons",
//     "nvmlDeviceGetCurrentClocksThrottleReasons" (only if the first is
//     missing), "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMigMode",
//     "nvmlGpmQueryDeviceSupport", "nvmlGpmSampleAlloc", "nvmlGpmSampleGet",
//     "nvmlGpmMetricsGet", "nvmlGpmSampleFree"
//   - SystemGetDriverVersion, SystemGetCudaDriverVersion, DeviceGetCount
//   - per device: DeviceGetHandleByIndex, then on the device GetName, GetUUID,
//     GetPciInfo, GetMemoryInfo_v2 (symbol found) or GetMemoryInfo (not found),
//     GetEnforcedPowerLimit, GetMigMode (symbol found), GetMaxPcieLinkGeneration
//     and GetMaxPcieLinkWidth, GetNvLinkState for each link id NVML can name
//     (nvml_nvlink.go), GpmQueryDeviceSupport (GPM symbols found), and
//     if it says supported, lib.GpmSampleAlloc twice.
//   - if GetMigMode found and the MIG device symbols ("nvmlDeviceGetMaxMigDeviceCount",
//     "nvmlDeviceGetMigDeviceHandleByIndex", "nvmlDeviceGetGpuInstanceId",
//     "nvmlDeviceGetComputeInstanceId", and "nvmlGpmMigSampleGet" for GPM)
//     are there: per MIG-enabled GPU, GetMaxMigDeviceCount, then per slot
//     GetMigDeviceHandleByIndex (NOT_FOUND: an empty slot) and on the MIG
//     handle GetGpuInstanceId, GetComputeInstanceId, GetName, GetUUID,
//     GetMemoryInfo_v2 or GetMemoryInfo; lib.GpmSampleAlloc twice if the
//     parent has GPM and the driver has GpmMigSampleGet.
//   - Shutdown, only if open fails after a successful Init (DeviceGetCount
//     failed, or no GPU could be opened).
//
// Per GPU probe, each Collect (a call that answered ERROR_NOT_SUPPORTED is
// not made again on that device; nothing is called on a lost GPU). The
// costly calls go at the pace of Pace (nvml_pace.go; docs/nvml.md says
// why each): "paced" below. At EveryTick (the demo's), every call is made
// every tick.
//   - GetUtilizationRates; GetSamples(GPU_UTILIZATION_SAMPLES, lastSeen)
//     paced (Samples, 10 s): both skipped while MIG mode is on
//   - GPM devices: dev.GpmSampleGet(sample), then lib.GpmMetricsGet once a
//     pair of samples at least 100 ms apart exists
//   - GetMemoryInfo_v2 or GetMemoryInfo (as at open)
//   - GetPowerUsage, GetTotalEnergyConsumption paced (Energy, 2 min),
//     GetEnforcedPowerLimit
//   - GetTemperature(TEMPERATURE_GPU), GetClockInfo(CLOCK_SM),
//     GetClockInfo(CLOCK_MEM)
//   - GetCurrentClocksEventReasons, or GetCurrentClocksThrottleReasons on
//     older drivers, or neither if both symbols are missing
//   - GetFieldValues(FI_DEV_PCIE_COUNT_TX_BYTES, FI_DEV_PCIE_COUNT_RX_BYTES),
//     only while PCIe does not come from GPM
//   - GetMaxPcieLinkGeneration and GetMaxPcieLinkWidth paced (Health,
//     30 s), GetCurrPcieLinkGeneration, GetCurrPcieLinkWidth (if the
//     maximum was read at open)
//   - GetFieldValues of the health fields (nvml_health.go: PCIe replays, ECC,
//     retired pages, remapped rows, NVLink data and errors, violation
//     counters; and per NVLink link its state, errors and data,
//     nvml_nvlink.go), each dropped for good once it answers not supported:
//     the violation counters and NVLink's per-link fields and data every
//     tick (in pairs below 1 s: Counters), the rest with them paced
//     (Health, 30 s, and the tick after an Xid)
//   - GetNvLinkState per link paced (Health), only for links whose state
//     field is not supported
//
// Per MIG instance probe, every Collect (nothing while its parent is lost):
//   - GetMemoryInfo_v2 or GetMemoryInfo on the MIG handle
//   - GPM: the parent's GpmMigSampleGet(GPU instance id, sample), then
//     lib.GpmMetricsGet as for a GPU (no PCIe metrics)
//
// The Xid watcher (WatchXid, started by the session once the sampler
// exists): Extensions().LookupSymbol for the event functions
// (nvml_events.go), lib.EventSetCreate, per GPU GetSupportedEventTypes and
// RegisterEvents(EventTypeXidCriticalError); then one goroutine blocks in
// EventSet.Wait(1 s) until Close, which frees the set and shuts NVML down
// only if the watcher is out of the driver within 100 ms (nvml_events.go);
// a demo on a fast clock is polled, Wait(0) at each tick (PollXid, DrainXid).
//
// The process probe, every Collect, per GPU that is not lost:
//   - GetComputeRunningProcesses, GetGraphicsRunningProcesses
//   - GetProcessUtilization(lastSeen), skipped while MIG mode is on
//
// At Close: Free on each GPM sample, then Shutdown.
//
// Never called: GetPcieThroughput (blocks ~20 ms), GetProcessesUtilizationInfo
// (returns no data in this go-nvml), ErrorString.
type NVML struct {
	lib    nvml.Interface
	clock  Clock
	pace   Pace // how often each costly call is made (nvml_pace.go)
	driver string
	cuda   string
	syms   symbols
	gpus   []*gpuProbe
	migs   []*migProbe // MIG compute instances, after the GPUs (nvml_mig.go)

	// life is held for reading by every Collect and for writing by Close,
	// so that Close never frees a GPM sample or shuts NVML down under a
	// call in flight.
	life     sync.RWMutex
	closed   atomic.Bool // no new Collect starts
	released bool        // GPM samples freed and Shutdown done; guarded by life

	// watch is the Xid event watcher (nvml_events.go), nil while off.
	watchMu    sync.Mutex // guards watch, watchTried and xidHung
	watch      *xidWatch
	watchTried bool
	xidHung    bool // the watcher's wait never returned: NVML stays up

	mu     sync.Mutex // guards checks and noted
	checks []string
	noted  map[string]bool
}

// GPUs describes every monitored GPU, in NVML index order. A GPU that could
// not be opened is missing here and explained in Checks.
//
// The MIG compute instances of MIG-enabled GPUs follow, each a GPU of its own
// (MIGProfile set), numbered after the last physical GPU.
func (n *NVML) GPUs() []timeline.GPUInfo {
	out := make([]timeline.GPUInfo, 0, len(n.gpus)+len(n.migs))
	for _, g := range n.gpus {
		out = append(out, g.info)
	}
	for _, m := range n.migs {
		out = append(out, m.info)
	}
	return out
}

// Driver is the driver version, e.g. "550.54.15"; "" if NVML did not say.
func (n *NVML) Driver() string { return n.driver }

// CUDA is the CUDA version the driver supports, e.g. "12.4"; "" if unknown.
func (n *NVML) CUDA() string { return n.cuda }

// Probes returns one Probe per GPU, then one per MIG instance: Name "nvml",
// Device "gpu<index>". The same probes (and their state) on every call.
func (n *NVML) Probes() []probe.Probe {
	out := make([]probe.Probe, 0, len(n.gpus)+len(n.migs))
	for _, g := range n.gpus {
		out = append(out, g)
	}
	for _, m := range n.migs {
		out = append(out, m)
	}
	return out
}

// Checks lists every check made, one human line each: which optional
// symbols the driver has, what each GPU supports, and the functions given up
// on while running (not supported, GPU lost). A copy, safe to keep.
func (n *NVML) Checks() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.checks...)
}

// note adds a line to Checks once: a probe that meets the same condition on
// every tick reports it a single time.
func (n *NVML) note(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.noted[line] {
		return
	}
	n.noted[line] = true
	n.checks = append(n.checks, line)
}

// Close frees the GPM samples and shuts NVML down (Init succeeded, or there
// would be no *NVML). Probes collected afterwards return an error without
// touching the library.
//
// If a Collect is still inside an NVML call (a hung driver), Close does not
// wait for it: it returns an error and leaves NVML initialised, since freeing
// a sample under a call in flight is a use-after-free in C, and the process
// is about to exit anyway. That is why it uses TryLock.
func (n *NVML) Close() error {
	n.closed.Store(true)
	// The event watcher first: it holds no lock while it waits in the
	// driver, and its set must be freed before Shutdown.
	stopped, problem := n.stopXid()
	if !stopped {
		// Waiting in EventSetWait, which only its timeout ends: the
		// process is about to exit, and its exit releases NVML.
		return nil
	}
	if !n.life.TryLock() {
		return errors.New("NVML: a call is still running; left initialised")
	}
	defer n.life.Unlock()
	if n.released {
		return nil
	}
	n.released = true
	var problems []string
	if problem != "" {
		problems = append(problems, problem)
	}
	for _, g := range n.gpus {
		if g.gpm != nil {
			problems = append(problems, g.gpm.free()...)
		}
	}
	for _, m := range n.migs {
		if m.gpm != nil {
			problems = append(problems, m.gpm.free()...)
		}
	}
	if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
		problems = append(problems, "nvmlShutdown: "+returnText(ret))
	}
	if len(problems) > 0 {
		return errors.New("NVML: " + strings.Join(problems, "; "))
	}
	return nil
}
