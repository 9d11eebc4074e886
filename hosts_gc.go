package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"

	"github.com/gputop-dev/gputop/timeline"
)

// pacedCollector is a session of several hosts that paces the collector
// by its size. The screen collects when the heap has grown by a quarter of
// what is live (runUI's GOGC 25, for one host's memory); a session of
// bigSessionGPUs GPUs or more collects when it has grown by
// bigSessionHeadroom, or by a quarter where that is more. A big session's
// history is hundreds of MB of columns without pointers, its samples
// several MB a second of keys with them: collecting at a quarter, the
// 64-host viewer spent 14-18 % of its CPU in the collector and 12 % more
// in the pages it gave back, faulted in again by the next samples. A fixed
// headroom bounds what that costs in memory: at most 128 MB more than a
// quarter (docs/performance.md, "Several hosts").
type pacedCollector struct {
	hostsSource
	big     bool
	off     bool // GOGC asked for less than the screen's 25: left alone
	samples int
	percent int // the GOGC set last
	live    []metrics.Sample
}

// hostsSource is what a session of several hosts is to the pipeline: a
// source that takes markers (remote.Source).
type hostsSource interface {
	timeline.Source
	timeline.MarkSink
}

const (
	// bigSessionGPUs is the size from which a session's collector is
	// paced by headroom: where the screen judges its hints every few
	// seconds too (ui's bigSession).
	bigSessionGPUs = 128
	// bigSessionHeadroom is how much a big session's heap grows between
	// collections, at least.
	bigSessionHeadroom = 128 << 20
	// paceEvery is how many samples apart the headroom is set again, as
	// what is live grows (an hour's history).
	paceEvery = 30
)

func (p *pacedCollector) Next(ctx context.Context) (timeline.Sample, error) {
	s, err := p.hostsSource.Next(ctx)
	if err == nil {
		p.pace()
	}
	return s, err
}

// pace sets GOGC to the headroom's share of what is live, every paceEvery
// samples of a big session.
func (p *pacedCollector) pace() {
	if p.off || !p.big && len(p.Info().GPUs) < bigSessionGPUs {
		return
	}
	if !p.big {
		p.big = true
		p.live = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	}
	p.samples++
	if p.samples%paceEvery != 1 {
		return
	}
	metrics.Read(p.live)
	var live uint64
	if v := p.live[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	percent := headroomPercent(live)
	if percent == p.percent {
		return
	}
	if was := debug.SetGCPercent(percent); was < 25 {
		// GOGC asked for less (runUI keeps that too), or for none.
		debug.SetGCPercent(was)
		p.off = true
		return
	}
	p.percent = percent
}

// headroomPercent is the GOGC that lets a heap of live bytes grow by
// bigSessionHeadroom: between the screen's 25 and 100.
func headroomPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, max(25, 100*bigSessionHeadroom/live)))
}
