package prom

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The bounds and checks of the importer's fuzz targets (its fuzz_test.go,
// which a package's tests cannot share), for the Prometheus answers.

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

// FuzzPrometheusAnswers feeds saved Prometheus answers (seeds: the files of
// testdata/prometheus and edge cases) to Read: any input may be
// refused in one line; none may panic, and an accepted one gives samples
// in strictly increasing time on GPUs its SourceInfo lists.
func FuzzPrometheusAnswers(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		var res *Result
		var err error
		var samples []timeline.Sample
		fuzzBounded(t, len(in), func() {
			if res, err = Read(bytes.NewReader(in), "fuzz.json"); err != nil {
				return
			}
			err = res.Each(func(s *timeline.Sample) error {
				c := *s
				c.Metrics = append([]timeline.Metric(nil), s.Metrics...)
				samples = append(samples, c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		if err != nil {
			if bytes.ContainsRune([]byte(err.Error()), '\n') || err.Error() != timeline.CleanText(err.Error()) {
				t.Errorf("error spans lines or keeps control characters: %q", err)
			}
			return
		}
		checkClean(t, res.Info)
		for _, s := range samples {
			for _, m := range s.Markers {
				if m.Text != timeline.CleanText(m.Text) || len(m.Text) > 200+len("…") || m.At.After(s.At) {
					t.Fatalf("marker %q at %v on the sample at %v: unclean, too long or after it", m.Text, m.At, s.At)
				}
			}
		}
		if len(samples) == 0 || len(samples) != res.Samples {
			t.Fatalf("%d samples, Samples says %d", len(samples), res.Samples)
		}
		checkPromSamples(t, res, samples)
	})
}
