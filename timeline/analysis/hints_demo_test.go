package analysis_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// Every demo scenario, recorded as `gputop record --demo=... --fast` records
// it (the real NVML probe over the mock, on a fast clock), must give its
// hint; the healthy one must give no warning at all.

// hxDemoStart is the first sample's time.
var hxDemoStart = time.Date(2025, 7, 27, 0, 34, 45, 0, time.UTC)

// hxRecordDemo plays a scenario for the given simulated time at 1s.
func hxRecordDemo(t testing.TB, scenario string, seed int64, d time.Duration) ([]timeline.Sample, timeline.SourceInfo) {
	t.Helper()
	clock := probes.NewFastClock(hxDemoStart)
	node, err := demo.New(scenario, seed, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Error(err)
		}
	})
	var out []timeline.Sample
	for range int(d / time.Second) {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out, sess.Info()
}

// hxReport is what gputop report --to each given moment says of samples:
// a fresh Engine fed everything, asked after the fact.
func hxReport(samples []timeline.Sample, info timeline.SourceInfo) *analysis.Engine {
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
	}
	return e
}

func hxDump(hints []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hints {
		fmt.Fprintf(&b, "  %v %s %v %v-%v (%.2f): %s\n", h.Severity, h.ID, h.GPUs, h.Start.Format(time.TimeOnly),
			h.End.Format(time.TimeOnly), h.Confidence, h.Evidence)
	}
	return b.String()
}

// hxExpect fails unless a hint with one of ids names exactly gpus (any GPUs
// if nil) with at least the given severity.
func hxExpect(gpus []int, sev timeline.Severity, ids ...string) func(t *testing.T, hints []timeline.Hint) {
	return func(t *testing.T, hints []timeline.Hint) {
		t.Helper()
		for _, h := range hints {
			if slices.Contains(ids, h.ID) && (gpus == nil || slices.Equal(h.GPUs, gpus)) && h.Severity >= sev {
				return
			}
		}
		t.Errorf("no %v hint on GPUs %v at %v or worse:\n%s", ids, gpus, sev, hxDump(hints))
	}
}

func hxNoWarning(t *testing.T, hints []timeline.Hint) {
	t.Helper()
	for _, h := range hints {
		if h.Severity >= timeline.Warning {
			t.Errorf("a healthy run got a %v:\n%s", h.Severity, hxDump(hints))
			return
		}
	}
}

var hxAll8 = []int{0, 1, 2, 3, 4, 5, 6, 7}

