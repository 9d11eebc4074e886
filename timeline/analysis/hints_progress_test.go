package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// jobScript is a run of secs seconds: script says what the GPUs read,
// rate(sec) the job's rate in it/s, and marks its markers by second. The
// job's progress is kept as the recording keeps it: a point every 5 s, and
// at every change of rate.
func jobEngine(secs int, script func(t *htTick), rate func(sec int) float64, marks map[int]string) *Engine {
	e := NewEngineWith(timeline.SourceInfo{Interval: time.Second}, frame.DefaultOptions(), PhaseOptions{})
	done := 0.0
	for sec := range secs {
		t := &htTick{sec: sec}
		script(t)
		at := htT0.Add(time.Duration(sec) * time.Second)
		s := timeline.Sample{At: at}.WithMetrics(t.m)
		r := rate(sec)
		if sec > 0 {
			done += rate(sec - 1)
		}
		if r > 0 || rate(max(sec-1, 0)) > 0 {
			if sec%5 == 0 || sec == 0 || r != rate(sec-1) {
				s.Progress = []timeline.Progress{{At: at, Done: done, Rate: math.NaN(), Unit: "it", Origin: "job"}}
			}
		}
		if m, ok := marks[sec]; ok {
			s.Markers = []timeline.Marker{{At: at, Text: m, Origin: "job"}}
		}
		e.Add(&s)
	}
	return e
}

func TestThroughputDropWhileBusy(t *testing.T) {
	e := jobEngine(600, htHealthy, func(sec int) float64 {
		if sec >= 300 {
			return 25
		}
		return 50
	}, map[int]string{0: "epoch 1", 300: "eval"})
	hs := htFind(e.Hints(e.Last()), timeline.HintThroughputDrop)
	if len(hs) != 1 {
		t.Fatalf("throughput-drop hints %s", htDump(e.Hints(e.Last())))
	}
	for _, want := range []string{"fell 50%", "at 5m in", "from 50 it/s to 25 it/s", `during "eval"`, "util 95% before"} {
		if !strings.Contains(hs[0].Evidence, want) {
			t.Errorf("evidence %q lacks %q", hs[0].Evidence, want)
		}
	}
	// The same drop with the GPUs idle in it is not this hint.
	idle := jobEngine(600, func(t *htTick) {
		htEvery8(func(i int) {
			util := 95.0
			if t.sec >= 300 {
				util = 2
			}
			t.h100(i, util, util*0.8, 200, 60*htGiB)
		})
	}, func(sec int) float64 {
		if sec >= 300 {
			return 25
		}
		return 50
	}, nil)
	if hs := htFind(idle.Hints(idle.Last()), timeline.HintThroughputDrop); len(hs) != 0 {
		t.Errorf("a drop with idle GPUs gave %s", htDump(hs))
	}
}

// stallingJob is eight busy GPUs making 50 it/s, and idle making none
// while stalled says so.
func stallingJob(seconds int, stalled func(sec int) bool, markers map[int]string) *Engine {
	return jobEngine(seconds, func(t *htTick) {
		htEvery8(func(i int) {
			if stalled(t.sec) {
				t.h100(i, 0, 0, 90, 60*htGiB)
			} else {
				t.h100(i, 95, 80, 600, 60*htGiB)
			}
		})
	}, func(sec int) float64 {
		if stalled(sec) {
			return 0
		}
		return 50
	}, markers)
}

func TestProgressStalledWhileIdle(t *testing.T) {
	stalled := func(sec int) bool { return sec >= 300 && sec < 420 }
	e := stallingJob(600, stalled, map[int]string{300: "saving checkpoint"})
	hs := htFind(e.Hints(e.Last()), timeline.HintProgressStalled)
	if len(hs) != 1 {
		t.Fatalf("progress-stalled hints %s", htDump(e.Hints(e.Last())))
	}
	for _, want := range []string{"no progress for 2m", "from 5m in", "at 15000 it", `during "saving checkpoint"`} {
		if !strings.Contains(hs[0].Evidence, want) {
			t.Errorf("evidence %q lacks %q", hs[0].Evidence, want)
		}
	}
}

func TestWarmUpHint(t *testing.T) {
	e := jobEngine(900, htHealthy, func(sec int) float64 {
		if sec < 120 {
			return 0
		}
		return 50
	}, nil)
	hs := htFind(e.Hints(e.Last()), timeline.HintWarmUp)
	if len(hs) != 1 || hs[0].Severity != timeline.Info || !strings.Contains(hs[0].Evidence, "took 2m (13% of the time)") {
		t.Fatalf("warm-up hints %s", htDump(e.Hints(e.Last())))
	}
}

func TestPeriodicStallCostsThroughput(t *testing.T) {
	stalled := func(sec int) bool { return sec >= 60 && sec%120 >= 100 }
	e := stallingJob(1200, stalled, nil)
	hs := htFind(e.Hints(e.Last()), timeline.HintPeriodicStall)
	if len(hs) != 1 {
		t.Fatalf("periodic-stall hints %s", htDump(e.Hints(e.Last())))
	}
	if !strings.Contains(hs[0].Evidence, "costing the job 1") || !strings.Contains(hs[0].Evidence, "50 it/s between stalls") {
		t.Errorf("evidence %q says nothing of the throughput lost", hs[0].Evidence)
	}
	if testing.Verbose() {
		t.Log(hs[0].Evidence)
	}
}
