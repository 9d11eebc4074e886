package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui"
)

// hintKeys are hints as /metrics names them: id, severity and GPU, one
// per GPU (or none), of the hints that hold.
func hintKeys(hints []timeline.Hint) []string {
	var out []string
	for _, h := range hints {
		if !h.Ongoing {
			continue
		}
		if len(h.GPUs) == 0 {
			out = append(out, h.ID+"/"+h.Severity.String()+"/")
		}
		for _, g := range h.GPUs {
			out = append(out, fmt.Sprintf("%s/%s/%d", h.ID, h.Severity, g))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// activeHints are the gputop_hint_active series an exporter serves now.
func activeHints(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		if mf.GetName() != "gputop_hint_active" {
			continue
		}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out = append(out, l["id"]+"/"+l["severity"]+"/"+l["gpu"])
		}
	}
	slices.Sort(out)
	return out
}

// The live view with --record and --listen on a demo: one pipeline, one
// judgement, so that at every minute the hints the screen lists, those the
// file keeps and those /metrics serves are the same.
func TestScreenFileAndMetricsAgree(t *testing.T) {
	isolateMarks(t)
	for _, scenario := range []string{"checkpoint", "imbalance", "input-bound"} {
		t.Run(scenario, func(t *testing.T) {
			clock := probes.NewFastClock(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
			var d demoFlag
			if err := d.Set(scenario); err != nil {
				t.Fatal(err)
			}
			machine, err := d.machine(clock)
			if err != nil {
				t.Fatal(err)
			}
			session := probes.OpenPending(probes.SessionConfig{Interval: time.Second, Machine: machine, Clock: clock})
			defer session.Close()
			pipe := newPipeline(timeline.DefaultHistoryBudget)
			exp := pipe.exporter()
			rec := pipe.recorder(session, exp, false, true) // written as taken, as record --fast does
			path := filepath.Join(t.TempDir(), "live.gtr")
			if _, err := rec.Start(path); err != nil {
				t.Fatal(err)
			}
			m := ui.New(ui.Options{Source: rec, Judge: pipe.judge})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			type moment struct {
				at             time.Time
				screen, metric []string
			}
			var moments []moment
			cmd := m.Init()
			for range 8 * 60 {
				msg := cmd()
				if b, ok := msg.(tea.BatchMsg); ok { // the pull, beside commands of nothing
					for _, c := range b {
						if c != nil {
							msg = c()
						}
					}
				}
				_, cmd = m.Update(msg)
				if last := pipe.judge.Last(); last.Second() == 0 {
					moments = append(moments, moment{last, hintKeys(m.HintsShown()), activeHints(t, exp)})
				}
			}
			sum, err := rec.Stop()
			if err != nil || sum.Samples == 0 {
				t.Fatalf("recording: %v, %+v", err, sum)
			}
			r, err := recordings.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for {
				if _, err := r.Read(); err != nil {
					break
				}
			}
			snaps := r.Hints()
			any := false
			for _, mo := range moments {
				snap, ok := recordings.HintsAt(snaps, mo.at)
				file := []string(nil)
				if ok {
					file = hintKeys(snap.Hints)
				}
				if !slices.Equal(mo.screen, mo.metric) || !slices.Equal(mo.screen, file) {
					t.Errorf("at %s the screen lists %v, /metrics serves %v, the file keeps %v",
						mo.at.Format(time.TimeOnly), mo.screen, mo.metric, file)
				}
				any = any || len(mo.screen) > 0
			}
			if !any {
				t.Errorf("no hint in %d minutes: the test compared nothing; moments %v", len(moments), moments)
			}
			if len(moments) < 7 {
				t.Errorf("only %d minutes compared", len(moments))
			}
		})
	}
}