// hxDemoWants says, per scenario, what a report over the whole recording
// must say, and what every live view of its last 5 minutes must say.
var hxDemoWants = []struct {
	scenario     string
	report, live func(t *testing.T, hints []timeline.Hint)
}{
	{"training", hxNoWarning, hxNoWarning},
	// GPU1 does all the work; seven of eight idle is critical.
	{"imbalance",
		hxExpect([]int{0, 2, 3, 4, 5, 6, 7}, timeline.Critical, timeline.HintGPUImbalance),
		hxExpect([]int{0, 2, 3, 4, 5, 6, 7}, timeline.Critical, timeline.HintGPUImbalance)},
	{"input-bound",
		hxExpect(hxAll8, timeline.Warning, timeline.HintInputBound, timeline.HintHostSingleThread),
		hxExpect(hxAll8, timeline.Warning, timeline.HintInputBound, timeline.HintHostSingleThread)},
	// Work on the CPU with the GPU's memory held is critical.
	{"cpu-fallback",
		hxExpect([]int{0}, timeline.Critical, timeline.HintIdleMemoryHeld),
		hxExpect([]int{0}, timeline.Critical, timeline.HintIdleMemoryHeld)},
	{"throttle", func(t *testing.T, hints []timeline.Hint) {
		hxExpect(nil, timeline.Warning, timeline.HintPowerCapped)(t, hints)
		// Two GPUs run hot; which two follows the seed.
		for _, h := range hints {
			if h.ID == timeline.HintThermalThrottle && len(h.GPUs) == 2 {
				return
			}
		}
		t.Errorf("no thermal-throttle on the two hot GPUs:\n%s", hxDump(hints))
	}, hxExpect(nil, timeline.Warning, timeline.HintPowerCapped)},
	// A 5-minute view may hold only two of the stalls (one every 2m):
	// then the GPUs waiting for rank 0 show as busy-wait.
	{"checkpoint", func(t *testing.T, hints []timeline.Hint) {
		hxExpect(hxAll8, timeline.Warning, timeline.HintPeriodicStall)(t, hints)
		for _, h := range hints {
			if h.ID == timeline.HintPeriodicStall && !strings.Contains(h.Evidence, "GPU0 idle") {
				t.Errorf("the stall's evidence does not name GPU0 as the one that stops: %s", h.Evidence)
			}
		}
	}, hxExpect(nil, timeline.Warning, timeline.HintPeriodicStall, timeline.HintBusyWait)},
	// GPU0's 1g.10gb slice (GPU 10) holds 9 GiB and barely computes while
	// the others work; the 2g.20gb slice (GPU 9) runs at about half.
	{"mig", func(t *testing.T, hints []timeline.Hint) {
		hxExpect([]int{10}, timeline.Warning, timeline.HintInputBound)(t, hints)
		hxExpect([]int{10}, timeline.Warning, timeline.HintGPUImbalance)(t, hints)
		hxExpect([]int{9}, timeline.Warning, timeline.HintLowUtilization)(t, hints)
	}, hxExpect([]int{10}, timeline.Warning, timeline.HintGPUImbalance)},
	// GPU6 (a notebook pod) and GPU7 (a Slurm job) allocated and never
	// used, beside six at work: allocated-idle, not gpu-imbalance.
	{"allocated",
		hxExpect([]int{6, 7}, timeline.Warning, timeline.HintAllocatedIdle),
		hxExpect([]int{6, 7}, timeline.Warning, timeline.HintAllocatedIdle)},
}

// TestHintsDemoScenarios records each scenario for 10 simulated minutes
// and checks the report over all of it, then what a live screen says every
// 7 s as the samples arrive, from 5 minutes on. At every minute the live
// Engine must say exactly what a report --to that minute says.
func TestHintsDemoScenarios(t *testing.T) {
	for _, w := range hxDemoWants {
		t.Run(w.scenario, func(t *testing.T) {
			t.Parallel()
			samples, info := hxRecordDemo(t, w.scenario, 1, 10*time.Minute)
			report := hxReport(samples, info)
			w.report(t, report.Hints(report.Last()))
			live := analysis.NewEngine(info)
			first := samples[0].At
			for i := range samples {
				s := &samples[i]
				live.Add(s)
				since := s.At.Sub(first)
				if since >= 5*time.Minute && since%(7*time.Second) == 0 {
					w.live(t, live.Hints(s.At))
					if t.Failed() {
						t.Fatalf("on the live screen %v in", since)
					}
				}
				if since%time.Minute == 0 {
					if got, want := live.Hints(s.At), report.Hints(s.At); !reflect.DeepEqual(got, want) {
						t.Fatalf("%v in, the live screen says\n%s\nand report --to that moment\n%s", since, hxDump(got), hxDump(want))
					}
				}
			}
		})
	}
}

// hxFirstHint plays a demo into an Engine as a live screen would, asking
// for the hints at every sample, and returns how long after the start the
// first hint with one of ids (at warning or worse) was given, and what the
// screen said then.
func hxFirstHint(t testing.TB, scenario string, limit time.Duration, ids ...string) (time.Duration, []timeline.Hint) {
	samples, info := hxRecordDemo(t, scenario, 1, limit)
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
		hints := e.Hints(samples[i].At)
		for _, h := range hints {
			if slices.Contains(ids, h.ID) && h.Severity >= timeline.Warning {
				return samples[i].At.Sub(samples[0].At), hints
			}
		}
	}
	return -1, nil
}

