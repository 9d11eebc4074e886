package format

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestProcessDetailsOnlyWhereThereAreSome: a list with neither a start nor
// a workload is written as before the details existed.
func TestProcessDetailsOnlyWhereThereAreSome(t *testing.T) {
	nan := math.NaN()
	procs := []timeline.Process{{GPU: 0, PID: 2, GPUMem: nan, Util: nan, CPU: nan, RSS: nan}}

	var enc Encoder
	bare := enc.appendProcesses(nil, procs)
	withNone := appendProcessDetails(append([]byte(nil), bare...), procs)
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
		readProcessDetails(&cursor{b: full[:cut]}, out, &Decoder{})
		if !out[0].Started.IsZero() || !out[0].Workload.IsZero() {
			t.Errorf("cut at %d: read %+v from torn details", cut, out[0])
		}
	}
	out := []timeline.Process{{GPU: 0, PID: 1}}
	readProcessDetails(&cursor{b: full}, out, &Decoder{})
	if out[0].Started.UnixNano() != 100e9 || out[0].Workload.Pod != "abc" {
		t.Errorf("whole details read as %+v", out[0])
	}
}
