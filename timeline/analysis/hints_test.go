package analysis

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// htWaitScript runs 8 GPUs at 90% and makes GPUs 1-7 spin (100% util, 2%
// SM activity) during each [start, end) of waits.
func htWaitScript(waits ...[2]int) func(t *htTick) {
	return func(t *htTick) {
		in := false
		for _, w := range waits {
			in = in || (t.sec >= w[0] && t.sec < w[1])
		}
		htEvery8(func(i int) {
			if in && i > 0 {
				t.h100(i, 100, 2, 150, 40*htGiB)
			} else {
				t.h100(i, 90, 70, 550, 40*htGiB)
			}
		})
	}
}

func TestEvaluateHintsNothingToJudge(t *testing.T) {
	if got := EvaluateHints(nil, timeline.SourceInfo{}, htT0, htT0.Add(time.Hour), HintOptions{}); got != nil {
		t.Errorf("nil store: %v", got)
	}
	if got := EvaluateHints(timeline.NewStore(timeline.StoreOptions{}), timeline.SourceInfo{}, htT0, htT0.Add(time.Hour), HintOptions{}); got != nil {
		t.Errorf("empty store: %v", got)
	}
	s := htStore(20, func(t *htTick) { t.h100(0, 100, 2, 150, 40*htGiB) })
	if got := EvaluateHints(s, timeline.SourceInfo{}, s.First(), s.Last(), HintOptions{}); got != nil {
		t.Errorf("20s of data is less than a window: %v", got)
	}
	s = htStore(600, htHealthy)
	if got := EvaluateHints(s, timeline.SourceInfo{}, s.Last(), s.First(), HintOptions{}); got != nil {
		t.Errorf("to before from: %v", got)
	}
}

func TestEvaluateHintsWorstFirst(t *testing.T) {
	// GPU0 computes on the CPU (critical), GPU1 spins in a collective for
	// 100s (warning), GPU2-7 have nothing on them (info).
	hints := htRun(900, func(t *htTick) {
		t.h100(0, 0, 0, 75, 20*htGiB)
		for i := 1; i < 8; i++ {
			if i == 1 && t.sec >= 300 && t.sec < 400 {
				t.h100(i, 100, 2, 150, 30*htGiB)
			} else {
				t.h100(i, 0, 0, 68, 0)
			}
		}
		t.cores(htCoreSet(32, 2, 99)...)
	})
	var ids []string
	for _, h := range hints {
		ids = append(ids, h.ID)
	}
	want := []string{timeline.HintIdleMemoryHeld, timeline.HintBusyWait, timeline.HintGPUIdle}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("hints %v, want %v:\n%s", ids, want, htDump(hints))
	}
	for k := 1; k < len(hints); k++ {
		if hints[k].Severity > hints[k-1].Severity {
			t.Errorf("hint %d (%v) after a less severe one", k, hints[k].Severity)
		}
	}
}

func TestEvaluateHintsMergesRecurringStretches(t *testing.T) {
	// Two 60s waits 60s apart are one hint; 5m apart, two.
	near := htFind(htRun(600, htWaitScript([2]int{100, 160}, [2]int{220, 280})), timeline.HintBusyWait)
	if len(near) != 1 || !strings.Contains(near[0].Evidence, "in 2 stretches over 3m (2m in all)") {
		t.Errorf("waits 60s apart: want one hint over 2 stretches, got\n%s", htDump(near))
	}
	far := htFind(htRun(900, htWaitScript([2]int{100, 160}, [2]int{460, 520})), timeline.HintBusyWait)
	if len(far) != 2 {
		t.Errorf("waits 5m apart: want two hints, got\n%s", htDump(far))
	}
	for _, h := range append(near, far...) {
		if !reflect.DeepEqual(h.GPUs, []int{1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("GPUs %v, want GPU1-7 as one hint", h.GPUs)
		}
	}
}

// Live, the UI evaluates the last few minutes every few seconds: a hint's
// edges must be the condition's, not move with the view.
func TestEvaluateHintsLiveEdgesHold(t *testing.T) {
	s := htStore(900, htWaitScript([2]int{400, 470}))
	wantStart, wantEnd := htT0.Add(400*time.Second), htT0.Add(470*time.Second)
	for now := 480; now <= 700; now += 3 {
		to := htT0.Add(time.Duration(now) * time.Second)
		got := htFind(EvaluateHints(s, timeline.SourceInfo{}, to.Add(-5*time.Minute), to, DefaultHintOptions()), timeline.HintBusyWait)
		if len(got) != 1 || !got[0].Start.Equal(wantStart) || !got[0].End.Equal(wantEnd) {
			t.Fatalf("at %d s: want one busy-wait from 400s to 470s, got\n%s", now, htDump(got))
		}
	}
}

func TestEvaluateHintsGapIsNotIdleness(t *testing.T) {
	// A healthy run with a 10m hole in the recording (the sampler was
	// stopped): no gpu-idle, no stall.
	s := timeline.NewStore(timeline.StoreOptions{})
	for sec := range 1800 {
		if sec >= 600 && sec < 1200 {
			continue
		}
		tk := &htTick{sec: sec}
		htHealthy(tk)
		s.Add(&timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second), Metrics: tk.m})
	}
	if hints := EvaluateHints(s, timeline.SourceInfo{}, s.First(), s.Last(), DefaultHintOptions()); len(hints) > 0 {
		t.Errorf("hints across a gap:\n%s", htDump(hints))
	}
}

