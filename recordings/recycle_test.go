package recordings

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A reader handed back each sample's values (Recycle) and statuses
// (RecycleProbes) reads the next ones into them: the same samples as a reader that allocates, over segments
// (whose names are decoded afresh), and no new values once it has some.
// Every sample of one list of keys has the same columns, over segments too.
func TestReaderReadsIntoRecycledValues(t *testing.T) {
	want := samples(300, 4)
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var prev []float64
	fresh := 0
	columns := map[*timeline.Columns]bool{}
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
		if s.Len() > 0 && (prev == nil || &s.Values[0] != &prev[0]) {
			fresh++
		}
		columns[s.Columns] = true
		// Scribbled over: the next sample must not show any of it.
		for j := range s.Values {
			s.Values[j] = -1
		}
		for j := range s.Probes {
			s.Probes[j] = timeline.ProbeStatus{Probe: "x", Device: "y", State: timeline.ProbeLost, Err: "z", Took: -1}
		}
		r.Recycle(s.Values)
		r.RecycleProbes(s.Probes)
		prev = s.Values
	}
	if fresh > 1 {
		t.Errorf("%d samples read into new values, want only the first", fresh)
	}
	if len(columns) != 1 {
		t.Errorf("samples of one list of keys read in %d columns, want one", len(columns))
	}
}

// A reader handed back each sample's metrics (Recycle) two samples late,
// as the report does, reads the same samples as a reader that allocates,
// over segments and a list of keys that changes within one.
func TestReaderReadsIntoMetricsHandedBackLate(t *testing.T) {
	want := samples(300, 4)
	for i := 150; i < len(want); i++ {
		want[i].SetMetrics(append(want[i].Metrics(), timeline.Metric{Key: timeline.Key{Name: timeline.GPUTemp, Device: "gpu9"}, Value: 40}))
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
			r.Recycle(held[0].Values)
			held = held[1:]
		}
	}
}

// Samples read one after another with the same keys have the same
// columns, so a stage downstream knows them by a pointer check: within a
// segment, and over segments, whose names are decoded afresh.
func TestReaderGivesOneListOfKeysOneColumns(t *testing.T) {
	want := samples(300, 4)
	// A GPU found later: the keys change within a segment.
	for i := 150; i < len(want); i++ {
		want[i].SetMetrics(append(want[i].Metrics(), timeline.Metric{Key: timeline.Key{Name: timeline.GPUTemp, Device: "gpu9"}, Value: 40}))
	}
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var prev *timeline.Columns
	changes := 0
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sameSample(t, i, want[i], s)
		if i > 0 && s.Columns != prev {
			changes++
		}
		prev = s.Columns
	}
	if segs := len(rec.segments); segs < 4 || changes != 1 {
		t.Errorf("the columns changed %d times over %d segments, want once (the GPU found later)", changes, segs)
	}
}
