package recordings

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// wantDamaged checks that err is a *DamagedError whose Good is good.
func wantDamaged(t *testing.T, what string, err error, good time.Time) {
	t.Helper()
	var de *DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("%s: error %v, want a *DamagedError", what, err)
	}
	if !de.Good.Equal(good) {
		t.Fatalf("%s: good up to %v, want %v", what, de.Good, good)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("%s: message is more than one line: %q", what, err)
	}
}

// A file cut at any byte of its last segment (a kill -9, a full disk)
// replays every sample flushed before the cut, then says it was cut short.
func TestTornTailAtEveryByte(t *testing.T) {
	ss := samples(45, 1) // segments of 20, 20 and 5 samples
	rec := writeMem(t, ss, 20*time.Second)
	if len(rec.segments) < 3 {
		t.Fatalf("want several segments, got %d", len(rec.segments))
	}
	for cut := rec.segments[len(rec.segments)-1]; cut < int64(len(rec.data)); cut++ {
		got, err := readMem(t, rec.data[:cut])
		want := 0
		for want < len(rec.ends) && rec.ends[want] <= cut {
			want++
		}
		if len(got) != want {
			t.Fatalf("cut at %d of %d: read %d samples, want %d", cut, len(rec.data), len(got), want)
		}
		for i := range got {
			sameSample(t, i, ss[i], got[i])
		}
		wantDamaged(t, fmt.Sprintf("cut at %d", cut), err, ss[want-1].At)
		// What a cut file lost is said in time; a byte offset (where its
		// last segment starts) would read as if all after it were gone.
		if msg := err.Error(); strings.Contains(msg, "byte") || !strings.Contains(msg, "read up to") {
			t.Fatalf("cut at %d: %q; want the time read up to and no byte offset", cut, msg)
		}
	}
	got, err := readMem(t, rec.data)
	if err != nil || len(got) != len(ss) {
		t.Fatalf("whole file: %d samples, %v", len(got), err)
	}
}

// Bytes changed in the last segment (a bad disk block) never come back as
// wrong samples: reading stops before them with a DamagedError.
func TestDamagedTail(t *testing.T) {
	ss := samples(45, 1)
	rec := writeMem(t, ss, 20*time.Second)
	indexAt := rec.ends[len(rec.ends)-1]
	for at := rec.segments[len(rec.segments)-1]; at < indexAt; at += 3 {
		data := append([]byte(nil), rec.data...)
		data[at] ^= 0x5a
		got, err := readMem(t, data)
		for i := range got {
			sameSample(t, i, ss[i], got[i])
		}
		if err == nil && len(got) == len(ss) {
			continue // a byte nothing depends on: the data is still right
		}
		var de *DamagedError
		if !errors.As(err, &de) {
			t.Fatalf("byte %d changed: %d samples, then %v; want a *DamagedError", at, len(got), err)
		}
		if strings.HasPrefix(de.Reason, "damaged") && !strings.Contains(err.Error(), " at byte ") {
			t.Fatalf("byte %d changed: %q; want where the damage starts", at, err)
		}
	}
}

// A file cut right after its header (gputop killed before the first
// flush) opens, has no span, and says so.
func TestCutAfterHeader(t *testing.T) {
	rec := writeMem(t, samples(5, 1), time.Minute)
	r, err := openMem(rec.data[:rec.segments[0]])
	if err != nil {
		t.Fatal(err)
	}
	if first, last := r.Span(); !first.IsZero() || !last.IsZero() {
		t.Errorf("Span() = %v, %v; want zero times", first, last)
	}
	got, err := drain(r)
	if len(got) != 0 {
		t.Errorf("read %d samples from a file with none", len(got))
	}
	wantDamaged(t, "cut after the header", err, time.Time{})
}

// A file cut inside its header is reported damaged when opened, at every
// length.
func TestCutInsideHeader(t *testing.T) {
	rec := writeMem(t, samples(5, 1), time.Minute)
	for cut := 1; cut < int(rec.segments[0]); cut++ {
		_, err := openMem(rec.data[:cut])
		var de *DamagedError
		if !errors.As(err, &de) {
			t.Fatalf("cut at %d: %v, want a *DamagedError", cut, err)
		}
	}
}

// Span of a torn file comes from scanning it, and ends at the last good
// sample.
func TestSpanOfTornFile(t *testing.T) {
	ss := samples(60, 1)
	rec := writeMem(t, ss, 20*time.Second)
	cut := rec.ends[44] + 5
	r, err := openMem(rec.data[:cut])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, last := r.Span()
	if !first.Equal(ss[0].At) || !last.Equal(ss[44].At) {
		t.Errorf("Span() = %v, %v; want %v, %v", first, last, ss[0].At, ss[44].At)
	}
	if s, err := r.Read(); err != nil || !s.At.Equal(ss[0].At) {
		t.Errorf("after Span, Read() = %v, %v; want the first sample", s.At, err)
	}
}
