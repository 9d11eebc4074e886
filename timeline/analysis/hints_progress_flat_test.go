package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// A job whose progress bar is redrawn while it waits states the same count
// every few seconds: the count stands still over those readings as much as
// across a silence. Found by the accuracy corpus (issue 43): all 20 of its
// stalled runs, readings every 5 s, drew no progress-stalled.
func TestProgressStalledOverRepeatedCounts(t *testing.T) {
	e := NewEngineWith(timeline.SourceInfo{Interval: time.Second}, frame.DefaultOptions(), PhaseOptions{})
	stalled := func(sec int) bool { return sec >= 300 && sec < 420 }
	done := 0.0
	for sec := range 600 {
		tk := &htTick{sec: sec}
		htEvery8(func(i int) {
			if stalled(sec) {
				tk.h100(i, 0, 0, 90, 60*htGiB)
			} else {
				tk.h100(i, 95, 80, 600, 60*htGiB)
			}
		})
		at := htT0.Add(time.Duration(sec) * time.Second)
		s := timeline.Sample{At: at}.WithMetrics(tk.m)
		if sec%5 == 0 {
			s.Progress = []timeline.Progress{{At: at, Done: done, Rate: math.NaN(), Unit: "it", Origin: "job"}}
		}
		if !stalled(sec) {
			done += 50
		}
		e.Add(&s)
	}
	hs := htFind(e.Hints(e.Last()), timeline.HintProgressStalled)
	if len(hs) != 1 {
		t.Fatalf("progress-stalled hints %s", htDump(e.Hints(e.Last())))
	}
	for _, want := range []string{"no progress for 2m", "from 5m in", "at 15000 it"} {
		if !strings.Contains(hs[0].Evidence, want) {
			t.Errorf("evidence %q lacks %q", hs[0].Evidence, want)
		}
	}
}
