package recordings

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/gputop-dev/gputop/timeline"
)

// A reader handed back each sample's metrics (Recycle) and statuses
// (RecycleProbes) reads the next ones into them: the same samples as a reader that allocates, over segments
// (whose names are decoded afresh), and no new metrics once it has some.
func TestReaderReadsIntoRecycledMetrics(t *testing.T) {
	want := samples(300, 4)
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var prev []timeline.Metric
	fresh := 0
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("read %d samples, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sameSample(t, i, want[i], s)
		if len(s.Metrics) > 0 && (prev == nil || &s.Metrics[0] != &prev[0]) {
			fresh++
		}
		// Scribbled over: the next sample must not show any of it.
		for j := range s.Metrics {
			s.Metrics[j] = timeline.Metric{Key: timeline.Key{Name: "x"}, Value: -1}
		}
		for j := range s.Probes {
			s.Probes[j] = timeline.ProbeStatus{Probe: "x", Device: "y", State: timeline.ProbeLost, Err: "z", Took: -1}
		}
		r.Recycle(s.Metrics)
		r.RecycleProbes(s.Probes)
		prev = s.Metrics
	}
	if fresh > 1 {
		t.Errorf("%d samples read into new metrics, want only the first", fresh)
	}
}

// A reader handed back each sample's metrics (Recycle) two samples late,
// as the report does, reads the same samples as a reader that allocates,
// over segments and a list of keys that changes within one.
func TestReaderReadsIntoMetricsHandedBackLate(t *testing.T) {
	want := samples(300, 4)
	for i := 150; i < len(want); i++ {
		want[i].Metrics = append(want[i].Metrics, timeline.Metric{Key: timeline.Key{Name: timeline.GPUTemp, Device: "gpu9"}, Value: 40})
	}
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var held []timeline.Sample
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("read %d samples, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sameSample(t, i, want[i], s)
		held = append(held, s)
		if len(held) > 2 {
			r.Recycle(held[0].Metrics)
			held = held[1:]
		}
	}
}

// Samples read one after another with the same keys have them in the same
// strings, so the Deriver that compares them checks pointers: within a
// segment always, and again from a new segment's second sample on (its
// names are decoded afresh).
func TestReaderReadsKeysInTheSameStrings(t *testing.T) {
	want := samples(300, 4)
	// A GPU found later: the keys change within a segment.
	for i := 150; i < len(want); i++ {
		want[i].Metrics = append(want[i].Metrics, timeline.Metric{Key: timeline.Key{Name: timeline.GPUTemp, Device: "gpu9"}, Value: 40})
	}
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var prev []timeline.Metric
	afresh := 0 // samples whose keys are those before in new strings
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		same := len(prev) == len(s.Metrics)
		for j := 0; same && j < len(s.Metrics); j++ {
			same = prev[j].Key == s.Metrics[j].Key
		}
		for j := 0; same && j < len(s.Metrics); j++ {
			a, b := prev[j].Key, s.Metrics[j].Key
			if unsafe.StringData(a.Name) != unsafe.StringData(b.Name) || unsafe.StringData(a.Device) != unsafe.StringData(b.Device) {
				afresh++
				break
			}
		}
		prev = slices.Clone(s.Metrics)
	}
	// Five segments of a minute: the first sample of each but the first.
	if segs := len(rec.segments); afresh != segs-1 {
		t.Errorf("%d samples with the keys before in new strings over %d segments, want %d", afresh, segs, segs-1)
	}
}
