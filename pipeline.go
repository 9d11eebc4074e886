package main

import (
	"context"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/exporter"
)

// pipeline is how every command that samples puts its session together,
// in this one place, so that adding a sink or a source is one edit here:
//
//	source ──▶ judge ──▶ exporter (--listen, serve) ──▶ Recorder ──▶ screen, or Run
//	           └── the sinks (observed) ──┘
//	             │            │ publishes                 │ writes       │ asks about
//	             │            └─────────── what the judge made of each sample ─┘
//	             └ derives and judges each sample once
//
// The live view, gputop record, serve, stream, run and --hosts all build
// it; a replay or an attach has no pipeline (nothing samples), and its
// screen judges the file's samples as the report does.
type pipeline struct {
	judge *analysis.Judge
}

// newPipeline starts a pipeline with its judge, before its source exists,
// so that the exporter can take its port first. A session may run for
// weeks: the judge keeps its columns within half of history, the bytes of
// the screen's history (--memory, or the machine's default where there
// is no screen).
func newPipeline(history int) *pipeline {
	// The judge takes the source's description with every sample: none
	// is known yet (NVML may take seconds to find the GPUs).
	judge := analysis.NewJudge(timeline.SourceInfo{})
	judge.SetBudget(judgeBudget(history))
	return &pipeline{judge: judge}
}

// exporter is an Exporter that publishes what the judge made of each
// sample.
func (p *pipeline) exporter() *exporter.Exporter {
	return exporter.New(exporter.Options{Version: version, Judge: p.judge})
}

// recorder puts the pipeline together from src: its sinks (observed),
// then the Recorder every command records through, which the caller
// starts, and pulls from or hands to the screen.
func (p *pipeline) recorder(src timeline.Source, exp *exporter.Exporter, force, sync bool) *recordings.Recorder {
	return recordings.NewRecorder(p.observed(src, exp), p.recorderOptions(force, sync))
}

// observed is src with each sample it yields handed to the pipeline's
// sinks, in this order: the judge first, which derives and judges it, then
// exp (nil for none), which publishes what the judge made of it.
func (p *pipeline) observed(src timeline.Source, exp *exporter.Exporter) timeline.Source {
	o := &observedSource{src: src, sinks: []func(*timeline.Sample, timeline.SourceInfo){p.judge.Take}}
	if exp != nil {
		o.sinks = append(o.sinks, exp.Observe)
	}
	return o
}

// observedSource is the one place a sample meets the pipeline's sinks on
// its way to whoever pulls it. Markers given to it go to src.
type observedSource struct {
	src   timeline.Source
	sinks []func(*timeline.Sample, timeline.SourceInfo)
}

func (o *observedSource) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := o.src.Next(ctx)
	if err == nil {
		info := o.src.Info()
		for _, sink := range o.sinks {
			sink(&s, info)
		}
	}
	return s, err
}

func (o *observedSource) Info() timeline.SourceInfo { return o.src.Info() }

func (o *observedSource) Mark(text string) {
	if m, ok := o.src.(timeline.MarkSink); ok {
		m.Mark(text)
	}
}

// recorderOptions are the options of every Recorder gputop makes: its
// files carry this version and the hints the judge says as they change
// (a tracker per file, so each file gets its first snapshot).
func (p *pipeline) recorderOptions(force, sync bool) recordings.RecorderOptions {
	return recordings.RecorderOptions{
		Version: version,
		Force:   force,
		Sync:    sync,
		NewJudge: func(timeline.SourceInfo) recordings.HintJudge {
			return p.judge.Tracker()
		},
		ShareDir: shareDir(),
	}
}
