package analysis_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// On --demo=allocated, the live screen names both idle allocations firmly
// within allocated-idle's window (5 min) plus 30 s, each episode naming its
// holder and its GPU, and says no gpu-imbalance or gpu-idle of them.
func TestAllocatedIdleOnTheDemo(t *testing.T) {
	samples, info := hxRecordDemo(t, "allocated", 1, 6*time.Minute)
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
		since := samples[i].At.Sub(samples[0].At)
		if i%5 != 0 && i != len(samples)-1 {
			continue
		}
		hints := e.Hints(samples[i].At)
		k := slices.IndexFunc(hints, func(h timeline.Hint) bool { return h.ID == timeline.HintAllocatedIdle })
		if k < 0 || hints[k].Provisional {
			if since > 5*time.Minute+30*time.Second {
				t.Fatalf("%v in, no firm allocated-idle:\n%s", since, hxDump(hints))
			}
			continue
		}
		h := hints[k]
		t.Logf("firm %v in: %s", since, h.Evidence)
		if !slices.Equal(h.GPUs, []int{6, 7}) || h.Severity != timeline.Warning || len(h.Episodes) != 2 {
			t.Fatalf("want a warning of two episodes on GPU6-7:\n%s", hxDump(hints))
		}
		for _, ep := range h.Episodes {
			want := map[int]string{6: "GPU6 allocated to pod team-b/notebook-bob (jupyter), no process on it",
				7: "GPU7 allocated to Slurm job 4250 (carol, gpu), no process on it"}[ep.GPUs[0]]
			if len(ep.GPUs) != 1 || want == "" || !strings.Contains(ep.Evidence, want) {
				t.Errorf("episode on %v: %s; want %q", ep.GPUs, ep.Evidence, want)
			}
		}
		for _, o := range hints {
			if (o.ID == timeline.HintGPUImbalance || o.ID == timeline.HintGPUIdle) &&
				(slices.Contains(o.GPUs, 6) || slices.Contains(o.GPUs, 7)) {
				t.Errorf("%s names an allocated GPU:\n%s", o.ID, hxDump(hints))
			}
		}
		return
	}
	t.Fatal("no firm allocated-idle")
}
