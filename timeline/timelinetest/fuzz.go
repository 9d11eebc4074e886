package timelinetest

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Bounds of one fuzz input's work, for every importer's fuzz target: bytes
// allocated at most FuzzAllocPerByte per input byte and FuzzAllocFixed besides (the readers' 64 KiB blocks,
// the tables' first slices), and an end within FuzzDeadline (a hang guard:
// a parser takes milliseconds). Measured: the seeds allocate 130-230 KiB
// besides; the densest inputs, 39 bytes per byte (a CSV of 13-byte lines,
// each a row, a value and, for Import, a sample, every slice grown by
// doubling) and 44 (a Prometheus answer of 20,000 one-point series, each
// with its labels).
const (
	FuzzAllocPerByte = 256
	FuzzAllocFixed   = 4 << 20
	FuzzDeadline     = time.Minute
)

// FuzzBounded runs body on an input of size bytes and fails if it
// allocates more than the bounds allow; a body that never ends panics
// after FuzzDeadline, which the fuzzer reports as a crash with its input.
func FuzzBounded(t *testing.T, size int, body func()) {
	t.Helper()
	watchdog := time.AfterFunc(FuzzDeadline, func() { panic(fmt.Sprintf("an input of %d bytes ran for %v", size, FuzzDeadline)) })
	defer watchdog.Stop()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	body()
	runtime.ReadMemStats(&after)
	if grew, most := after.TotalAlloc-before.TotalAlloc, uint64(FuzzAllocPerByte*size+FuzzAllocFixed); grew > most {
		t.Fatalf("an input of %d bytes allocated %d bytes, more than %d", size, grew, most)
	}
}

// CheckClean fails if outside text reached a name or a note with control
// characters left in it.
func CheckClean(t testing.TB, info timeline.SourceInfo) {
	t.Helper()
	texts := append([]string{info.Origin, info.Host}, info.Notes...)
	for _, g := range info.GPUs {
		texts = append(texts, g.Name, g.UUID, g.PCIBusID, g.Host)
	}
	for _, h := range info.Hosts {
		texts = append(texts, h.Name, h.Driver, h.CUDA)
	}
	for _, s := range texts {
		if s != timeline.CleanText(s) {
			t.Fatalf("%q keeps control characters", s)
		}
	}
}
