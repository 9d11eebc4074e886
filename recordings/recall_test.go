package recordings

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A Recaller reads back the stretch asked for and the sample before it,
// across segments, in a file cut short too, and stops when told.
func TestRecallReadsTheStretchAndTheSampleBefore(t *testing.T) {
	ss := samples(900, 2)
	rec := writeMem(t, ss, time.Minute)
	if len(rec.segments) < 10 {
		t.Fatalf("%d segments: the test wants many", len(rec.segments))
	}
	dir := t.TempDir()
	whole, cut := filepath.Join(dir, "whole.gtr"), filepath.Join(dir, "cut.gtr")
	if err := os.WriteFile(whole, rec.data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, rec.data[:rec.ends[500]+7], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		path     string
		from, to time.Time
		stop     int // add says stop after this many (0: never)
		want     [2]int
	}{
		{"a stretch", whole, ss[300].At, ss[400].At, 0, [2]int{299, 400}},
		{"from a segment's first sample", whole, ss[rec.firstOf(3)].At, ss[rec.firstOf(3)+5].At, 0, [2]int{rec.firstOf(3) - 1, rec.firstOf(3) + 5}},
		{"from before the first sample", whole, ss[0].At.Add(-time.Hour), ss[10].At, 0, [2]int{0, 10}},
		{"between two samples", whole, ss[20].At.Add(time.Millisecond), ss[30].At.Add(-time.Millisecond), 0, [2]int{20, 29}},
		{"past the end", whole, ss[890].At, ss[899].At.Add(time.Hour), 0, [2]int{889, 899}},
		{"told to stop", whole, ss[300].At, ss[400].At, 5, [2]int{299, 303}},
		{"to where the file is cut", cut, ss[450].At, ss[700].At, 0, [2]int{449, 500}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := recallerOf(t, c.path)
			for range 2 { // and again, on the reader it opened
				var got []time.Time
				err := rc.Recall(c.from, c.to, func(s *timeline.Sample) bool {
					got = append(got, s.At)
					return c.stop == 0 || len(got) < c.stop
				})
				if err != nil {
					t.Fatal(err)
				}
				if n := c.want[1] - c.want[0] + 1; len(got) != n || !got[0].Equal(ss[c.want[0]].At) || !got[n-1].Equal(ss[c.want[1]].At) {
					t.Fatalf("read back %d samples (%v to %v), want %d (%v to %v)", len(got), first(got), last(got),
						n, ss[c.want[0]].At, ss[c.want[1]].At)
				}
				// A replay reads back now and then: between stretches
				// the Recaller holds no segment and no zstd window.
				if r := rc.r; r.data != nil || r.comp != nil || r.zdec != nil {
					t.Fatal("the Recaller holds its last segment between stretches")
				}
			}
		})
	}
}

// A recording written over the replayed one's path while it plays does
// not change what is read back: the Recaller reads the file opened.
func TestRecallReadsTheFileOpened(t *testing.T) {
	ss := samples(300, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.gtr")
	if err := os.WriteFile(path, writeMem(t, ss, time.Minute).data, 0o644); err != nil {
		t.Fatal(err)
	}
	rc := recallerOf(t, path)
	other := samples(300, 2)
	for i := range other {
		other[i].At = other[i].At.Add(time.Hour)
	}
	tmp := filepath.Join(dir, "new.gtr")
	if err := os.WriteFile(tmp, writeMem(t, other, time.Minute).data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := rc.Recall(ss[100].At, ss[110].At, func(s *timeline.Sample) bool {
		if !s.At.Equal(ss[99+n].At) {
			t.Fatalf("read back %v, want %v: the new file's?", s.At, ss[99+n].At)
		}
		n++
		return true
	})
	if err != nil || n != 12 {
		t.Fatalf("read back %d samples (%v), want 12", n, err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Recall(ss[100].At, ss[110].At, func(*timeline.Sample) bool { return true }); err == nil {
		t.Error("a closed Recaller read back without an error")
	}
}

// recallerOf opens path as a replay would: a reader, and a Recaller on a
// second reader of the same file, both closed when the test ends.
func recallerOf(t *testing.T, path string) *Recaller {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := r.Recaller()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rc.Close()
		r.Close()
	})
	return rc
}

// firstOf is the index of segment i's first sample, at 1 s a sample.
func (r memRecording) firstOf(i int) int {
	for k, end := range r.ends {
		if end > r.segments[i] {
			return k
		}
	}
	return -1
}

func first(ts []time.Time) time.Time {
	if len(ts) == 0 {
		return time.Time{}
	}
	return ts[0]
}

func last(ts []time.Time) time.Time {
	if len(ts) == 0 {
		return time.Time{}
	}
	return ts[len(ts)-1]
}
