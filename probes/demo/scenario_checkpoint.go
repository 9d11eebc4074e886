package demo

// The checkpoint scenario, after the llama8b 8xH100 ckpt100 trace: DDP
// training at ~90 % and ~550 W on every GPU, and every ~2 minutes rank 0
// alone saves a checkpoint for 40-50 s. GPU0 copies its state to the host
// and then idles at ~145 W while the host writes ~1.8 GB/s to disk; GPUs 1-7
// wait for rank 0 in an NCCL collective, whose spinning kernel reads 99-100 %
// utilization at only ~150 W with almost no SMs busy. Utilization lies,
// power and SM activity tell.

var (
	sCkptStart = streamOf("checkpoint/start")
	sCkptLen   = streamOf("checkpoint/length")
	sCkptSlot  = streamOf("checkpoint/slot")
	sCkptDrift = streamOf("checkpoint/drift")
	sCkptHost  = streamOf("checkpoint/host")
	sCkptIO    = streamOf("checkpoint/io")
)

const (
	ckptEvery = 120.0 // s between checkpoints
	// ckptCopy is how long rank 0 copies its state dict to host memory
	// before writing it out.
	ckptCopy = 8.0
)

func newCheckpoint(n noise) *scenario {
	sc := &scenario{
		name: "checkpoint",
		about: "8-GPU training where rank 0 saves a checkpoint for 40-50 s every ~2 min: GPU0 drops to ~0 % while " +
			"GPUs 1-7 read ~100 % at ~150 W, spinning in NCCL as they wait for it",
	}
	sc.procs = ranks(4100, "python train_gpt.py --model_size 8B --save_steps 100 --local-rank=%d", func(r int) float64 {
		if r == 0 {
			return 41.5 * gib
		}
		return 40 * gib
	}, 18*gib)

	// saving returns how far into a checkpoint t is, or -1 outside one. Each
	// cycle's checkpoint starts 55-75 s in and lasts 40-50 s.
	saving := func(t float64) float64 {
		c := int64(t / ckptEvery)
		start := float64(c)*ckptEvery + n.between(55, 75, sCkptStart, 0, c)
		if t >= start && t < start+n.between(40, 50, sCkptLen, 0, c) {
			return t - start
		}
		return -1
	}

	sc.gpu = func(g int, s slot) gpuLoad {
		u := n.u(sCkptSlot, g, s.K)
		into := saving(s.T0)
		switch {
		case into >= 0 && g == 0:
			l := gpuLoad{Demand: 140 + 10*u}
			if u < 0.12 {
				l.Util, l.SM = 10+150*u, 1
			}
			if into < ckptCopy {
				// Copying the state dict to the host: copy engines, not kernels.
				l.Demand, l.DRAM, l.Tx = 160+10*u, 12, 1.1e10
			}
			return l
		case into >= 0:
			// An NCCL kernel spins on a few SMs, waiting for rank 0.
			return gpuLoad{Util: 99 + u, SM: 1.5 + 1.5*u, Occupancy: 1, DRAM: 0.5, Demand: 145 + 12*u}
		}
		drift := n.smooth(sCkptDrift, g, s.T0, 10)
		util := clamp(90+10*n.wobble(sCkptDrift, g+demoGPUs, s.T0, 3)+10*(u-0.5), 70, 100)
		return gpuLoad{
			Util:      util,
			SM:        util * (0.76 + 0.1*drift),
			Occupancy: 35 + 5*drift,
			Tensor:    45 + 8*drift,
			DRAM:      45 + 8*drift,
			Demand:    525 + 50*drift + 20*(u-0.5),
			Tx:        1e8,
			Rx:        4e8,
		}
	}

	sc.host = func(s slot, h *hostLoad) {
		into := saving(s.T0)
		for c := range h.Core {
			u := n.u(sCkptHost, c, s.K)
			switch {
			case c == 0 && into >= 0: // rank 0 pickles and writes the checkpoint
				h.Core[c] = 98 + 2*u
			case c < demoGPUs && into >= 0: // ranks 1-7 spin in cudaStreamSynchronize
				h.Core[c] = 95 + 5*u
			case c < demoGPUs:
				h.Core[c] = 60 + 20*u
			case c < 16: // tokenised data loads light
				h.Core[c] = 30 + 20*n.smooth(sCkptHost, c, s.T0, 8)
			default:
				h.Core[c] = 1 + 3*u
			}
		}
		h.IOWait = 0.2 + 0.3*n.u(sCkptIO, 0, s.K)
		h.Read, h.Write = 5e7, 2e6
		h.MemUsed = 140*gib + 1*gib*n.wobble(sCkptIO, 1, s.T0, 60)
		if into >= 0 {
			// The state dict lands in host memory, then streams to disk.
			h.MemUsed += 32 * gib * min(1, into/ckptCopy)
			if into >= ckptCopy {
				h.Write = 1.6e9 + 4e8*n.u(sCkptIO, 2, s.K)
				h.IOWait = 4 + 3*n.u(sCkptIO, 3, s.K)
			}
		}
	}
	return sc
}
