package demo

import (
	"context"
	"fmt"
	"slices"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/timeline"
)

// The allocated scenario, after what users of other tools ask (nvtop #252,
// dcgm-exporter #521, Princeton's jobstats): a shared node whose eight GPUs
// are all allocated, to two pods and two Slurm jobs, and two of them are
// never touched. A notebook pod (GPU6) was left open over the weekend; a
// Slurm job (GPU7) asked for a GPU its script never uses. NVML shows
// those two as merely idle; only the allocation says whose they are.

var (
	sAllocSlot  = streamOf("allocated/slot")
	sAllocDrift = streamOf("allocated/drift")
	sAllocIdle  = streamOf("allocated/idle")
	sAllocHost  = streamOf("allocated/host")
	sAllocMem   = streamOf("allocated/memory")
)

// allocatedIdle are the GPUs allocated to an owner and never used.
var allocatedIdle = []int{6, 7}

// allocatedOwners are who holds each GPU: a training pod GPUs 0-3, a Slurm
// job GPUs 4-5, a notebook pod GPU6, another Slurm job GPU7.
var allocatedOwners = func() []timeline.Owner {
	var out []timeline.Owner
	for g := range 4 {
		out = append(out, timeline.Owner{GPU: g, Pod: "llm-train-0", Namespace: "team-a", Container: "trainer"})
	}
	for g := 4; g < 6; g++ {
		out = append(out, timeline.Owner{GPU: g, Job: "4242", User: "alice", Partition: "gpu"})
	}
	return append(out, timeline.Owner{GPU: 6, Pod: "notebook-bob", Namespace: "team-b", Container: "jupyter"},
		timeline.Owner{GPU: 7, Job: "4250", User: "carol", Partition: "gpu"})
}()

func newAllocated(n noise) *scenario {
	sc := &scenario{
		name: "allocated",
		about: "every GPU allocated, six working: GPUs 0-3 to a training pod, 4-5 to Slurm job 4242; GPU6 to a " +
			"notebook pod left open and GPU7 to Slurm job 4250, with nothing running on either",
		owners: allocatedOwners,
	}
	job := &timeline.Workload{Job: "4242", Step: "0"}
	for g := range 6 {
		p := scriptedProc{
			PID:      5100 + g,
			User:     "ml",
			Command:  fmt.Sprintf("python train.py --rank %d", g),
			On:       []residency{{GPU: g, Mem: n.between(50, 60, sAllocMem, g, 0) * gib, Work: 1}},
			Cores:    []int{g},
			RSS:      10 * gib,
			Workload: demoPod,
		}
		if g >= 4 {
			p.User, p.Workload, p.Command = "alice", job, fmt.Sprintf("python finetune.py --local-rank %d", g-4)
		}
		sc.procs = append(sc.procs, p)
	}

	sc.gpu = func(g int, s slot) gpuLoad {
		if slices.Contains(allocatedIdle, g) {
			return idleGPU(n, sAllocIdle, g, s, false)
		}
		u := n.u(sAllocSlot, g, s.K)
		drift := n.smooth(sAllocDrift, g, s.T0, 20)
		return gpuLoad{Util: 92 + 8*u, SM: 70 + 10*drift, Occupancy: 40 + 5*u, Tensor: 45 + 10*drift,
			DRAM: 40 + 10*u, Demand: 560 + 60*drift, Rx: 8e8 + 4e8*u, Tx: 2e8}
	}
	sc.host = func(s slot, h *hostLoad) {
		for c := range h.Core {
			u := n.u(sAllocHost, c, s.K)
			if c < 6 {
				h.Core[c] = 35 + 20*u // each rank's main thread
			} else {
				h.Core[c] = 3 + 4*u
			}
		}
		h.IOWait = 0.2 + 0.3*n.u(sAllocHost, 999, s.K)
		h.Read, h.Write = 1.5e8, 4e6
		h.MemUsed = 140*gib + 2*gib*n.wobble(sAllocHost, 998, s.T0, 60)
	}
	return sc
}

// demoOwners is the demo's ownership probe: the scenario's allocations,
// as the kubelet and Slurm would say them, on the process tier's ticks.
type demoOwners struct{ owners []timeline.Owner }

var _ probes.Probe = (*demoOwners)(nil)

func (o *demoOwners) Name() string   { return "owners" }
func (o *demoOwners) Device() string { return "" }

// Collect hands a copy: a sample's list is its own.
func (o *demoOwners) Collect(context.Context) (probes.Reading, error) {
	return probes.Reading{Owners: slices.Clone(o.owners)}, nil
}
