package main

import (
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/exporter"
)

// pipeline is how every command that samples puts its session together,
// in this one place, so that adding a sink or a source is one edit here:
//
//	source ──▶ judge ──▶ exporter (--listen, serve) ──▶ Recorder ──▶ screen, or Run
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
// so that the exporter can take its port first.
func newPipeline() *pipeline {
	// The judge takes the source's description with every sample: none
	// is known yet (NVML may take seconds to find the GPUs).
	judge := analysis.NewJudge(timeline.SourceInfo{})
	judge.SetBudget(analysis.DefaultColumnBudget) // a session may run for weeks
	return &pipeline{judge: judge}
}

// exporter is an Exporter that publishes what the judge made of each
// sample.
func (p *pipeline) exporter() *exporter.Exporter {
	return exporter.New(exporter.Options{Version: version, Judge: p.judge})
}

// recorder puts the pipeline together from src: the judge first, then exp
// (nil for none), then the Recorder every command records through, which
// the caller starts, and pulls from or hands to the screen.
func (p *pipeline) recorder(src timeline.Source, exp *exporter.Exporter, force, sync bool) *recordings.Recorder {
	head := p.judge.Source(src)
	if exp != nil {
		head = exp.Tap(head)
	}
	return recordings.NewRecorder(head, p.recorderOptions(force, sync))
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
