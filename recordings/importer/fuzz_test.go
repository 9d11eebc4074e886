package importer

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Fuzz targets, one per parser and one through detection. Their seed corpora
// in testdata/fuzz/<Name>/ are slices of the telemetry logs and edge cases
// (UTF-16 with and without a byte order mark, UTF-8's mark, CRLF, absurd
// values, huge numbers, escape sequences in names and errors, a century's
// jump, a freeze), so that plain `go test` runs them. Any log may be
// refused; none may panic or run on, what it allocates is bounded by its
// size (fuzzBounded), and an accepted one must give samples in strictly
// increasing time on GPUs that its SourceInfo lists, without control
// characters in its names and notes.

// Bounds of one fuzz input's work: bytes allocated at most fuzzAllocPerByte
// per input byte and fuzzAllocFixed besides (the readers' 64 KiB blocks,
// the tables' first slices), and an end within fuzzDeadline (a hang guard:
// a parser takes milliseconds). Measured: the seeds allocate 130-230 KiB
// besides; the densest inputs, 39 bytes per byte (a CSV of 13-byte lines,
// each a row, a value and, for Import, a sample, every slice grown by
// doubling) and 44 (a Prometheus answer of 20,000 one-point series, each
// with its labels).
const (
	fuzzAllocPerByte = 256
	fuzzAllocFixed   = 4 << 20
	fuzzDeadline     = time.Minute
)

// fuzzBounded runs body on an input of size bytes and fails if it
// allocates more than the bounds allow; a body that never ends panics
// after fuzzDeadline, which the fuzzer reports as a crash with its input.
func fuzzBounded(t *testing.T, size int, body func()) {
	t.Helper()
	watchdog := time.AfterFunc(fuzzDeadline, func() { panic(fmt.Sprintf("an input of %d bytes ran for %v", size, fuzzDeadline)) })
	defer watchdog.Stop()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	body()
	runtime.ReadMemStats(&after)
	if grew, most := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocPerByte*size+fuzzAllocFixed); grew > most {
		t.Fatalf("an input of %d bytes allocated %d bytes, more than %d", size, grew, most)
	}
}

// checkClean fails if outside text reached a name or a note with control
// characters left in it.
func checkClean(t testing.TB, info timeline.SourceInfo) {
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

func FuzzNvidiaSMI(f *testing.F) { fuzzFormat(f, NvidiaSMICSV) }
func FuzzDmon(f *testing.F)      { fuzzFormat(f, Dmon) }
func FuzzDCGMI(f *testing.F)     { fuzzFormat(f, DcgmiCSV) }
func FuzzImportAuto(f *testing.F) {
	fuzzFormat(f, Auto)
}

func fuzzFormat(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, log []byte) {
		var res *Result
		var err error
		fuzzBounded(t, len(log), func() {
			res, err = Import(bytes.NewReader(log), Options{Format: format, Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		})
		if err != nil {
			if bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		checkResult(t, res)
		checkClean(t, res.Info)
	})
}

// checkResult checks what every Result promises.
func checkResult(t testing.TB, res *Result) {
	t.Helper()
	if len(res.Samples) == 0 {
		t.Fatal("a result without samples")
	}
	gpus := map[string]bool{}
	for i, g := range res.Info.GPUs {
		if i > 0 && g.Index <= res.Info.GPUs[i-1].Index {
			t.Fatalf("GPUs not in index order: %+v", res.Info.GPUs)
		}
		gpus[timeline.GPUDevice(g.Index)] = true
	}
	for i, s := range res.Samples {
		if i > 0 && !s.At.After(res.Samples[i-1].At) {
			t.Fatalf("sample %d at %v, not after %v", i, s.At, res.Samples[i-1].At)
		}
		seen := map[timeline.Key]bool{}
		for _, m := range s.Metrics {
			if !gpus[m.Key.Device] {
				t.Fatalf("sample %d has %v, a device not in SourceInfo", i, m.Key)
			}
			if seen[m.Key] {
				t.Fatalf("sample %d has %v twice", i, m.Key)
			}
			seen[m.Key] = true
			if math.IsInf(m.Value, 0) {
				t.Fatalf("sample %d: %v is infinite", i, m.Key)
			}
		}
	}
}
