package importer

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// Fuzz targets, one per parser and one through detection. Their seed corpora
// in testdata/fuzz/<Name>/ are slices of the telemetry logs and edge cases
// (UTF-16 with and without a byte order mark, UTF-8's mark, CRLF, absurd
// values, huge numbers, escape sequences in names and errors, a century's
// jump, a freeze), so that plain `go test` runs them. Any log may be
// refused; none may panic or run on, what it allocates is bounded by its
// size (timelinetest.FuzzBounded), and an accepted one must give samples in strictly
// increasing time on GPUs that its SourceInfo lists, without control
// characters in its names and notes.

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
		timelinetest.FuzzBounded(t, len(log), func() {
			res, err = Import(bytes.NewReader(log), Options{Format: format, Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		})
		if err != nil {
			if bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		checkResult(t, res)
		timelinetest.CheckClean(t, res.Info)
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
		for _, m := range s.Metrics() {
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
