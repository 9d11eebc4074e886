package rules

import (
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// What the rules about clocks held down share: power-capped and
// thermal-throttle. Both
// judge Windows (30 s) of a working GPU (low or busy), fire where at least
// 60 % of the known columns are held down (40 % to go on), and are cut to
// those columns. NVML's clock-event reasons are the evidence where they
// were recorded; without them each rule falls back to a weaker sign and
// says so.

// reasonShare is the share of the working columns of spans (with reasons
// recorded) where any of bits is set.
func reasonShare(gs []*frame.GPU, spans []frame.Span, bits int32) float64 {
	known, yes := 0, 0
	for _, g := range gs {
		for _, sp := range spans {
			for i := sp.Lo; i < sp.Hi; i++ {
				if !g.Throttle.Has() || g.Throttle.At(i) < 0 || !g.Working(i) {
					continue
				}
				known++
				if g.Throttle.At(i)&bits != 0 {
					yes++
				}
			}
		}
	}
	if known == 0 {
		return 0
	}
	return float64(yes) / float64(known)
}
