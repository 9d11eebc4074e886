package demo

// The cpu-fallback scenario, after seed report 000: the model was moved to
// cuda and holds ~20 GB on GPU0, but the batches stayed on the CPU, so the
// forward and backward passes run there. GPU0 reads 0-2 % (a stray copy or
// tiny kernel now and then) at idle power; the job's Python process pegs one
// host core and a few BLAS threads keep three more partly busy.

var (
	sFallbackSlot = streamOf("cpu-fallback/slot")
	sFallbackIdle = streamOf("cpu-fallback/idle")
	sFallbackHost = streamOf("cpu-fallback/host")
	sFallbackIO   = streamOf("cpu-fallback/io")
)

// fallbackBlasThreads is how many intra-op threads help the main thread.
const fallbackBlasThreads = 3

func newCPUFallback(n noise) *scenario {
	sc := &scenario{
		name: "cpu-fallback",
		about: "20 GB allocated on GPU0 with its SMs near 0 % while the job's Python process pegs a host core: " +
			"the tensors never left the CPU",
	}
	cores := []int{0}
	for c := 1; c <= fallbackBlasThreads; c++ {
		cores = append(cores, c)
	}
	sc.procs = []scriptedProc{{
		PID:     4100,
		User:    "ml",
		Command: "python scripts/train_jade_pretrain.py --config configs/windowed.yaml",
		On:      []residency{{GPU: 0, Mem: 20.5 * gib, Work: 1}},
		Cores:   cores,
		RSS:     31 * gib,
	}}

	sc.gpu = func(g int, s slot) gpuLoad {
		if g != 0 {
			return idleGPU(n, sFallbackIdle, g, s, false)
		}
		l := idleGPU(n, sFallbackIdle, g, s, true)
		// About one slot in thirty moves a tensor or runs a tiny kernel.
		if u := n.u(sFallbackSlot, g, s.K); u < 0.035 {
			l = gpuLoad{Util: 4 + 200*u, SM: 0.5, Occupancy: 0.3, DRAM: 1, Demand: 95, Rx: 2e9, Tx: 1e8}
		}
		return l
	}

	sc.host = func(s slot, h *hostLoad) {
		for c := range h.Core {
			u := n.u(sFallbackHost, c, s.K)
			switch {
			case c == 0: // the Python main thread doing the model's math
				h.Core[c] = 98.5 + 1.5*u
			case c <= fallbackBlasThreads:
				h.Core[c] = 18 + 17*n.smooth(sFallbackHost, c, s.T0, 3)
			default:
				h.Core[c] = 1 + 2*u
			}
		}
		h.IOWait = 0.1 + 0.1*n.u(sFallbackIO, 0, s.K)
		h.Read = 5e6
		h.Write = 1e6
		h.MemUsed = 46*gib + 0.5*gib*n.wobble(sFallbackIO, 1, s.T0, 60)
	}
	return sc
}
