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

// A reader handed back each sample's metrics with their Layout
// (RecycleLayout) writes only the values where the next sample has that
// layout, and every key where it has another: the same samples as a reader
// that allocates, over segments and a layout that changes within one, with
// the metrics handed back two samples late, as the report does.
func TestReaderReadsValuesIntoMetricsOfTheirLayout(t *testing.T) {
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
			r.RecycleLayout(held[0].Metrics, held[0].Layout)
			held = held[1:]
		}
	}
}

// Samples read with the same Layout have the same keys in the same
// strings, so a Deriver may skip comparing them: within a segment whose
// layout stays, one Layout; a new segment (names decoded afresh) or a new
// layout, another.
func TestReaderNamesEachLayout(t *testing.T) {
	want := samples(300, 4)
	// A GPU found later: the layout changes within a segment.
	for i := 150; i < len(want); i++ {
		want[i].Metrics = append(want[i].Metrics, timeline.Metric{Key: timeline.Key{Name: timeline.GPUTemp, Device: "gpu9"}, Value: 40})
	}
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := map[uint64]timeline.Sample{} // each Layout's first sample
	layouts := 0
	var last uint64
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.Layout == 0 {
			t.Fatalf("sample %d read without a Layout", i)
		}
		if s.Layout != last {
			layouts++
			last = s.Layout
		}
		f, seen := first[s.Layout]
		if !seen {
			first[s.Layout] = timeline.Sample{Metrics: slices.Clone(s.Metrics)}
			continue
		}
		if len(f.Metrics) != len(s.Metrics) {
			t.Fatalf("sample %d: %d metrics with the Layout of %d", i, len(s.Metrics), len(f.Metrics))
		}
		for j := range s.Metrics {
			a, b := f.Metrics[j].Key, s.Metrics[j].Key
			if a != b || unsafe.StringData(a.Name) != unsafe.StringData(b.Name) || unsafe.StringData(a.Device) != unsafe.StringData(b.Device) {
				t.Fatalf("sample %d, metric %d: %v, not the %v of its Layout's first sample in the same strings", i, j, b, a)
			}
		}
	}
	// Five segments of a minute, one of them with the layout's change.
	if segs := len(rec.segments); layouts != segs+1 {
		t.Errorf("%d Layouts over %d segments and a layout change, want %d", layouts, segs, segs+1)
	}
}
