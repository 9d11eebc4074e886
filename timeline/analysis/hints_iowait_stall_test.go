package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// GPUs that wait on storage stall at the rhythm of their reads: a
// regular gap is the input's, not a checkpoint's, and io-wait names its
// cause, so periodic-stall yields to it as it does to input-bound. Found by
// the accuracy corpus (issue 43): 14 io-wait runs each drew a critical
// periodic-stall beside it.
func TestPeriodicStallYieldsToIOWait(t *testing.T) {
	// Each read takes 6 s, then the GPUs work 4 s on what came.
	hints := htRun(720, func(t *htTick) {
		u, sm, p := 0.0, 0.0, 90.0
		if t.sec%10 < 4 {
			u, sm, p = 95, 72, 560
		}
		htEvery8(func(i int) { t.h100(i, u, sm, p, 48*htGiB) })
		t.cores(htCoreSet(32, 12)...)
		t.put(timeline.HostIOWait, timeline.HostDevice, 24)
		t.put(timeline.HostDiskRead, timeline.HostDevice, 500e6)
		t.put(timeline.HostDiskWrite, timeline.HostDevice, 10e6)
	})
	if len(htFind(hints, timeline.HintIOWait)) == 0 {
		t.Fatalf("no io-wait:\n%s", htDump(hints))
	}
	if got := htFind(hints, timeline.HintPeriodicStall); len(got) > 0 {
		t.Errorf("periodic-stall beside io-wait:\n%s", htDump(got))
	}
}
