package nvidia

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// memoryNotAvailable is NVML_VALUE_NOT_AVAILABLE (-1) in the unsigned long
// long of usedGpuMemory: the driver does not know the process's memory.
const memoryNotAvailable = math.MaxUint64

// procCall names one per-device function of the process tier.
type procCall uint8

const (
	procCompute procCall = 1 << iota
	procGraphics
	procUtilization
)

var procCallNames = map[procCall]string{
	procCompute:     "compute processes",
	procGraphics:    "graphics processes",
	procUtilization: "process utilization",
}

// procDevice is the process tier's memory of one GPU.
type procDevice struct {
	lastSeen    uint64 // newest GetProcessUtilization timestamp seen, µs
	unsupported procCall
}

// procProbe lists the processes on every GPU: the slower tier, since the
// process lists take a driver lock and a few milliseconds per GPU.
type procProbe struct {
	n      *NVML
	lookup probe.ProcessLookup
	// looked holds this Collect's host lookups: a process on several GPUs
	// is looked up once, or its CPU share would span microseconds.
	looked  map[int]hostLookup
	devices []procDevice // by position in n.gpus; touched only by Collect
}

// ProcessProbe returns the slower tier: Name "procs", Device "". Each
// Collect lists the processes holding each GPU that is not lost, with their
// GPU memory and SM share, and what lookup knows of them on the host (a nil
// lookup leaves those fields unknown). Run it every few seconds, not every
// tick.
func (n *NVML) ProcessProbe(lookup probe.ProcessLookup) probe.Probe {
	return &procProbe{n: n, lookup: lookup, devices: make([]procDevice, len(n.gpus)), looked: map[int]hostLookup{}}
}

// Name is "procs".
func (p *procProbe) Name() string { return "procs" }

// Device is "": the probe covers every GPU.
func (p *procProbe) Device() string { return "" }

// Collect lists the GPU processes, ordered by GPU then PID.
func (p *procProbe) Collect(ctx context.Context) (probe.Reading, error) {
	p.n.life.RLock()
	defer p.n.life.RUnlock()
	if p.n.closed.Load() {
		return probe.Reading{}, errNVMLClosed
	}
	var procs []timeline.Process
	var failures []string
	clear(p.looked)
	for i, g := range p.n.gpus {
		if g.lost.Load() {
			continue
		}
		if err := ctx.Err(); err != nil {
			failures = append(failures, err.Error())
			break
		}
		found, problems := p.collectGPU(g, &p.devices[i])
		procs = append(procs, found...)
		failures = append(failures, problems...)
	}
	sortProcs(procs) // a MIG instance's processes go by its own index
	if len(failures) > 0 {
		return probe.Reading{Processes: procs}, errors.New(strings.Join(failures, "; "))
	}
	return probe.Reading{Processes: procs}, nil
}

// collectGPU lists one GPU's processes. It returns what it found and one
// line per failed call.
func (p *procProbe) collectGPU(g *gpuProbe, d *procDevice) ([]timeline.Process, []string) {
	var problems []string
	// check sorts a return; false means the value cannot be used.
	check := func(c procCall, ret nvml.Return) bool {
		switch classify(ret) {
		case outcomeOK:
			return true
		case outcomeUnsupported:
			d.unsupported |= c
			p.n.note("%s: %s: %s, no longer asked", g.device, procCallNames[c], returnText(ret))
		case outcomeLost:
			g.markLost(procCallNames[c])
		default:
			problems = append(problems, g.device+": "+procCallNames[c]+": "+returnText(ret))
		}
		return false
	}

	var procs []timeline.Process
	// byPID finds a process already listed; on a MIG-enabled GPU, in the
	// same instance (GPU is the instance's index then).
	byPID := map[uint32]int{}
	migs := p.slicesOf(g)
	unplaced := false
	list := func(c procCall, read func() ([]nvml.ProcessInfo, nvml.Return)) {
		if d.unsupported&c != 0 || g.lost.Load() {
			return
		}
		infos, ret := read()
		if !check(c, ret) {
			return
		}
		for _, info := range infos {
			mem := math.NaN()
			if info.UsedGpuMemory != memoryNotAvailable {
				mem = float64(info.UsedGpuMemory)
			}
			gpu := g.info.Index
			if g.info.MIG {
				if at, ok := migSliceOf(info, migs); ok {
					gpu = at
				} else {
					unplaced = true
				}
			}
			// A process with both a compute and a graphics context is in
			// both lists: one entry, with the memory that is known.
			if at, seen := byPID[info.Pid]; seen && procs[at].GPU == gpu {
				if math.IsNaN(procs[at].GPUMem) || mem > procs[at].GPUMem {
					procs[at].GPUMem = mem
				}
				continue
			}
			byPID[info.Pid] = len(procs)
			procs = append(procs, timeline.Process{
				GPU: gpu, PID: int(info.Pid), GPUMem: mem,
				Util: math.NaN(), CPU: math.NaN(), RSS: math.NaN(),
			})
		}
	}
	list(procCompute, g.dev.GetComputeRunningProcesses)
	list(procGraphics, g.dev.GetGraphicsRunningProcesses)

	// Per-process utilisation is not supported on a MIG-enabled GPU.
	if !g.info.MIG && d.unsupported&procUtilization == 0 && !g.lost.Load() {
		samples, ret := g.dev.GetProcessUtilization(d.lastSeen)
		// NOT_FOUND, or INSUFFICIENT_SIZE with nothing, means no samples
		// since lastSeen: every SM share stays unknown.
		none := ret == nvml.ERROR_NOT_FOUND || (ret == nvml.ERROR_INSUFFICIENT_SIZE && len(samples) == 0)
		if !none && check(procUtilization, ret) {
			d.lastSeen = max(d.lastSeen, smShares(samples, d.lastSeen, procs, byPID))
		}
	}

	if unplaced {
		// Once: NVML hides the instance ids from an unprivileged user, and
		// an instance whose handle failed to open is not a GPU here.
		p.n.note("%s: processes in no MIG instance listed here (NVML gave no instance, or one not opened) are shown under %s",
			g.device, g.device)
	}
	for i := range procs {
		p.fillHost(&procs[i])
	}
	sortProcs(procs)
	return procs, problems
}

