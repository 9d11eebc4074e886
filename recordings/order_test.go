package recordings

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Two intact segments swapped in a file without its index (issue 44: one
// was lost, and the reader said nothing) are read in the order they were
// written, by their sequence numbers: every sample, and a note says so.
func TestSwappedSegmentsReadInTheOrderWritten(t *testing.T) {
	f := newDamageFile(t)
	d := f.data[:f.indexAt] // no index: the segments are found by scanning
	s1, s2, s3 := f.segments[1], f.segments[2], f.segments[3]
	swapped := slices.Concat(d[:s1], d[s2:s3], d[s1:s2], d[s3:])
	got, err := readMem(t, swapped)
	if len(got) != len(f.samples) {
		t.Fatalf("%d samples read of %d: %v", len(got), len(f.samples), err)
	}
	for i := range got {
		if !got[i].At.Equal(f.samples[i].At) {
			t.Fatalf("sample %d at %v, want %v", i, got[i].At, f.samples[i].At)
		}
	}
	var damaged *DamagedError
	if !errors.As(err, &damaged) || !strings.Contains(err.Error(), "segments out of order in the file: read in the order written") {
		t.Errorf("err = %v", err)
	}
}

// A clock that stepped back while recording: the samples at or before the
// one before them are left out, as the analysis and the screen leave them
// out, and the reader says how many and where (issue 44: 3,601 were
// dropped with no note).
func TestClockStepBackIsNoted(t *testing.T) {
	ss := samples(90, 1)
	// From the 61st on, the clock is 30 s behind: the 30 samples left
	// repeat times already passed.
	for i := 60; i < 90; i++ {
		ss[i].At = ss[i].At.Add(-30 * time.Second)
	}
	rec := writeMem(t, ss, time.Minute)
	got, err := readMem(t, rec.data)
	if len(got) != 60 {
		t.Errorf("%d samples read, want 60", len(got))
	}
	for i := 1; i < len(got); i++ {
		if !got[i].At.After(got[i-1].At) {
			t.Fatalf("sample %d at %v, not after %v", i, got[i].At, got[i-1].At)
		}
	}
	want := "mem.gtr: 30 samples at or before the one before left out (the clock went back: " +
		ss[60].At.UTC().Format("2006-01-02 15:04:05") + " came after " + ss[59].At.UTC().Format("2006-01-02 15:04:05") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// Samples closer together than any source takes them (30 million a
// microsecond apart, in 482 KB, took a report 79 s): those less than 1 ms
// after the one kept before are left out, and a note counts them.
func TestCrowdedSamplesLeftOut(t *testing.T) {
	ss := samples(40, 1)
	for i := range ss {
		ss[i].At = ss[0].At.Add(time.Duration(i) * 100 * time.Microsecond)
	}
	rec := writeMem(t, ss, time.Minute)
	got, err := readMem(t, rec.data)
	if len(got) != 4 { // 0, 1, 2 and 3 ms
		t.Errorf("%d samples read, want 4", len(got))
	}
	if err == nil || err.Error() != "mem.gtr: 36 samples less than 1ms after the one before left out" {
		t.Errorf("err = %v", err)
	}
}

// A file naming more keys, or processes, in all than any session does
// (issue 44: 20 samples of 100,000 new keys took a report out of memory;
// 120 of 16,384 new process ids, 1.75 GB): the readings past the bounds
// are left out, and the reader says how many.
func TestFileTotalsBounded(t *testing.T) {
	keys, pids := maxFileKeys, maxFilePIDs
	maxFileKeys, maxFilePIDs = 1000, 500
	t.Cleanup(func() { maxFileKeys, maxFilePIDs = keys, pids })
	const perSample, procsPer = 300, 100
	ss := samples(6, 0)
	for i := range ss {
		var ms []timeline.Metric
		for k := range perSample {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: "x.y", Device: fmt.Sprintf("d%d-%d", i, k)}, Value: 1})
		}
		ss[i].SetMetrics(ms)
		for p := range procsPer {
			ss[i].Processes = append(ss[i].Processes, timeline.Process{GPU: 0, PID: i*procsPer + p + 1, User: "u", Command: "c",
				GPUMem: math.NaN(), Util: math.NaN(), CPU: math.NaN(), RSS: math.NaN()})
		}
	}
	rec := writeMem(t, ss, time.Minute)
	got, err := readMem(t, rec.data)
	if len(got) != len(ss) {
		t.Fatalf("%d samples read", len(got))
	}
	kept, procs := 0, 0
	for _, s := range got {
		kept += s.Len()
		procs += len(s.Processes)
	}
	if kept != maxFileKeys || procs != maxFilePIDs {
		t.Errorf("%d readings of keys and %d of processes kept, want %d and %d", kept, procs, maxFileKeys, maxFilePIDs)
	}
	want := fmt.Sprintf("mem.gtr: %d readings of keys past the 1000 a file may name left out; %d readings of processes past the 500 a file may name left out",
		6*perSample-maxFileKeys, 6*procsPer-maxFilePIDs)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
