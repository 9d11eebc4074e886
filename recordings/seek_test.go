package recordings

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// checkSeeks seeks r to every quarter second from before the first
// sample to after the last good one, and checks that Read returns the
// first sample at or after that time, or the end.
func checkSeeks(t *testing.T, r *Reader, good []timeline.Sample, end func(error) bool) {
	t.Helper()
	from := good[0].At.Add(-2 * time.Second)
	to := good[len(good)-1].At.Add(2 * time.Second)
	for at := from; at.Before(to); at = at.Add(250 * time.Millisecond) {
		if err := r.SeekTime(at); err != nil {
			t.Fatal(err)
		}
		s, err := r.Read()
		want := -1
		for i := range good {
			if !good[i].At.Before(at) {
				want = i
				break
			}
		}
		if want < 0 {
			if !end(err) {
				t.Fatalf("seek to %v (after the last sample): got %v, %v", at, s.At, err)
			}
			continue
		}
		if err != nil || !s.At.Equal(good[want].At) {
			t.Fatalf("seek to %v: got %v, %v; want sample %d at %v", at, s.At, err, want, good[want].At)
		}
		sameSample(t, want, good[want], s)
		// Reading on continues in order.
		if want+1 < len(good) {
			if s, err := r.Read(); err != nil || !s.At.Equal(good[want+1].At) {
				t.Fatalf("after seek to %v: next is %v, %v; want %v", at, s.At, err, good[want+1].At)
			}
		}
	}
}

func TestSeekTime(t *testing.T) {
	ss := samples(100, 1)
	rec := writeMem(t, ss, 15*time.Second)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.indexed || len(r.segments) < 5 {
		t.Fatalf("want an indexed file of many segments; indexed %v, %d segments", r.indexed, len(r.segments))
	}
	checkSeeks(t, r, ss, func(err error) bool { return errors.Is(err, io.EOF) })
}

// A torn file has no index: seeks find segments by scanning for them, and a
// seek past the last good sample meets the damage.
func TestSeekTimeInTornFile(t *testing.T) {
	ss := samples(100, 1)
	rec := writeMem(t, ss, 15*time.Second)
	cut := rec.ends[70] + 7
	r, err := openMem(rec.data[:cut])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.indexed {
		t.Fatal("a torn file read as indexed")
	}
	checkSeeks(t, r, ss[:71], func(err error) bool {
		var de *DamagedError
		return errors.As(err, &de)
	})
}

func TestSeekAfterEndReadsAgain(t *testing.T) {
	ss := samples(30, 1)
	rec := writeMem(t, ss, 10*time.Second)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := drain(r); err != nil || len(got) != len(ss) {
		t.Fatalf("first pass: %d samples, %v", len(got), err)
	}
	if err := r.SeekTime(ss[0].At); err != nil {
		t.Fatal(err)
	}
	if got, err := drain(r); err != nil || len(got) != len(ss) {
		t.Fatalf("after seeking back to the start: %d samples, %v", len(got), err)
	}
}