// sortProcs orders processes by GPU, then PID.
func sortProcs(procs []timeline.Process) {
	slices.SortFunc(procs, func(a, b timeline.Process) int {
		if a.GPU != b.GPU {
			return a.GPU - b.GPU
		}
		return a.PID - b.PID
	})
}

// noMIGInstance is NVML's GpuInstanceId and ComputeInstanceId of a process
// whose instance is not given: on a GPU without MIG, or to a user NVML does
// not tell.
const noMIGInstance = math.MaxUint32

// migSliceFact is what attributes a process to a MIG instance.
type migSliceFact struct {
	index  int // the instance's session-wide GPU index
	gi, ci int
}

// slicesOf is g's MIG instances as opened.
func (p *procProbe) slicesOf(g *gpuProbe) []migSliceFact {
	if !g.info.MIG {
		return nil
	}
	var out []migSliceFact
	for _, m := range p.n.migs {
		if m.parent == g {
			out = append(out, migSliceFact{index: m.info.Index, gi: m.info.MIGGPUInstance, ci: m.info.MIGComputeInstance})
		}
	}
	return out
}

// migSliceOf finds the instance a process of a MIG-enabled GPU runs in: the
// one of its GPU and compute instance ids; with the compute instance not
// given, the only instance of its GPU instance. ok false when none fits.
func migSliceOf(info nvml.ProcessInfo, in []migSliceFact) (index int, ok bool) {
	if info.GpuInstanceId == noMIGInstance {
		return 0, false
	}
	gi := int(info.GpuInstanceId)
	found := -1
	for _, s := range in {
		switch {
		case s.gi != gi:
		case info.ComputeInstanceId != noMIGInstance && s.ci == int(info.ComputeInstanceId):
			return s.index, true
		case info.ComputeInstanceId == noMIGInstance:
			if found >= 0 {
				return 0, false // two compute instances: which is unknown
			}
			found = s.index
		}
	}
	if found < 0 {
		return 0, false
	}
	return found, true
}

// smShares sets each listed process's SM share to the mean of its samples
// newer than lastSeen (the first call, with 0, takes every sample NVML
// holds), ignoring values out of 0..100. It returns the newest timestamp.
func smShares(samples []nvml.ProcessUtilizationSample, lastSeen uint64, procs []timeline.Process, byPID map[uint32]int) uint64 {
	sums := make([]float64, len(procs))
	counts := make([]int, len(procs))
	newest := lastSeen
	for _, s := range samples {
		newest = max(newest, s.TimeStamp)
		at, listed := byPID[s.Pid]
		if !listed || s.TimeStamp <= lastSeen || s.SmUtil > 100 {
			continue
		}
		sums[at] += float64(s.SmUtil)
		counts[at]++
	}
	for i := range procs {
		if counts[i] > 0 {
			procs[i].Util = sums[i] / float64(counts[i])
		}
	}
	return newest
}

// fillHost adds what the host knows of the process. PIDs from NVML are the
// host's; inside a container the lookup may not find them: fields unknown.
func (p *procProbe) fillHost(proc *timeline.Process) {
	if p.lookup == nil {
		return
	}
	l, done := p.looked[proc.PID]
	if !done {
		l.info, l.ok = p.lookup.Lookup(proc.PID)
		p.looked[proc.PID] = l
	}
	info, ok := l.info, l.ok
	if !ok {
		return
	}
	proc.User, proc.Command, proc.CPU, proc.RSS = info.User, info.Command, info.CPU, info.RSS
	proc.Started, proc.Workload = info.Started, info.Workload
}

// hostLookup is one answer of the ProcessLookup.
type hostLookup struct {
	info probe.ProcessInfo
	ok   bool
}
