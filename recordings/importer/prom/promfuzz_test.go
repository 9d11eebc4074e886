package prom

import (
	"bytes"
	"slices"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The bounds and checks of the importer's fuzz targets (its fuzz_test.go,
// which a package's tests cannot share), for the Prometheus answers.

// FuzzPrometheusAnswers feeds saved Prometheus answers (seeds: the files of
// testdata/prometheus and edge cases) to Read: any input may be
// refused in one line; none may panic, and an accepted one gives samples
// in strictly increasing time on GPUs its SourceInfo lists.
func FuzzPrometheusAnswers(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		var res *Result
		var err error
		var samples []timeline.Sample
		timelinetest.FuzzBounded(t, len(in), func() {
			if res, err = Read(bytes.NewReader(in), "fuzz.json"); err != nil {
				return
			}
			err = res.Each(func(s *timeline.Sample) error {
				c := *s
				c.Values = slices.Clone(s.Values)
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
		timelinetest.CheckClean(t, res.Info)
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
