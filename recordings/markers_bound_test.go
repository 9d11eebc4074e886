package recordings

import (
	"fmt"
	"io"
	"testing"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
)

// More markers on one sample than a sample may list (a job printing a
// million "Epoch N" lines; anyone of the user's on the marker socket) no
// longer stop the recording (issue 44): those past 16,384 ride on the next
// samples, and past what may wait, the summary counts those left out.
func TestRecorderSpreadsMarkersPastASamplesBound(t *testing.T) {
	ss := samples(8, 1)
	flood := func(n int) []timeline.Marker {
		out := make([]timeline.Marker, n)
		for i := range out {
			out[i] = timeline.Marker{At: ss[0].At, Text: fmt.Sprintf("Epoch %d", i), Origin: "job"}
		}
		return out
	}
	ss[0].Markers = flood(40_000)  // two samples' worth and more
	ss[4].Markers = flood(100_000) // more than may wait
	src := &scriptSource{samples: ss}
	var f memFile
	r := memRecorder(src, RecorderOptions{Version: "v-test"}, func() io.WriteCloser { return &f })
	if _, err := r.Start("flood.gtr"); err != nil {
		t.Fatal(err)
	}
	pull(t, r, len(ss))
	sum := stopped(t, r)
	if sum.Failed != nil || sum.Samples != len(ss) {
		t.Fatalf("summary %+v", sum)
	}
	got, err := readMem(t, f.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, s := range got {
		if len(s.Markers) > format.MaxListLen {
			t.Errorf("sample %d lists %d markers", i, len(s.Markers))
		}
		for _, m := range s.Markers {
			if m.At.After(s.At) {
				t.Fatalf("sample %d carries a marker of %v, after it", i, m.At)
			}
		}
		total += len(s.Markers)
	}
	// The first flood all written (16,384 × 3 > 40,000 by sample 3); of
	// the second, 16,384 on its sample and 65,536 waiting, of which three
	// samples take 49,152: the rest, and the 18,080 past what may wait,
	// are counted.
	if total+sum.MarkersLeft != 140_000 || sum.MarkersLeft != 100_000-4*format.MaxListLen {
		t.Errorf("%d markers written, %d counted left out", total, sum.MarkersLeft)
	}
}
