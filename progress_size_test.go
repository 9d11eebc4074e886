package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes/progress"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// jobHour is an hour of a job's tqdm bar, redrawn ten times a second, its
// rate noisy around 50 it/s (each tenth of a second's count off by up to
// 10 %), smoothed as tqdm states it, with an evaluation every 15 minutes
// (a minute at 0 it/s) and a slower half hour: the readings the Tracker
// keeps, as the session would hand them to the recording.
func jobHour(start time.Time) []timeline.Progress {
	rng := rand.New(rand.NewPCG(1, 2))
	p, tr := progress.New(nil), progress.NewTracker()
	var kept []timeline.Progress
	n, ema := 0.0, 50.0
	for i := 1; i <= 36000; i++ {
		at := start.Add(time.Duration(i) * 100 * time.Millisecond)
		if i%100 == 0 {
			kept = append(kept, tr.Idle(at)...)
		}
		secs := i / 10
		if secs%900 >= 840 {
			continue // evaluating: the bar is not redrawn
		}
		rate := 50.0
		if secs >= 1800 {
			rate = 35
		}
		step := rate / 10 * (1 + 0.1*(2*rng.Float64()-1))
		n += step
		ema = 0.3*step*10 + 0.7*ema
		line := fmt.Sprintf("%3.0f%%|█████     | %d/200000 [%02d:%02d<00:00, %.2fit/s]", math.Floor(n/2000), int(n), secs/60, secs%60, ema)
		if r, ok := p.Parse([]byte(line)); ok {
			kept = append(kept, tr.Add(at, r, "job")...)
		}
	}
	return append(kept, tr.Flush()...)
}

// A job's progress costs a recording a few KB an hour: the size of an hour
// of an 8-GPU node at 1 Hz with and without it (the growth is logged, and
// held to under 5 KB).
func TestProgressCostsFewKBPerJobHour(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two hours of samples")
	}
	dir := t.TempDir()
	points := jobHour(recordingstest.T0)
	size := func(name string, withProgress bool) int64 {
		g := recordingstest.NewSynth(7, recordingstest.T0, time.Second, 8, 32)
		h := recordings.Header{Version: "test", Info: recordingstest.Info(8, time.Second), Start: recordingstest.T0}
		path := filepath.Join(dir, name)
		w, err := recordings.Create(path, h, false)
		if err != nil {
			t.Fatal(err)
		}
		next := 0
		for i := 0; i < 3600; i++ {
			s := g.Next()
			for withProgress && next < len(points) && !points[next].At.After(s.At) {
				s.Progress = append(s.Progress, points[next])
				next++
			}
			if err := w.Write(&s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	without, with := size("without.gtr", false), size("with.gtr", true)
	growth := with - without
	t.Logf("an hour of 8 GPUs: %d bytes, %d with the job's progress (%d points kept of 36,000 lines): +%d bytes",
		without, with, len(points), growth)
	if growth > 5000 {
		t.Errorf("the job's progress grew an hour's recording by %d bytes, want under 5 KB", growth)
	}
}
