package recordings

import (
	"fmt"
	"slices"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// A segment's keys and a record's processes are bounded (format.go), but a
// file of many segments could name new ones in each: 20 samples of 100,000
// never-seen keys (2.3 MB) took a report out of memory, and 120 of 16,384
// new process ids (3.2 MB) 1.75 GB. The reader bounds them over the whole
// file: past the bound, a new key's metrics and a new process's readings
// are left out, and a note counts what was.

// Bounds of a file in all (variables for tests, which reach them
// without writing a third of a million keys).
var (
	// maxFileKeys: what one session may have at once (format's bound of a
	// segment, 256 keys for each of 1,024 hosts); more in a file is
	// churn no session makes.
	maxFileKeys = format.MaxSegmentKeys
	// maxFilePIDs: processes (GPU and pid) a file may name, a busy
	// node's jobs for weeks.
	maxFilePIDs = 1 << 16
)

// fileTotals tracks the keys and processes a file has named so far.
type fileTotals struct {
	keys     map[timeline.Key]struct{}
	keysSeen int // the current segment's keys looked at
	// keysPast says a key came past maxFileKeys: from then on only the
	// keys in keys are within the bounds.
	keysPast bool
	pids     map[gpuPID]struct{}
	// metricsLeft and procsLeft count the readings left out.
	metricsLeft, procsLeft int
	// boundTo are the columns of boundFrom within the bounds, those at
	// kept. A key's verdict never changes: a list of keys is bounded once.
	boundFrom, boundTo *timeline.Columns
	kept               []int
}

// admit says whether k is within a file's bound of max: in set, or new
// while set has room for it, and then added (to a set made if need be).
func admit[K comparable](set *map[K]struct{}, k K, max int) bool {
	if _, ok := (*set)[k]; ok {
		return true
	}
	if len(*set) < max {
		if *set == nil {
			*set = make(map[K]struct{})
		}
		(*set)[k] = struct{}{}
		return true
	}
	return false
}

type gpuPID struct{ gpu, pid int }

// bound leaves out of s what is past the file's bounds: metrics of keys
// past maxFileKeys, processes past maxFilePIDs.
func (t *fileTotals) bound(s *timeline.Sample, d *format.Decoder) {
	for ; t.keysSeen < d.KeyCount(); t.keysSeen++ {
		if !admit(&t.keys, d.KeyAt(t.keysSeen), maxFileKeys) {
			t.keysPast = true
		}
	}
	if t.keysPast {
		if s.Columns != t.boundFrom {
			t.boundFrom = s.Columns
			// Within the bounds: one of the keys counted before they were full.
			t.boundTo, t.kept = s.Columns.Select(func(k timeline.Key) (timeline.Key, bool) {
				_, known := t.keys[k]
				return k, known
			})
		}
		n := s.Len()
		s.Columns, s.Values = t.boundTo, timeline.AppendKept(s.Values[:0], s.Values, t.kept)
		t.metricsLeft += n - s.Len()
	}
	if len(s.Processes) == 0 {
		return
	}
	n := len(s.Processes)
	s.Processes = slices.DeleteFunc(s.Processes, func(p timeline.Process) bool {
		return !admit(&t.pids, gpuPID{p.GPU, p.PID}, maxFilePIDs)
	})
	t.procsLeft += n - len(s.Processes)
}

// notes say what bound left out, one line each.
func (t *fileTotals) notes() []string {
	var out []string
	if t.metricsLeft > 0 {
		out = append(out, fmt.Sprintf("%s of keys past the %d a file may name left out", units.Count(t.metricsLeft, "reading"), maxFileKeys))
	}
	if t.procsLeft > 0 {
		out = append(out, fmt.Sprintf("%s of processes past the %d a file may name left out", units.Count(t.procsLeft, "reading"), maxFilePIDs))
	}
	return out
}
