package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// hintSuppress, which sets a candidate only against those of its own GPU,
// keeps and drops what setting each against every other did, in the same
// order: random candidates of the rules that yield and those they yield
// to, over a few GPUs.
func TestHintSuppressKeepsWhatEveryPairWould(t *testing.T) {
	ids := []string{timeline.HintBusyWait, timeline.HintPeriodicStall, timeline.HintGPUIdle,
		timeline.HintGPUImbalance, timeline.HintIdleMemoryHeld}
	rng := rand.New(rand.NewPCG(1, 2))
	dropped := 0
	for range 300 {
		cands := make([]frame.Cand, rng.IntN(40))
		for i := range cands {
			lo := rng.IntN(100)
			cands[i] = frame.Cand{ID: ids[rng.IntN(len(ids))], GPU: rng.IntN(5) - 1,
				Spans: []frame.Span{{Lo: lo, Hi: lo + 1 + rng.IntN(50)}}}
		}
		want := everyPairSuppress(cands)
		dropped += len(cands) - len(want)
		got := hintSuppress(cands)
		if !slices.EqualFunc(got, want, func(a, b frame.Cand) bool {
			return a.ID == b.ID && a.GPU == b.GPU && slices.Equal(a.Spans, b.Spans)
		}) {
			t.Fatalf("kept %v, every pair keeps %v", got, want)
		}
	}
	if dropped == 0 {
		t.Fatal("no candidate was dropped: the test sets nothing against anything")
	}
}

// everyPairSuppress is hintSuppress as it was: every candidate set against
// every other.
func everyPairSuppress(cands []frame.Cand) []frame.Cand {
	yields := map[string][]string{}
	for _, r := range hintRules {
		yields[r.ID] = r.YieldsTo
	}
	var out []frame.Cand
	for _, c := range cands {
		covered := false
		for _, d := range cands {
			if d.GPU == c.GPU && slices.Contains(yields[c.ID], d.ID) && frame.Covered(c.Spans, d.Hull()) >= 0.5 {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, c)
		}
	}
	return out
}
