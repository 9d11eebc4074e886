package demo

import "fmt"

// The imbalance scenario, after seed report 002: four LightGBM workers were
// meant to spread over the GPUs, but every one of them landed on GPU1. GPU1
// runs at ~75 % utilization with only ~28 % of its SMs busy (many small
// kernels); the other seven GPUs hold the parent's CUDA context, ~500 MB
// each, and idle.

var (
	sImbSlot  = streamOf("imbalance/slot")
	sImbDrift = streamOf("imbalance/drift")
	sImbIdle  = streamOf("imbalance/idle")
	sImbHost  = streamOf("imbalance/host")
	sImbIO    = streamOf("imbalance/io")
)

// imbalanceBusyGPU is the GPU every worker was pinned to.
const imbalanceBusyGPU = 1

func newImbalance(n noise) *scenario {
	sc := &scenario{
		name: "imbalance",
		about: "one of eight GPUs (GPU1) does all the work at ~75 % while the other seven hold ~500 MB and idle: " +
			"every worker was pinned to the same GPU",
	}
	parent := scriptedProc{
		PID:     4100,
		User:    "ml",
		Command: "python train_teacher_batch.py --workers 4",
		Cores:   []int{0},
		RSS:     6 * gib,
	}
	for g := range demoGPUs {
		parent.On = append(parent.On, residency{GPU: g, Mem: 500 << 20})
	}
	sc.procs = []scriptedProc{parent}
	for w := range 4 {
		sc.procs = append(sc.procs, scriptedProc{
			PID:     4101 + w,
			User:    "ml",
			Command: fmt.Sprintf("python train_teacher_batch.py --worker %d", w),
			On:      []residency{{GPU: imbalanceBusyGPU, Mem: 1.2 * gib, Work: 0.25}},
			Cores:   []int{1 + w},
			RSS:     3 * gib,
		})
	}

	sc.gpu = func(g int, s slot) gpuLoad {
		if g != imbalanceBusyGPU {
			return idleGPU(n, sImbIdle, g, s, true)
		}
		u := n.u(sImbSlot, g, s.K)
		util := clamp(74+14*n.wobble(sImbDrift, g, s.T0, 4)+24*(u-0.5), 40, 100)
		return gpuLoad{
			Util:      util,
			SM:        util * 0.38,
			Occupancy: 12 + 6*u,
			DRAM:      15 + 10*u,
			Demand:    150 + 110*util/100,
			Tx:        2e8,
			Rx:        6e8 + 4e8*u,
		}
	}

	sc.host = func(s slot, h *hostLoad) {
		for c := range h.Core {
			u := n.u(sImbHost, c, s.K)
			switch {
			case c == 0: // the parent, waiting on its workers
				h.Core[c] = 5 + 7*u
			case c <= 4: // the workers build histograms on the CPU between kernels
				h.Core[c] = 75 + 20*u
			default:
				h.Core[c] = 1 + 2*u
			}
		}
		h.IOWait = 0.1 + 0.2*n.u(sImbIO, 0, s.K)
		h.Read = 4e7
		h.Write = 2e6
		h.MemUsed = 64*gib + 1*gib*n.wobble(sImbIO, 1, s.T0, 60)
	}
	return sc
}
