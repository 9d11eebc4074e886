package ui

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The screen says what the report says: at every minute of a session, the
// hints the screen holds for its cursor are those of gputop report --to
// that minute, which reads the samples up to it into an Engine of its own
// (report.Analyse). Live, as samples arrive one by one, and in a replay,
// loaded in batches and then moved through with the t key, over the six
// demos and the shared logs.

// sessionData is one session's samples and description.
type sessionData struct {
	name    string
	info    timeline.SourceInfo
	samples []timeline.Sample
}

// demoSession plays a demo scenario for d of simulated time, as `gputop
// record --demo --fast` does.
func demoSession(t *testing.T, scenario string, d time.Duration) sessionData {
	t.Helper()
	clock := probes.NewFastClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	node, err := demo.New(scenario, 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	out := sessionData{name: "demo " + scenario}
	for range int(d / time.Second) {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out.samples = append(out.samples, s)
	}
	out.info = sess.Info()
	return out
}

// logSession imports one of the shared logs, as gputop import does.
func logSession(t *testing.T, name string) sessionData {
	t.Helper()
	res, err := importer.Import(bytes.NewReader(timelinetest.Telemetry(t, name)),
		importer.Options{Origin: name, Start: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return sessionData{name: name, info: res.Info, samples: res.Samples}
}

// reportTo is the hints of gputop report --to t over a session.
func reportTo(d sessionData, t time.Time) []timeline.Hint {
	e := analysis.NewEngine(d.info)
	end := analysis.SamplesUntil(d.info, t)
	for i := range d.samples {
		if !d.samples[i].At.Before(end) {
			break
		}
		e.Add(&d.samples[i])
	}
	return report.Analyse(e).Hints
}

func hintsDump(hints []timeline.Hint) string {
	var b strings.Builder
	for _, h := range hints {
		fmt.Fprintf(&b, "  %v %s %v %s-%s prov=%v on=%v eps=%d: %s\n", h.Severity, h.ID, h.GPUs, h.Start.Format(time.TimeOnly),
			h.End.Format(time.TimeOnly), h.Provisional, h.Ongoing, len(h.Episodes), h.Evidence)
	}
	return b.String()
}

func TestScreenSaysWhatTheReportSays(t *testing.T) {
	var sessions []func(t *testing.T) sessionData
	for _, sc := range demo.Scenarios {
		sessions = append(sessions, func(t *testing.T) sessionData { return demoSession(t, sc, 10*time.Minute) })
	}
	for _, name := range []string{
		"llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv", "gpt125m_2xtitanx_gloo_querygpu_100ms_noindex.csv",
		"nanogpt_8xh100_colocation_querygpu_300ms.csv", "resnet50_train_a100mig_dcgmi_gract_1s.csv",
		"unet_optuna_h200_querygpu_2s.csv", "vlm_llava_rtx4090_querygpu.csv", "vgg16_tf_v100_dmon.dmon",
		"ollama_slm_rtx5070laptop_dmon.log",
	} {
		sessions = append(sessions, func(t *testing.T) sessionData { return logSession(t, name) })
	}
	// Sessions of several hosts: the cross-host hints, and GPUs named by host.
	sessions = append(sessions, func(t *testing.T) sessionData { return hostsSession() })
	for _, session := range sessions {
		d := session(t)
		first, last := d.samples[0].At, d.samples[len(d.samples)-1].At
		// A long log is checked at 40 moments, not at each of its minutes.
		step := max(time.Minute, (last.Sub(first) / 40).Truncate(time.Minute))
		t.Run(d.name, func(t *testing.T) {
			t.Run("live", func(t *testing.T) {
				src := &sliceSource{info: d.info}
				src.info.Kind = timeline.Live // a log played as if it were being sampled
				m := New(Options{Source: src})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				next := first.Add(step)
				for i := range d.samples {
					if d.samples[i].At.Sub(first) > 45*time.Minute {
						break // the rest of a long log, the replay below covers
					}
					m.Update(samplesMsg{samples: d.samples[i : i+1]})
					if at := d.samples[i].At; !at.Before(next) {
						next = next.Add(step)
						if got, want := m.an.hints, reportTo(d, at); !reflect.DeepEqual(got, want) {
							t.Fatalf("%v in, the screen holds\n%sand report --to that moment says\n%s", at.Sub(first),
								hintsDump(got), hintsDump(want))
						}
					}
				}
			})
			t.Run("replay", func(t *testing.T) {
				src := &sliceSource{info: d.info}
				src.info.Kind = timeline.Replay
				m := New(Options{Source: src})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				for i := 0; i < len(d.samples); i += batchSize {
					m.Update(samplesMsg{samples: d.samples[i:min(len(d.samples), i+batchSize)]})
				}
				m.Update(sourceDoneMsg{})
				for off := step; first.Add(off).Before(last); off += step {
					press(m, "t")
					for _, r := range "+" + off.String() {
						press(m, string(r))
					}
					m.Update(tea.KeyMsg{Type: tea.KeyEnter})
					at := first.Add(off)
					if !m.play.Cursor.Equal(at) {
						t.Fatalf("t +%v put the cursor at %v, want %v", off, m.play.Cursor, at)
					}
					if got, want := m.an.hints, reportTo(d, at); !reflect.DeepEqual(got, want) {
						t.Fatalf("at +%v, the screen holds\n%sand report --to that moment says\n%s", off,
							hintsDump(got), hintsDump(want))
					}
				}
			})
		})
	}
}

// hostsSession is four hosts of eight GPUs for 20 minutes: node2 starts 10
// minutes late, node3 never does, and from 15 minutes on node4 is throttled
// with 78 GiB a GPU while the others wait for it.
func hostsSession() sessionData {
	info, samples := timelinetest.Cluster(4, 8, 1200, func(h, g, sec int) timelinetest.GPUReading {
		switch {
		case h == 2 || sec < 60 || (h == 1 && sec < 660):
			return timelinetest.Idle
		case h == 3 && sec >= 900:
			return timelinetest.GPUReading{Util: 99, SM: 80, Power: 700, Clock: 1410, Mem: 78 << 30}
		case sec >= 900:
			return timelinetest.GPUReading{Util: 99, SM: 50, Power: 420, Clock: 1980, Mem: 40 << 30}
		}
		return timelinetest.Training
	})
	return sessionData{name: "4 hosts", info: info, samples: samples}
}
