package demo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/nvidia"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// The NVML probe's pace (probes/nvidia/nvml_pace.go) makes its costly
// calls every few seconds instead of every tick. On every demo scenario a
// session at the default pace must say what a session making every call
// every tick says: the same hints, each first on the screen at the same
// tick, and the same report of the whole run, at 1 s and at 250 ms.

// paceHintsIv plays a scenario through a whole session (its Xid events
// too) at pace for d, sampling every `every`, asking a live Engine for its
// hints at every sample: when each hint (id, severity, GPUs) first showed,
// and the report's hints at the end.
func paceHintsIv(t *testing.T, scenario string, pace nvidia.Pace, every, d time.Duration) (map[string]time.Duration, []timeline.Hint) {
	t.Helper()
	clock := probes.NewFastClock(demoStart)
	node, err := New(scenario, 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: every, Machine: node.Machine(), Clock: clock, Pace: &pace,
		// Real time enough for the race detector on a busy machine: a
		// probe timed out would be a late tick, not the pace.
		Timeout: 30 * time.Second})
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Error(err)
		}
	})
	e := analysis.NewEngine(sess.Info())
	first := map[string]time.Duration{}
	var samples []timeline.Sample
	for i := range int(d / every) {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range s.Probes {
			if st.State == timeline.ProbeLate {
				t.Fatalf("%v in: %s %s: %s %s", time.Duration(i)*every, st.Probe, st.Device, st.State, st.Err)
			}
		}
		samples = append(samples, s)
		e.Add(&samples[len(samples)-1])
		for _, h := range e.Hints(s.At) {
			k := fmt.Sprintf("%s %v %v", h.ID, h.Severity, h.GPUs)
			if _, ok := first[k]; !ok {
				first[k] = time.Duration(i) * every
			}
		}
	}
	report := analysis.NewEngine(sess.Info())
	for i := range samples {
		report.Add(&samples[i])
	}
	return first, report.Hints(report.Last())
}

func TestPaceKeepsEveryDemoHint(t *testing.T) {
	for _, c := range []struct {
		every, d time.Duration
	}{{time.Second, 10 * time.Minute}, {250 * time.Millisecond, 4 * time.Minute}} {
		if testing.Short() {
			c.d = 3 * time.Minute
		}
		for _, scenario := range Scenarios {
			t.Run(c.every.String()+"/"+scenario, func(t *testing.T) {
				t.Parallel()
				wantFirst, wantReport := paceHintsIv(t, scenario, nvidia.EveryTick, c.every, c.d)
				gotFirst, gotReport := paceHintsIv(t, scenario, nvidia.DefaultPace, c.every, c.d)
				for _, k := range slices.Sorted(maps.Keys(wantFirst)) {
					if got, ok := gotFirst[k]; !ok || got != wantFirst[k] {
						t.Errorf("%s: first at %v every tick, at %v (shown: %v) at the default pace", k, wantFirst[k], got, ok)
					}
				}
				for _, k := range slices.Sorted(maps.Keys(gotFirst)) {
					if _, ok := wantFirst[k]; !ok {
						t.Errorf("%s: shown at %v at the default pace only", k, gotFirst[k])
					}
				}
				if w, g := hintLines(wantReport), hintLines(gotReport); w != g {
					t.Errorf("the report every tick:\n%s\nat the default pace:\n%s", w, g)
				}
			})
		}
	}
}

// hintLines is what a report says of each hint, its evidence aside: the
// evidence quotes figures (a mean to 0.01 %) that GetUtilizationRates
// gives in whole percents.
func hintLines(hints []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hints {
		fmt.Fprintf(&b, "  %v %s %v %v-%v\n", h.Severity, h.ID, h.GPUs, h.Start.Format(time.TimeOnly), h.End.Format(time.TimeOnly))
	}
	return b.String()
}
