package demo

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// The mig scenario: GPU0 is split with MIG into three slices that serve
// three teams, while GPUs 1-7 run the training job of scenario_training.go
// (seven ranks). The 3g.40gb slice serves a model and is busy; the 2g.20gb
// slice runs a batch embedding job at about half its SMs; the 1g.10gb slice
// holds a notebook's kernel that has loaded a model into 9 GiB of its 10 and
// barely computes: the slice is starved, and one that someone else could
// use. On a MIG GPU NVML gives no utilisation, so only GPM per instance
// shows which slice works.

var (
	sMIGSlot  = streamOf("mig/slot")
	sMIGDrift = streamOf("mig/drift")
	sMIGBurst = streamOf("mig/burst")
)

// migGPU is the GPU the scenario splits.
const migGPU = 0

// migLayout is GPU0's slices, in the order they are created: 3g.40gb,
// 2g.20gb and 1g.10gb, each one compute instance the size of its GPU
// instance. The GPU instance ids are the mock's (it counts from 0 in the
// order of creation); a driver numbers them by placement, so a real H100
// with this layout shows other ids. A fresh layout per scenario, because
// residencies point into it.
func migLayout() []migSlice {
	return []migSlice{
		h100Slice(nvml.GPU_INSTANCE_PROFILE_3_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE),
		h100Slice(nvml.GPU_INSTANCE_PROFILE_2_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE),
		h100Slice(nvml.GPU_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE),
	}
}

// migStarved is the slot of the starved slice in migLayout.
const migStarved = 2

func newMIG(n noise) *scenario {
	sc := newTraining(n)
	train := sc.gpu
	layout := migLayout()
	sc.name = "mig"
	sc.about = fmt.Sprintf("GPU0 split with MIG into %s, %s and %s for three teams while GPUs 1-7 train: "+
		"the 3g slice is busy serving, the 2g slice about half busy, and the %s slice holds 9 GiB but barely computes",
		layout[0].Name, layout[1].Name, layout[2].Name, layout[migStarved].Name)
	sc.mig[migGPU] = layout
	// Rank 0 of the training job has no GPU0 here: the job runs on 1-7.
	var procs []scriptedProc
	for _, p := range sc.procs {
		if p.On[0].GPU != migGPU {
			procs = append(procs, p)
		}
	}
	sc.procs = append(procs,
		scriptedProc{PID: 5210, User: "serve", Command: "python -m vllm.entrypoints.api_server --model llama-13b",
			On: []residency{{GPU: migGPU, MIG: &layout[0], Mem: 34 * gib, Work: 1}}, Cores: []int{8}, RSS: 9 * gib},
		scriptedProc{PID: 5388, User: "search", Command: "python embed_batch.py --shard 17",
			On: []residency{{GPU: migGPU, MIG: &layout[1], Mem: 11 * gib, Work: 1}}, Cores: []int{9}, RSS: 6 * gib},
		scriptedProc{PID: 6021, User: "alice", Command: "python -m ipykernel_launcher -f kernel-3f1c.json",
			On: []residency{{GPU: migGPU, MIG: &layout[migStarved], Mem: 9 * gib, Work: 1}}, Cores: []int{10}, RSS: 3 * gib},
	)

	sc.migLoad = func(i int, s slot) gpuLoad {
		u := n.u(sMIGSlot, i, s.K)
		drift := n.smooth(sMIGDrift, i, s.T0, 30)
		switch i {
		case 0: // serving: busy, following the request rate
			return gpuLoad{SM: 84 + 8*drift + 4*u, Occupancy: 45 + 5*drift, Tensor: 58 + 6*drift, DRAM: 52 + 6*drift}
		case 1: // a batch job bound by its input at about half the SMs
			return gpuLoad{SM: 42 + 10*drift + 6*u, Occupancy: 22, Tensor: 18 + 4*drift, DRAM: 25 + 5*drift}
		default: // a notebook: a cell now and then, idle between
			if n.u(sMIGBurst, i, int64(s.T0/20)) < 0.15 && s.K%6 < 2 {
				return gpuLoad{SM: 35 + 10*u, Occupancy: 10, Tensor: 12, DRAM: 8}
			}
			return gpuLoad{SM: 1 + 2*u, Occupancy: 1, DRAM: 0.5}
		}
	}
	sc.gpu = func(g int, s slot) gpuLoad {
		if g != migGPU {
			return train(g, s)
		}
		// The whole GPU: its slices' work weighed by their share of the SMs.
		// Power follows the SMs at work over an idle H100's floor.
		var sum gpuLoad
		for i, sl := range layout {
			l := sc.migLoad(i, s)
			sum.SM += l.SM * sl.Share
			sum.Occupancy += l.Occupancy * sl.Share
			sum.Tensor += l.Tensor * sl.Share
			sum.DRAM += l.DRAM * sl.Share
		}
		sum.Util = min(100, sum.SM*1.3)
		sum.Demand = 80 + 5.5*sum.SM
		sum.Tx, sum.Rx = 2e8, 6e8
		return sum
	}
	return sc
}