// The first reading comes within 30 s of sample time: a person who opens
// gputop to check a job learns something before they would give up. The
// checkpoint demo stalls first at about 1m15s; its waiting ranks are named
// within that stall.
func TestHintsDemoFirstReading(t *testing.T) {
	for _, c := range []struct {
		scenario string
		within   time.Duration
		ids      []string
	}{
		{"input-bound", 30 * time.Second, []string{timeline.HintInputBound, timeline.HintHostSingleThread}},
		{"imbalance", 30 * time.Second, []string{timeline.HintGPUImbalance}},
		{"cpu-fallback", 30 * time.Second, []string{timeline.HintIdleMemoryHeld}},
		{"checkpoint", 2 * time.Minute, []string{timeline.HintBusyWait, timeline.HintPeriodicStall}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			at, hints := hxFirstHint(t, c.scenario, 5*time.Minute, c.ids...)
			if at < 0 || at > c.within {
				t.Fatalf("first %v at %v, want within %v", c.ids, at, c.within)
			}
			t.Logf("first hint %v in:\n%s", at, hxDump(hints))
		})
	}
}

// BenchmarkFirstHint reports, per demo, how many seconds of samples pass
// before the screen gives its first hint (s-to-hint): the goal is 30 s.
func BenchmarkFirstHint(b *testing.B) {
	for _, c := range []struct {
		scenario string
		ids      []string
	}{
		{"input-bound", []string{timeline.HintInputBound, timeline.HintHostSingleThread}},
		{"imbalance", []string{timeline.HintGPUImbalance}},
		{"cpu-fallback", []string{timeline.HintIdleMemoryHeld}},
		{"checkpoint", []string{timeline.HintBusyWait, timeline.HintPeriodicStall}},
	} {
		b.Run(c.scenario, func(b *testing.B) {
			var at time.Duration
			for b.Loop() {
				at, _ = hxFirstHint(b, c.scenario, 5*time.Minute, c.ids...)
			}
			b.ReportMetric(at.Seconds(), "s-to-hint")
		})
	}
}

// The healthy demo gives no warning at any moment of half an hour, live.
func TestHintsTrainingNeverWarns(t *testing.T) {
	samples, info := hxRecordDemo(t, "training", 1, 30*time.Minute)
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
		if i%5 != 0 {
			continue
		}
		for _, h := range e.Hints(samples[i].At) {
			if h.Severity >= timeline.Warning {
				t.Fatalf("%v in: %v %s\n%s", samples[i].At.Sub(samples[0].At), h.Severity, h.ID, hxDump([]timeline.Hint{h}))
			}
		}
	}
}

// TestBudgetKeepsTheDemosHints checks SetBudget on the demo's scenarios:
// two hours of each, the Engine within 512 KiB (let go of from about an
// hour in), give at the end the hints an Engine that keeps everything
// gives, asked every 10 s as the screen asks: the same rules, severities,
// GPUs, starts, ends and episodes. Their figures may differ: an episode
// still going on is described from the columns held (SetBudget).
func TestBudgetKeepsTheDemosHints(t *testing.T) {
	if testing.Short() {
		t.Skip("two hours of each scenario: run without -short")
	}
	for _, scenario := range demo.Scenarios {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			samples, info := hxRecordDemo(t, scenario, 1, 2*time.Hour)
			budgeted, whole := analysis.NewEngine(info), analysis.NewEngine(info)
			budgeted.SetBudget(512 << 10)
			for i := range samples {
				for _, e := range []*analysis.Engine{budgeted, whole} {
					e.Add(&samples[i])
					if i%10 == 0 {
						e.Hints(samples[i].At)
					}
				}
			}
			if since := budgeted.HeldSince(); since.IsZero() || since.Sub(samples[0].At) < time.Hour {
				t.Fatalf("held since %v: the budget let go of too little to prove anything", since)
			}
			last := samples[len(samples)-1].At
			if got, want := hintShapes(budgeted.Hints(last)), hintShapes(whole.Hints(last)); got != want {
				t.Errorf("within the budget\n%s\nkeeping everything\n%s", got, want)
			}
		})
	}
}

// hintShapes is what each hint says but its figures: rule, severity, GPUs,
// times and episodes.
func hintShapes(hs []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s %s %v %s-%s ongoing %v\n", h.Severity, h.ID, h.GPUs, h.Start.Format(time.TimeOnly),
			h.End.Format(time.TimeOnly), h.Ongoing)
		for _, ep := range h.Episodes {
			fmt.Fprintf(&b, "  %v %s-%s\n", ep.GPUs, ep.Start.Format(time.TimeOnly), ep.End.Format(time.TimeOnly))
		}
	}
	return b.String()
}