func TestEvaluateHintsUnknownIsNotZero(t *testing.T) {
	// Utilisation present but unknown (NaN) for 10m: nothing to say.
	s := timeline.NewStore(timeline.StoreOptions{})
	for sec := range 600 {
		s.Add(&timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second), Metrics: []timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: math.NaN()},
			{Key: timeline.Key{Name: timeline.GPUMemUsed, Device: "gpu0"}, Value: 20 * htGiB},
		}})
	}
	if hints := EvaluateHints(s, timeline.SourceInfo{}, s.First(), s.Last(), DefaultHintOptions()); len(hints) > 0 {
		t.Errorf("hints from unknown values:\n%s", htDump(hints))
	}
}

func TestHintOptionsWindowAtLeast30s(t *testing.T) {
	// A 20s wait: a 10s window would catch it, but windows are never
	// under 30s.
	s := htStore(300, htWaitScript([2]int{100, 120}))
	if got := htFind(EvaluateHints(s, timeline.SourceInfo{}, s.First(), s.Last(), HintOptions{Window: 10 * time.Second}), timeline.HintBusyWait); len(got) > 0 {
		t.Errorf("a 20s wait fired with Window 10s:\n%s", htDump(got))
	}
	o := HintOptions{Window: time.Second, IdleUtil: 3}.withDefaults()
	d := DefaultHintOptions()
	if o.Window != 30*time.Second || o.IdleUtil != 3 || o.BusyWork != d.BusyWork || o.MergeGap != d.MergeGap {
		t.Errorf("withDefaults: %+v", o)
	}
}

func TestEvaluateHintsConfidenceFollowsEvidence(t *testing.T) {
	// The same spin, seen with SM activity and with utilisation and power
	// alone: the second is less sure. And 35s is less sure than 3m.
	sm := htFind(htRun(600, htWaitScript([2]int{100, 280})), timeline.HintBusyWait)
	utilOnly := htFind(htRun(600, func(t *htTick) {
		htEvery8(func(i int) {
			u, p := 90.0, 550.0
			if t.sec >= 100 && t.sec < 280 && i > 0 {
				u, p = 100, 150
			}
			t.gpu(i, timeline.GPUUtil, u)
			t.gpu(i, timeline.GPUPower, p)
		})
	}), timeline.HintBusyWait)
	short := htFind(htRun(600, htWaitScript([2]int{100, 135})), timeline.HintBusyWait)
	if len(sm) != 1 || len(utilOnly) != 1 || len(short) != 1 {
		t.Fatalf("want one busy-wait each:\n%s%s%s", htDump(sm), htDump(utilOnly), htDump(short))
	}
	if !(sm[0].Confidence > utilOnly[0].Confidence) || !(sm[0].Confidence > short[0].Confidence) {
		t.Errorf("confidence: SM %v, util and power %v, 35s %v", sm[0].Confidence, utilOnly[0].Confidence, short[0].Confidence)
	}
}

func TestEvaluateHintsCoarseColumns(t *testing.T) {
	// A day read at 1000 columns (86s each) still finds a GPU idle for
	// hours, and puts its start within a column of the truth.
	s := htStore(86400, func(t *htTick) {
		if t.sec < 43200 {
			t.h100(0, 95, 80, 600, 60*htGiB)
			return
		}
		t.h100(0, 0, 0, 68, 0)
	})
	opts := DefaultHintOptions()
	opts.MaxColumns = 1000
	got := htFind(EvaluateHints(s, timeline.SourceInfo{}, s.First(), s.Last(), opts), timeline.HintGPUIdle)
	if len(got) != 1 || got[0].Start.Sub(htT0.Add(12*time.Hour)).Abs() > 87*time.Second {
		t.Errorf("want gpu-idle from 12h, got\n%s", htDump(got))
	}
}

func TestEvaluateHintsDeterministic(t *testing.T) {
	script := htStarved(htLoaders, nil)
	a, b := htRun(600, script), htRun(600, script)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ:\n%s\n%s", htDump(a), htDump(b))
	}
}
