package demo

// The input-bound scenario: the GPUs wait for data. One Python process drives
// all eight GPUs (nn.DataParallel); each batch keeps them busy for 1-2 s, then
// they sit idle 3-5 s while 24 DataLoader workers decode and augment the next
// one, and the main process, collating and copying on one core, is pegged.
// Seed reports 003 (a GPU starved by database reads, 8-30 % busy) and 004
// (11 % busy: small batches, a loader that could not keep up).

var (
	sInputBurstStart = streamOf("input-bound/burst-start")
	sInputBurstLen   = streamOf("input-bound/burst-length")
	sInputSlot       = streamOf("input-bound/slot")
	sInputHost       = streamOf("input-bound/host")
	sInputIO         = streamOf("input-bound/io")
)

// inputCycle is the loader's period: a burst of 1-2 s starting 0-0.5 s into
// each cycle leaves 3-5 s idle between bursts.
const inputCycle = 5.5

// inputWorkers is the number of DataLoader workers, one per host core after
// the main process's.
const inputWorkers = 24

func newInputBound(n noise) *scenario {
	sc := &scenario{
		name: "input-bound",
		about: "GPUs in a sawtooth: 1-2 s of work, then 3-5 s idle while 24 loader workers prepare the next batch " +
			"and the main process pegs one core: the data pipeline cannot keep the GPUs fed",
	}
	on := make([]residency, demoGPUs)
	for g := range on {
		on[g] = residency{GPU: g, Mem: 18 * gib, Work: 1}
	}
	on[0].Mem = 24 * gib // DataParallel gathers outputs and keeps the master weights on GPU0
	sc.procs = []scriptedProc{{
		PID:     4100,
		User:    "ml",
		Command: "python train.py --data /datasets/imagenet --workers 24 --batch-size 256",
		On:      on,
		Cores:   []int{0},
		RSS:     22 * gib,
	}}

	// burst is the share of the slot in which the GPUs have a batch, and how
	// far into the burst the slot starts (the batch is copied in first).
	burst := func(s slot) (share, into float64) {
		for c := int64(s.T0 / inputCycle); c <= int64(s.T1/inputCycle); c++ {
			start := float64(c)*inputCycle + n.between(0, 0.5, sInputBurstStart, 0, c)
			end := start + n.between(1, 2, sInputBurstLen, 0, c)
			if sh := s.covered(start, end); sh > 0 {
				return sh, s.T0 - start
			}
		}
		return 0, 0
	}

	sc.gpu = func(g int, s slot) gpuLoad {
		u := n.u(sInputSlot, g, s.K)
		share, into := burst(s)
		idle := gpuLoad{Demand: 95 + 8*u, Tx: 1e6, Rx: 5e7} // clocks stay up between batches
		if share == 0 {
			return idle
		}
		busy := gpuLoad{Util: 97 + 3*u, SM: 70 + 10*u, Occupancy: 35, Tensor: 40 + 10*u, DRAM: 40 + 8*u,
			Demand: 520 + 60*u, Tx: 5e7, Rx: 3e8}
		if into < 0.34 {
			busy.Rx = 1.4e10 // the batch arrives over PCIe in its first third of a second
		}
		return blend(busy, idle, share)
	}

	sc.host = func(s slot, h *hostLoad) {
		for c := range h.Core {
			u := n.u(sInputHost, c, s.K)
			switch {
			case c == 0: // the main process
				h.Core[c] = 97 + 3*u
			case c <= inputWorkers:
				h.Core[c] = 70 + 12*n.smooth(sInputHost, c, s.T0, 6) + 8*u
			default:
				h.Core[c] = 2 + 4*u
			}
		}
		h.IOWait = 3 + 2*n.u(sInputIO, 0, s.K)
		h.Read = 8e8 + 1e8*n.wobble(sInputIO, 1, s.T0, 5)
		h.Write = 1e6
		h.MemUsed = 96*gib + 1*gib*n.wobble(sInputIO, 2, s.T0, 60)
	}
	return sc
}
