package demo

// The training scenario: healthy DDP on eight GPUs, the control case. Its
// dips (a step boundary where every rank logs and syncs, 1-2 s every 45 s or
// so) and its validation phase (an epoch of ~7 minutes ends with ~50 s at
// ~40 %) are normal; seed report 001 is a team that took such a moment,
// caught by a single nvidia-smi reading, for a problem.

var (
	sTrainDipStart = streamOf("training/dip-start")
	sTrainDipLen   = streamOf("training/dip-length")
	sTrainValStart = streamOf("training/validation-start")
	sTrainValLen   = streamOf("training/validation-length")
	sTrainSlot     = streamOf("training/slot")
	sTrainDrift    = streamOf("training/drift")
	sTrainPower    = streamOf("training/power")
	sTrainHost     = streamOf("training/host")
	sTrainIO       = streamOf("training/io")
	sTrainMem      = streamOf("training/memory")
)

const (
	trainDipEvery = 45.0  // s between step-boundary dips (each jittered inside its cycle)
	trainValEvery = 420.0 // s between validation phases: a real job's 7-minute epoch
)

func newTraining(n noise) *scenario {
	sc := &scenario{
		name: "training",
		about: "healthy 8-GPU DDP training: ~97 % busy with 1-2 s step-boundary dips and a ~50 s validation " +
			"phase every ~7 min, none of them a problem, though one reading caught in a dip can look like an idle GPU",
	}
	sc.procs = ranks(4100, "python train.py --rank %d", func(r int) float64 {
		return n.between(62, 68, sTrainMem, r, 0) * gib
	}, 14*gib)

	// validating says whether t is in a validation phase: one per cycle,
	// starting 150-190 s in and lasting 45-55 s.
	validating := func(t float64) bool {
		c := int64(t / trainValEvery)
		start := float64(c)*trainValEvery + n.between(150, 190, sTrainValStart, 0, c)
		return t >= start && t < start+n.between(45, 55, sTrainValLen, 0, c)
	}
	// dipShare is how much of the slot a step-boundary dip covers. Every
	// rank reaches the boundary together, so the dip's timing is shared.
	dipShare := func(s slot) float64 {
		c := int64(s.T0 / trainDipEvery)
		start := float64(c)*trainDipEvery + n.between(5, 40, sTrainDipStart, 0, c)
		return s.covered(start, start+n.between(1, 2, sTrainDipLen, 0, c))
	}

	sc.gpu = func(g int, s slot) gpuLoad {
		u := n.u(sTrainSlot, g, s.K)
		drift := n.smooth(sTrainDrift, g, s.T0, 20)
		if validating(s.T0) {
			// A forward pass takes two slots of every five; the CPU computes
			// metrics in the other three.
			if s.K%5 < 2 {
				return gpuLoad{Util: 85 + 15*u, SM: 55 + 10*drift, Occupancy: 30, Tensor: 35, DRAM: 35,
					Demand: 430 + 40*drift, Rx: 1.2e9}
			}
			return gpuLoad{Util: 15 * u, SM: 3 * u, Occupancy: 2 * u, DRAM: 4, Demand: 150, Rx: 2e8}
		}
		busy := gpuLoad{
			Util:      min(100, 95+6*u),
			SM:        80 + 10*drift + 2*(u-0.5),
			Occupancy: 38 + 6*drift,
			Tensor:    50 + 10*n.smooth(sTrainDrift, g+demoGPUs, s.T0, 25),
			DRAM:      42 + 10*drift,
			Demand:    600 + 80*n.smooth(sTrainPower, g, s.T0, 15) + 12*(u-0.5),
			Tx:        1.2e8,
			Rx:        1.8e9 + 6e8*drift,
		}
		dip := gpuLoad{Util: 10 + 30*u, SM: 3 + 7*u, Occupancy: 3, Tensor: 1, DRAM: 5, Demand: 200 + 60*u, Tx: 3e7, Rx: 1e8}
		return blend(dip, busy, dipShare(s))
	}

	sc.host = func(s slot, h *hostLoad) {
		val := validating(s.T0)
		for c := range h.Core {
			u := n.u(sTrainHost, c, s.K)
			switch {
			case c < demoGPUs: // the ranks' main processes
				h.Core[c] = 70 + 15*u
				if val {
					h.Core[c] = 92 + 8*u // computing metrics on the CPU
				}
			case c < 24: // DataLoader workers, two per rank
				h.Core[c] = 55 + 20*n.smooth(sTrainHost, c, s.T0, 8)
				if val {
					h.Core[c] = 25 + 10*u
				}
			default:
				h.Core[c] = 1 + 3*u
			}
		}
		h.IOWait = 0.3 + 0.5*n.u(sTrainIO, 0, s.K)
		h.Read = 3e8 + 5e7*n.wobble(sTrainIO, 1, s.T0, 10)
		if val {
			h.Read = 1.5e8
		}
		h.Write = 3e6
		h.MemUsed = 182*gib + 2*gib*n.wobble(sTrainIO, 2, s.T0, 60)
	}
	return sc
}
