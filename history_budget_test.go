package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// --memory reads sizes as top and sort do; a size outside what a screen's
// history can sensibly take is a usage error.
func TestHistoryBudgetSizes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"256MiB", 256 << 20, true},
		{"1GiB", 1 << 30, true},
		{"512M", 512 << 20, true},
		{"2G", 2 << 30, true},
		{"100MB", 100e6, true},
		{"1.5GiB", 3 << 29, true},
		{"16MiB", 16 << 20, true},
		{"15MiB", 0, false},
		{"65GiB", 0, false},
		{"NaNMiB", 0, false},
		{"-1G", 0, false},
		{"256", 0, false},
		{"MiB", 0, false},
	} {
		got, err := parseHistoryBudget(tt.in)
		if (err == nil) != tt.ok || tt.ok && got != tt.want {
			t.Errorf("--memory %q: %d, %v; want %d (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if d, err := parseHistoryBudget(""); err != nil || d < 32<<20 || d > 128<<20 {
		t.Errorf("the default budget is %d (%v), want 32-128 MiB", d, err)
	}
}

// A live screen recording with --record from its start reads the samples
// its store has let go of back from that recording, and shows what a
// store that kept them all shows; once the recording stops, it draws
// them from its buckets and says from when it shows every sample.
func TestLiveScreenReadsBackItsRecording(t *testing.T) {
	// Written as each sample comes: an instant's 3,000 samples would
	// overflow the queue a live recording writes through.
	live, whole, part := liveRecorded(t, true)
	if !part.OldestRaw().After(part.First().Add(time.Minute)) || !part.FineSince().Equal(part.First()) {
		t.Fatalf("raw samples from %v, every sample from %v: the test wants them read back", part.OldestRaw(), part.FineSince())
	}
	keys := []timeline.Key{{Name: timeline.GPUUtil, Device: "gpu0"}, {Name: timeline.GPUPower, Device: "gpu1"}, {Name: timeline.HostCPU}}
	a, b := make([]timeline.Agg, 120), make([]timeline.Agg, 120)
	for _, from := range []time.Duration{0, 7 * time.Minute, 20 * time.Minute} {
		at := whole.First().Add(from)
		for _, k := range keys {
			whole.Series(k, at, at.Add(5*time.Minute), a)
			part.Series(k, at, at.Add(5*time.Minute), b)
			if !slices.EqualFunc(a, b, func(x, y timeline.Agg) bool { return x == y || x.Empty() && y.Empty() }) {
				t.Fatalf("%v from +%v: read back %v\nkept %v", k, from, b, a)
			}
		}
	}
	if _, err := live.Stop(); err != nil {
		t.Fatal(err)
	}
	at := whole.First().Add(30 * time.Minute)
	part.Series(keys[0], at, at.Add(time.Minute), b)
	if !part.FineSince().Equal(part.OldestRaw()) {
		t.Errorf("with the recording stopped the screen says it shows every sample from %v (raw from %v)", part.FineSince(), part.OldestRaw())
	}
}

// A recording that left samples out (its queue full: a disk that fell
// behind) does not hold what the screen had: nothing is read back from it.
func TestLiveScreenReadsNothingBackFromARecordingWithHoles(t *testing.T) {
	live, whole, part := liveRecorded(t, false)
	if live.rec.State().Dropped == 0 {
		t.Skip("the recording kept up with 3,000 samples at once: nothing to test")
	}
	at := whole.First().Add(10 * time.Minute)
	part.Series(timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, at, at.Add(time.Minute), make([]timeline.Agg, 120))
	if !part.FineSince().Equal(part.OldestRaw()) {
		t.Errorf("the screen says it shows every sample from %v (raw from %v)", part.FineSince(), part.OldestRaw())
	}
}

// liveRecorded records 3,000 samples through the live pipeline with
// --record, into a store that keeps everything and a live one that keeps
// the newest few hundred, and waits for the file to hold all but its
// last second.
func liveRecorded(t *testing.T, sync bool) (live *liveRecording, whole, part *timeline.Store) {
	t.Helper()
	samples := recordingstest.Samples(3000, 2)
	src := timelinetest.Play(timeline.SourceInfo{Kind: timeline.Live, Host: "node", Interval: time.Second,
		GPUs: []timeline.GPUInfo{{Index: 0, Name: "H100"}, {Index: 1, Name: "H100"}}}, samples)
	path := filepath.Join(t.TempDir(), "live.gtr")
	rec := newPipeline(timeline.DefaultHistoryBudget).recorder(src, nil, false, sync)
	live = &liveRecording{rec: rec, next: path}
	if _, err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Stop() })
	whole = timeline.NewStore(timeline.StoreOptions{})
	part = timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.DefaultRawSamples, RawValues: 20000, Recall: live.recallOf()})
	for {
		s, err := rec.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		whole.Add(&s)
		part.Add(&s)
	}
	// The file is written up to its last second while it goes on.
	for i := 0; sync; i++ {
		if r, err := recordings.Open(path); err == nil {
			_, last := r.Span()
			r.Close()
			if !last.Before(whole.Last().Add(-time.Second)) {
				break
			}
		}
		if i == 100 {
			t.Fatalf("the recording never held the samples: %+v", rec.State())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return live, whole, part
}
