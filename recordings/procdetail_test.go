package recordings

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestProcessDetailsRoundTrip: a list where some processes have a start or
// a workload and others none reads back as written; a list with none is
// written as before the details existed.
func TestProcessDetailsRoundTrip(t *testing.T) {
	ss := samples(3, 1)
	nan := math.NaN()
	started := time.Unix(0, time.Date(2026, 11, 25, 4, 0, 0, 123e6, time.UTC).UnixNano())
	ss[0].Processes = []timeline.Process{
		{GPU: 0, PID: 1, GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan, Started: started},
		{GPU: 0, PID: 2, GPUMem: nan, Util: nan, CPU: nan, RSS: nan},
		{GPU: 0, PID: 3, GPUMem: 2 << 30, Util: 50, CPU: 10, RSS: 1 << 20,
			Workload: &timeline.Workload{Job: "123", Step: "batch"}},
		{GPU: 0, PID: 4, GPUMem: 2 << 30, Util: 50, CPU: 10, RSS: 1 << 20, Started: started,
			Workload: &timeline.Workload{Runtime: "docker", Container: "5dace3de0735"}},
	}
	ss[1].Processes = []timeline.Process{{GPU: 0, PID: 2, GPUMem: nan, Util: nan, CPU: nan, RSS: nan}}
	rec := writeMem(t, ss, time.Minute)
	got, err := readMem(t, rec.data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		sameSample(t, i, ss[i], got[i])
	}

	var enc segmentEncoder
	bare := enc.appendProcesses(nil, ss[1].Processes)
	withNone := appendProcessDetails(append([]byte(nil), bare...), ss[1].Processes)
	if len(withNone) != len(bare) {
		t.Errorf("a list without details grew by %d bytes", len(withNone)-len(bare))
	}
}

// TestProcessDetailsTorn: details cut short are dropped, the processes stand.
func TestProcessDetailsTorn(t *testing.T) {
	procs := []timeline.Process{{GPU: 0, PID: 1, Started: time.Unix(100, 0), Workload: &timeline.Workload{Pod: "abc"}}}
	full := appendProcessDetails(nil, procs)
	for cut := 1; cut < len(full); cut++ {
		out := []timeline.Process{{GPU: 0, PID: 1}}
		readProcessDetails(&cursor{b: full[:cut]}, out)
		if !out[0].Started.IsZero() || !out[0].Workload.IsZero() {
			t.Errorf("cut at %d: read %+v from torn details", cut, out[0])
		}
	}
	out := []timeline.Process{{GPU: 0, PID: 1}}
	readProcessDetails(&cursor{b: full}, out)
	if out[0].Started.UnixNano() != 100e9 || out[0].Workload.Pod != "abc" {
		t.Errorf("whole details read as %+v", out[0])
	}
}
