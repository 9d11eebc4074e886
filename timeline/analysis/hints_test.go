package analysis

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
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

func TestHintsNothingToJudge(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{})
	if got := e.Hints(htT0.Add(time.Hour)); got != nil {
		t.Errorf("no samples: %v", got)
	}
	e = htEngine(15, func(t *htTick) { t.h100(0, 100, 2, 150, 40*htGiB) })
	if got := e.Hints(e.Last()); got != nil {
		t.Errorf("15s of data is less than a provisional reading: %v", got)
	}
	e = htEngine(600, htHealthy)
	if got := e.Hints(htT0.Add(-time.Minute)); got != nil {
		t.Errorf("a moment before the first sample: %v", got)
	}
}

func TestHintsWorstFirst(t *testing.T) {
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

// One finding is one hint: waits on the same GPUs 60 s apart are one
// episode of two stretches; 5 m apart, two episodes of one hint.
func TestHintsOneFindingOneHint(t *testing.T) {
	near := htFind(htRun(600, htWaitScript([2]int{100, 160}, [2]int{220, 280})), timeline.HintBusyWait)
	if len(near) != 1 || len(near[0].Episodes) != 1 || !strings.Contains(near[0].Evidence, "in 2 stretches over 3m (2m in all)") {
		t.Errorf("waits 60s apart: want one hint, one episode of 2 stretches, got\n%s", htDump(near))
	}
	far := htFind(htRun(900, htWaitScript([2]int{100, 160}, [2]int{460, 520})), timeline.HintBusyWait)
	if len(far) != 1 || len(far[0].Episodes) != 2 || !strings.Contains(far[0].Evidence, "the largest of 2 episodes") {
		t.Fatalf("waits 5m apart: want one hint of two episodes, got\n%s", htDump(far))
	}
	h := far[0]
	if !h.Start.Equal(htT0.Add(100*time.Second)) || !h.End.Equal(htT0.Add(520*time.Second)) {
		t.Errorf("the hint spans its episodes: %v to %v", h.Start.Sub(htT0), h.End.Sub(htT0))
	}
	for _, h := range append(near, far...) {
		if !reflect.DeepEqual(h.GPUs, []int{1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("GPUs %v, want GPU1-7 as one hint", h.GPUs)
		}
		for _, ep := range h.Episodes {
			if !reflect.DeepEqual(ep.GPUs, []int{1, 2, 3, 4, 5, 6, 7}) || ep.Evidence == "" || !ep.End.After(ep.Start) {
				t.Errorf("episode %+v", ep)
			}
		}
	}
}

// A hint's edges are the condition's: asked at every moment after it, the
// answer keeps them, and the hint keeps being given, ended.
func TestHintsEdgesHoldAsTimeGoesOn(t *testing.T) {
	e := htEngine(900, htWaitScript([2]int{400, 470}))
	wantStart, wantEnd := htT0.Add(400*time.Second), htT0.Add(470*time.Second)
	for now := 480; now <= 899; now += 3 {
		got := htFind(e.Hints(htT0.Add(time.Duration(now)*time.Second)), timeline.HintBusyWait)
		if len(got) != 1 || !got[0].Start.Equal(wantStart) || !got[0].End.Equal(wantEnd) {
			t.Fatalf("at %d s: want one busy-wait from 400s to 470s, got\n%s", now, htDump(got))
		}
	}
}

// What the Engine says of a moment is what it says when that moment is the
// last it has: a replay's cursor shows what the live screen showed.
func TestHintsOfAMomentDoNotDependOnWhatCameAfter(t *testing.T) {
	script := htWaitScript([2]int{200, 320}, [2]int{500, 560})
	whole := htEngine(900, script)
	for _, at := range []int{40, 150, 230, 330, 400, 540, 899} {
		upTo := htEngine(at+1, script)
		moment := htT0.Add(time.Duration(at) * time.Second)
		if got, want := whole.Hints(moment), upTo.Hints(moment); !reflect.DeepEqual(got, want) {
			t.Errorf("at %d s: with what came after\n%sand without\n%s", at, htDump(got), htDump(want))
		}
	}
}

func TestHintsGapIsNotIdleness(t *testing.T) {
	// A healthy run with a 10m hole in the recording (the sampler was
	// stopped): no gpu-idle, no stall.
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	for sec := range 1800 {
		if sec >= 600 && sec < 1200 {
			continue
		}
		tk := &htTick{sec: sec}
		htHealthy(tk)
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(tk.m)))
	}
	if hints := e.Hints(e.Last()); len(hints) > 0 {
		t.Errorf("hints across a gap:\n%s", htDump(hints))
	}
}

func TestHintsUnknownIsNotZero(t *testing.T) {
	// Utilisation present but unknown (NaN) for 10m: nothing to say.
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	for sec := range 600 {
		e.Add(new(timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: math.NaN()},
			{Key: timeline.Key{Name: timeline.GPUMemUsed, Device: "gpu0"}, Value: 20 * htGiB},
		})))
	}
	if hints := e.Hints(e.Last()); len(hints) > 0 {
		t.Errorf("hints from unknown values:\n%s", htDump(hints))
	}
}

