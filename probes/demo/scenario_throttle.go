package demo

import "fmt"

// The throttle scenario, after the nanogpt 8xH100 trace: every GPU is ~99 %
// busy, but the work would draw well over 700 W, so the software power cap
// holds each GPU just under its limit and pulls the SM clock down to
// ~1600 MHz. Two GPUs (which two follows the seed) are badly cooled: they
// run at 85-90 °C, slow down for heat before they reach the cap, and carry
// the thermal slowdown reasons.

var (
	sThrottleHot   = streamOf("throttle/hot")
	sThrottleSlot  = streamOf("throttle/slot")
	sThrottleDrift = streamOf("throttle/drift")
	sThrottleHost  = streamOf("throttle/host")
	sThrottleIO    = streamOf("throttle/io")
	sThrottleMem   = streamOf("throttle/memory")
)

// throttleHotCeiling is the power each hot GPU holds before heat slows it:
// the first settles near 86-87 °C (software slowdown), the second near 89 °C
// (hardware slowdown as well, on and off as the inlet air drifts).
var throttleHotCeiling = [2]float64{636, 662}

func newThrottle(n noise) *scenario {
	first := int(n.u(sThrottleHot, 0, 0) * demoGPUs)
	second := (first + 1 + int(n.u(sThrottleHot, 0, 1)*(demoGPUs-1))) % demoGPUs
	sc := &scenario{
		name: "throttle",
		about: fmt.Sprintf("every GPU ~99 %% busy but held at the 700 W power cap with SM clocks pulled to ~1600 MHz; "+
			"GPU%d and GPU%d run hot and slow down for heat", min(first, second), max(first, second)),
	}
	sc.hot[first], sc.hot[second] = true, true
	ceiling := map[int]float64{first: throttleHotCeiling[0], second: throttleHotCeiling[1]}
	sc.procs = ranks(4100, "python train.py config/train_gpt2.py --rank %d", func(r int) float64 {
		return n.between(70, 74, sThrottleMem, r, 0) * gib
	}, 11*gib)

	sc.gpu = func(g int, s slot) gpuLoad {
		u := n.u(sThrottleSlot, g, s.K)
		drift := n.smooth(sThrottleDrift, g, s.T0, 12)
		l := gpuLoad{
			Util:      min(100, 97.5+3*u),
			SM:        88 + 6*drift,
			Occupancy: 45 + 5*drift,
			Tensor:    62 + 8*n.smooth(sThrottleDrift, g+demoGPUs, s.T0, 17),
			DRAM:      55 + 8*drift,
			Demand:    1100 + 150*drift + 20*(u-0.5),
			Tx:        1.5e8,
			Rx:        1.5e9,
		}
		l.Ceiling = ceiling[g] // 0, no ceiling, for the others
		return l
	}

	sc.host = func(s slot, h *hostLoad) {
		for c := range h.Core {
			u := n.u(sThrottleHost, c, s.K)
			switch {
			case c < demoGPUs:
				h.Core[c] = 72 + 14*u
			case c < 16:
				h.Core[c] = 35 + 15*n.smooth(sThrottleHost, c, s.T0, 8)
			default:
				h.Core[c] = 1 + 3*u
			}
		}
		h.IOWait = 0.2 + 0.4*n.u(sThrottleIO, 0, s.K)
		h.Read = 1.2e8
		h.Write = 2e6
		h.MemUsed = 120*gib + 1*gib*n.wobble(sThrottleIO, 1, s.T0, 60)
	}
	return sc
}
