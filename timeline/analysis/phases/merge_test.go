package phases

import (
	"math/rand/v2"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// TestPhaseAbsorbProperties runs random run sequences through the merge and
// checks the invariants the UI's phase band relies on.
func TestPhaseAbsorbProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const minLen = 10
	for trial := range 2000 {
		var runs []Run
		at := int64(0)
		for range 1 + rng.IntN(40) {
			k := timeline.PhaseKind(rng.IntN(3))
			if len(runs) > 0 && runs[len(runs)-1].Kind == k {
				continue
			}
			d := int64(1 + rng.IntN(25))
			runs = append(runs, Run{Start: at, End: at + d, Kind: k})
			at += d
		}
		got := Absorb(append([]Run(nil), runs...), minLen)
		if got[0].Start != 0 || got[len(got)-1].End != at {
			t.Fatalf("trial %d: %v does not span 0-%d", trial, got, at)
		}
		for i, r := range got {
			if len(got) > 1 && r.End-r.Start < minLen {
				t.Fatalf("trial %d: short run %d in %v (from %v)", trial, i, got, runs)
			}
			if i > 0 && (got[i-1].End != r.Start || got[i-1].Kind == r.Kind) {
				t.Fatalf("trial %d: runs %d, %d do not abut with different kinds: %v", trial, i-1, i, got)
			}
		}
	}
}