func TestHintOptionsWindowAtLeast30s(t *testing.T) {
	// A 20s wait: a 10s window would catch it, but windows are never
	// under 30s.
	e := htEngine(300, htWaitScript([2]int{100, 120}), frame.Options{Window: 10 * time.Second})
	if got := htFind(e.Hints(e.Last()), timeline.HintBusyWait); len(got) > 0 {
		t.Errorf("a 20s wait fired with Window 10s:\n%s", htDump(got))
	}
	o := withDefaults(frame.Options{Window: time.Second, IdleUtil: 3})
	d := frame.DefaultOptions()
	if o.Window != 30*time.Second || o.IdleUtil != 3 || o.BusyWork != d.BusyWork || o.MergeGap != d.MergeGap {
		t.Errorf("withDefaults: %+v", o)
	}
}

func TestHintsConfidenceFollowsEvidence(t *testing.T) {
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

func TestHintsDeterministic(t *testing.T) {
	script := htStarved(htLoaders, nil)
	a, b := htRun(600, script), htRun(600, script)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ:\n%s\n%s", htDump(a), htDump(b))
	}
}

// The first reading comes from 20 s of samples on, marked provisional, and
// firms up once a full window of the rule is in.
func TestHintsProvisionalFirstReading(t *testing.T) {
	spinning := htWaitScript([2]int{0, 900})
	for _, c := range []struct {
		name   string
		script func(t *htTick)
		id     string
		at     int  // seconds of samples
		want   bool // the hint is given
		firm   bool
	}{
		{"spinning, 15s: too little to say anything", spinning, timeline.HintBusyWait, 15, false, false},
		{"spinning, 20s: a first reading", spinning, timeline.HintBusyWait, 20, true, false},
		{"spinning, 29s: still provisional", spinning, timeline.HintBusyWait, 29, true, false},
		{"spinning, 60s: firm from the first full window", spinning, timeline.HintBusyWait, 60, true, true},
		{"starved, 25s: provisional", htStarved(htLoaders, nil), timeline.HintInputBound, 25, true, false},
		{"starved, 3m: firm", htStarved(htLoaders, nil), timeline.HintInputBound, 180, true, true},
		{"a 2s dip is never a reading", func(t *htTick) {
			u := 95.0
			if t.sec >= 20 {
				u = 0
			}
			t.h100(0, u, u*0.8, 500, 40*htGiB)
		}, timeline.HintIdleMemoryHeld, 22, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := htEngine(c.at, c.script)
			got := htFind(e.Hints(e.Last()), c.id)
			if !c.want {
				if len(got) > 0 {
					t.Fatalf("%s given:\n%s", c.id, htDump(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one %s, got\n%s", c.id, htDump(e.Hints(e.Last())))
			}
			if got[0].Provisional == c.firm {
				t.Errorf("provisional %v, want %v", got[0].Provisional, !c.firm)
			}
			for _, ep := range got[0].Episodes {
				if ep.Provisional != got[0].Provisional {
					t.Errorf("an episode's provisional %v, the hint's %v", ep.Provisional, got[0].Provisional)
				}
			}
		})
	}
}

// A hint's "in all" is the time its episodes cover, never more than the
// span they lie in, however many GPUs' episodes overlap.
func TestTimeCovered(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(0, 0).Add(time.Duration(s) * time.Second) }
	ep := func(from, to int) timeline.Episode { return timeline.Episode{Start: at(from), End: at(to)} }
	for _, tt := range []struct {
		name string
		eps  []timeline.Episode
		want time.Duration
	}{
		{"apart", []timeline.Episode{ep(0, 10), ep(20, 25)}, 15 * time.Second},
		{"overlapping, largest first", []timeline.Episode{ep(0, 232), ep(40, 232), ep(70, 232)}, 232 * time.Second},
		{"one inside another", []timeline.Episode{ep(5, 8), ep(0, 10)}, 10 * time.Second},
		{"touching", []timeline.Episode{ep(0, 10), ep(10, 20)}, 20 * time.Second},
		{"chained", []timeline.Episode{ep(0, 10), ep(5, 15), ep(30, 31)}, 16 * time.Second},
		{"one", []timeline.Episode{ep(3, 4)}, time.Second},
	} {
		if got := timeCovered(tt.eps); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A rule's critical episode less than CriticalConfidence sure is a
// warning: severity and confidence never contradict each other on the
// page ("CRITICAL ..., confidence 49%").
func TestCriticalNeedsConfidence(t *testing.T) {
	for _, c := range []struct {
		conf float64
		want timeline.Severity
	}{
		{0.49, timeline.Warning},
		{0.5, timeline.Critical},
		{0.85, timeline.Critical},
	} {
		e := NewEngine(timeline.SourceInfo{Interval: time.Second})
		f := &frame.Frame{Opts: frame.DefaultOptions(), Step: time.Second, N: 600}
		r := frame.Rule{ID: "test", Describe: func(*frame.Frame, *frame.Group) (timeline.Hint, bool) {
			return timeline.Hint{Severity: timeline.Critical, Confidence: c.conf}, true
		}}
		h, _ := e.describe(f, r, &frame.Group{GPUs: []int{0}, Hull: frame.Span{Lo: 0, Hi: 600}})
		if h.Severity != c.want {
			t.Errorf("critical at %v: %v, want %v", c.conf, h.Severity, c.want)
		}
	}
}
