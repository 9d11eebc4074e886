package remote

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/probes/nvidia"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// BenchmarkViewerTick64Hosts is the part of a tick of `gputop --hosts
// 'node[1-64]'` that grows with the hosts, past reading their streams:
// 64 demo nodes' samples merged into one, taken by the Judge (derived,
// filed in its columns) and filed in the screen's store, as the live
// view does. Unlike the viewer's CPU ticks a minute it runs in seconds,
// so two builds can take turns many times over the same minutes.
func BenchmarkViewerTick64Hosts(b *testing.B) {
	const hosts, ticks = 64, 120
	scenarios := []string{"training", "input-bound", "imbalance", "cpu-fallback", "throttle", "checkpoint"}
	played := make([][]timeline.Sample, len(scenarios))
	var info timeline.SourceInfo
	for i, sc := range scenarios {
		played[i], info = playDemo(b, sc, ticks)
	}
	var names []string
	for i := range hosts {
		names = append(names, fmt.Sprintf("node%d", i+1))
	}
	s := newSource(Options{Hosts: names, Interval: time.Second})
	for _, h := range s.hosts {
		h.info = &info
	}
	judge := analysis.NewJudge(timeline.SourceInfo{})
	judge.SetBudget(timeline.DefaultHistoryBudget / 2)
	store := timeline.NewStore(timeline.StoreOptions{Budget: timeline.DefaultHistoryBudget})
	now := played[0][0].At
	tick := func(k int) {
		now = now.Add(time.Second)
		for i, h := range s.hosts {
			smp := played[(i+1)%len(played)][k%ticks]
			smp.At = now.Add(-time.Second)
			h.queue = append(h.queue[:0], smp)
		}
		out := s.merge(now)
		judge.Take(&out, s.Info())
		store.Add(&out)
	}
	// A few minutes first: the Engine's columns and the store's blocks in
	// their steady state.
	k := 0
	for ; k < 300; k++ {
		tick(k)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tick(k)
		k++
	}
}

// playDemo is ticks samples of a demo node playing scenario, as `gputop
// stream --demo` samples them, and the node's description.
func playDemo(b testing.TB, scenario string, ticks int) ([]timeline.Sample, timeline.SourceInfo) {
	clock := probes.NewFastClock(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	node, err := demo.New(scenario, 1, clock)
	if err != nil {
		b.Fatal(err)
	}
	nv, err := nvidia.OpenNVMLPaced(node.NVML(), clock, nvidia.EveryTick)
	if err != nil {
		b.Fatal(err)
	}
	defer nv.Close()
	sampler := probes.NewSampler(probes.SamplerConfig{Interval: time.Second, Timeout: 30 * time.Second,
		Probes: append(nv.Probes(), node.HostProbe()), Clock: clock})
	defer sampler.Close()
	var out []timeline.Sample
	for range ticks {
		smp, err := sampler.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, smp)
	}
	return out, timeline.SourceInfo{Kind: timeline.Demo, Host: node.Hostname(), Interval: time.Second, GPUs: nv.GPUs()}
}
