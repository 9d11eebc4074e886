package recordings

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestProcessDetailsRoundTrip: a list where some processes have a start or
// a workload and others none reads back as written (a list with none is
// written as before the details existed: recordings/format's
// TestProcessDetailsOnlyWhereThereAreSome).
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

}
