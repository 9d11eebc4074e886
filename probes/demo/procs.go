package demo

import (
	"math"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes"
)

// The scripted processes, as NVML lists them per GPU and as the host's
// process table would show them.

// noInstance is NVML's GpuInstanceId / ComputeInstanceId for a process on a
// GPU without MIG.
const noInstance = math.MaxUint32

// GetComputeRunningProcesses lists the scripted processes on this GPU.
func (d *demoDevice) GetComputeRunningProcesses() ([]nvml.ProcessInfo, nvml.Return) {
	var out []nvml.ProcessInfo
	for _, p := range d.gpu.sc.procs {
		for _, r := range p.On {
			if r.GPU == d.gpu.index {
				gi, ci := uint32(noInstance), uint32(noInstance)
				if m := d.sliceOf(r); m != nil {
					gi, ci = uint32(m.GI()), uint32(m.CI())
				}
				out = append(out, nvml.ProcessInfo{Pid: uint32(p.PID), UsedGpuMemory: uint64(r.Mem),
					GpuInstanceId: gi, ComputeInstanceId: ci})
			}
		}
	}
	return out, nvml.SUCCESS
}

// GetGraphicsRunningProcesses: a training node runs no graphics.
func (d *demoDevice) GetGraphicsRunningProcesses() ([]nvml.ProcessInfo, nvml.Return) {
	return []nvml.ProcessInfo{}, nvml.SUCCESS
}

// GetProcessUtilization gives each process on the GPU its share of the
// GPU's kernel time, averaged over the slots since lastSeen (at most the
// last sampleBuffer), stamped with the newest slot's end. Like NVML, it
// answers NOT_FOUND when nothing is newer than lastSeen.
//
// In the demo's first 1/6 s no slot has ended yet, but a real driver would
// hold samples from before gputop started: it answers with the slot in
// progress, stamped now, so a snapshot taken at once has an SM share.
func (d *demoDevice) GetProcessUtilization(lastSeen uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
	now := d.time.now()
	done, stamp := slotAt(now), d.time.stamp(slotStart(slotAt(now)))
	if done == 0 {
		done, stamp = 1, d.time.stamp(now)
	}
	first := max(0, done-sampleBuffer)
	if since := int64(lastSeen) - int64(d.time.stamp(0)); lastSeen > 0 && since >= 0 {
		first = max(first, slotAt(since))
	}
	if first >= done || stamp <= lastSeen {
		return nil, nvml.ERROR_NOT_FOUND
	}
	var util, mem float64
	for k := first; k < done; k++ {
		s := d.gpu.state(k)
		util += s.Util
		mem += memUtilOf(&s)
	}
	util /= float64(done - first)
	mem /= float64(done - first)
	var out []nvml.ProcessUtilizationSample
	for _, p := range d.gpu.sc.procs {
		for _, r := range p.On {
			if r.GPU == d.gpu.index {
				out = append(out, nvml.ProcessUtilizationSample{Pid: uint32(p.PID), TimeStamp: stamp,
					SmUtil: uint32(math.Round(util * r.Work)), MemUtil: uint32(math.Round(mem * r.Work))})
			}
		}
	}
	if len(out) == 0 {
		return nil, nvml.ERROR_NOT_FOUND
	}
	return out, nvml.SUCCESS
}

// demoProcesses is the demo's probes.ProcessLookup: the scripted user,
// command and RSS, and a CPU % that, like the real lookup's, is the average
// since the previous lookup of the same PID (NaN at the first).
type demoProcesses struct {
	demo *Node

	mu   sync.Mutex
	last map[int]lookupMark
}

type lookupMark struct {
	at  int64   // µs since the demo began
	cpu float64 // the CPU % answered then
}

// Lookup finds a scripted process.
func (p *demoProcesses) Lookup(pid int) (probes.ProcessInfo, bool) {
	var proc *scriptedProc
	for i := range p.demo.sc.procs {
		if p.demo.sc.procs[i].PID == pid {
			proc = &p.demo.sc.procs[i]
		}
	}
	if proc == nil {
		return probes.ProcessInfo{}, false
	}
	now := p.demo.time.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, seen := p.last[pid]
	cpu := math.NaN()
	switch {
	case seen && now == prev.at: // asked again in the same instant (a process on several GPUs)
		cpu = prev.cpu
	case seen && now > prev.at:
		cpu = p.demo.cpuOf(proc, prev.at, now)
	}
	p.last[pid] = lookupMark{at: now, cpu: cpu}
	return probes.ProcessInfo{User: proc.User, Command: proc.Command, CPU: cpu, RSS: proc.RSS, Workload: proc.Workload}, true
}

// cpuOf is a process's CPU % (of one core) between two instants: the busy
// time of its cores over the slots between, weighted by how much of each
// slot lies inside.
func (d *Node) cpuOf(p *scriptedProc, from, to int64) float64 {
	var busy float64 // %·µs
	var h hostLoad
	for k := slotAt(from); k <= slotAt(to); k++ {
		lo, hi := max(from, slotStart(k)), min(to, slotStart(k+1))
		if hi <= lo {
			continue
		}
		d.sc.host(slotOf(k), &h)
		for _, c := range p.Cores {
			busy += h.Core[c] * float64(hi-lo)
		}
	}
	return busy / float64(to-from)
}
