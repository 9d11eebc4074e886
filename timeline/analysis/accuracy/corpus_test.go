package accuracy_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/analysis/accuracy"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// liveEvery is how often, in sample time, the live screen is asked for its
// hints, for the time to first detection.
var liveEvery = accuracy.LiveStep

// judge feeds samples to an Engine as a live screen would, asking every
// liveEvery until it has shown every label of c (a healthy run's none, so
// it is never asked), and then asks it as a report over the whole run does.
func judge(c accuracy.Case, samples []timeline.Sample, info timeline.SourceInfo, live bool) accuracy.Answer {
	if len(samples) == 0 {
		return accuracy.Answer{Err: "no samples"}
	}
	e := analysis.NewEngine(info)
	a := accuracy.Answer{First: samples[0].At}
	next := samples[0].At
	live = live && len(c.Labels) > 0
	for i := range samples {
		e.Add(&samples[i])
		// On a fixed grid of sample time, so a late sample shifts no ask.
		if at := samples[i].At; live && !at.Before(next) {
			hints := e.Hints(at)
			a.Live = append(a.Live, accuracy.LiveAnswer{At: at, Hints: hints})
			live = !accuracy.Seen(c, a.First, hints)
			for !next.After(at) {
				next = next.Add(liveEvery)
			}
		}
	}
	a.Last = e.Last()
	a.Hints = e.Hints(e.Last())
	return a
}

// realStart is where a log without timestamps is taken to start: fixed, so
// the document is the same on every machine (the file's time is not).
var realStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func judgeReal(t *testing.T, l accuracy.RealLog) accuracy.Outcome {
	raw := timelinetest.Telemetry(t, l.File)
	res, err := importer.Import(bytes.NewReader(raw), importer.Options{Origin: l.File, Start: realStart,
		Interval: l.Interval, Columns: l.Columns})
	if err != nil {
		return accuracy.Score(l.Case, accuracy.Answer{Err: "gputop cannot import it: " + err.Error()})
	}
	return accuracy.Score(l.Case, judge(l.Case, res.Samples, res.Info, true))
}

func judgeDemo(t *testing.T, d accuracy.DemoRun) accuracy.Outcome {
	clock := probes.NewFastClock(accuracy.SynthStart)
	node, err := demo.New(d.Scenario, 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer func() {
		if err := sess.Close(); err != nil {
			t.Error(err)
		}
	}()
	var samples []timeline.Sample
	for range int(accuracy.DemoLength / time.Second) {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s)
	}
	// Not asked live: the demo delivers an Xid from a goroutine of its own,
	// so the sample it lands in, and a first detection, moves by a tick
	// from run to run (BenchmarkFirstHint times the demos' first hints).
	return accuracy.Score(d.Case, judge(d.Case, samples, sess.Info(), false))
}

func judgeSynthetic(run accuracy.Run) accuracy.Outcome {
	if run.Format == accuracy.Recorded {
		return accuracy.Score(run.Case, judge(run.Case, run.Samples(), run.Info(), true))
	}
	res, err := importer.Import(bytes.NewReader(run.File()), importer.Options{Origin: run.Case.Name,
		Start: accuracy.SynthStart, Interval: run.Interval, Columns: run.ImportColumns()})
	if err != nil {
		return accuracy.Score(run.Case, accuracy.Answer{Err: "gputop cannot import it: " + err.Error()})
	}
	return accuracy.Score(run.Case, judge(run.Case, res.Samples, res.Info, true))
}

// corpus judges every case, in the corpus's order, the synthetic runs on
// every CPU.
func corpus(t *testing.T) []accuracy.Outcome {
	var out []accuracy.Outcome
	for _, l := range accuracy.RealLogs() {
		out = append(out, judgeReal(t, l))
	}
	for _, d := range accuracy.Demos() {
		out = append(out, judgeDemo(t, d))
	}
	runs := accuracy.SyntheticRuns()
	synth := make([]accuracy.Outcome, len(runs))
	var wg sync.WaitGroup
	work := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range work {
				synth[i] = judgeSynthetic(runs[i])
			}
		})
	}
	for i := range runs {
		work <- i
	}
	close(work)
	wg.Wait()
	return append(out, synth...)
}

// docPath is docs/accuracy.md, from this package's directory.
var docPath = filepath.Join("..", "..", "..", "docs", "accuracy.md")
