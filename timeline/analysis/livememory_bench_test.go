package analysis_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// BenchmarkLiveMemory is what a live session holds after it has run for a
// while: the demo's samples (8 H100s, about 580 series) fed, in sample
// time, to the process's Judge and then to the screen's store, as the live
// view does, the hints asked every 5 s; for 64 hosts, 64 such machines
// merged into one sample a tick as --hosts merges them. MB-held is the heap
// both hold once the session has run that long (after a collection).
//
// The day-long and 64-host cases take minutes; under -short only the first
// runs.
func BenchmarkLiveMemory(b *testing.B) {
	for _, c := range []struct {
		name  string
		hosts int
		span  time.Duration
	}{
		{"8gpu-1h", 1, time.Hour},
		{"8gpu-24h", 1, 24 * time.Hour},
		{"64x8-1h", 64, time.Hour},
		{"64x8-24h", 64, 24 * time.Hour},
	} {
		b.Run(c.name, func(b *testing.B) {
			if testing.Short() && (c.hosts > 1 || c.span > time.Hour) {
				b.Skip("minutes long: run without -short")
			}
			var held float64
			for b.Loop() {
				held = liveHeld(b, c.hosts, c.span)
			}
			b.ReportMetric(held/1e6, "MB-held")
		})
	}
}

// liveHeld runs a live session of hosts demo machines for span and returns
// the bytes of heap the Judge and the store hold at its end.
func liveHeld(b *testing.B, hosts int, span time.Duration) float64 {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	clock := probes.NewFastClock(timelinetest.T0)
	node, err := demo.New("checkpoint", 1, clock)
	if err != nil {
		b.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	var m merger
	judge := analysis.NewJudge(timeline.SourceInfo{})
	// The live view's judge and store, with the budgets they have on a
	// machine of 8 GiB or more: the judge half the store's.
	judge.SetBudget(timeline.DefaultHistoryBudget / 2)
	store := timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.DefaultRawSamples,
		Budget: timeline.DefaultHistoryBudget})
	for k := range int(span / time.Second) {
		s, err := sess.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		info := sess.Info()
		if hosts > 1 {
			s, info = m.merge(s, info, hosts)
		}
		judge.Take(&s, info)
		store.Add(&s)
		if k%5 == 0 {
			judge.Hints(s.At)
		}
	}
	runtime.GC()
	if f := os.Getenv("GPUTOP_LIVE_HEAP"); f != "" {
		// Where the held memory is: go tool pprof -sample_index=inuse_space.
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(out); err != nil {
			b.Fatal(err)
		}
		out.Close()
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(judge)
	runtime.KeepAlive(store)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// merger makes one sample of hosts machines out of one machine's: host h
// reads what the demo read h seconds before (so no two hosts read alike),
// its GPUs numbered from h*8 and its other devices NAME@nodeH, as the
// remote merge numbers them, in the same columns tick after tick.
type merger struct {
	past [][]float64       // the demo's last samples' values, newest first
	from *timeline.Columns // the demo's columns cols are made of
	cols *timeline.Columns // from, renamed for each host in turn
	info timeline.SourceInfo
}

func (m *merger) merge(s timeline.Sample, info timeline.SourceInfo, hosts int) (timeline.Sample, timeline.SourceInfo) {
	if s.Columns != m.from || len(m.info.GPUs) != hosts*len(info.GPUs) {
		m.from, m.past = s.Columns, nil
		m.info = info
		m.info.GPUs, m.info.Hosts = nil, nil
		var keys []timeline.Key
		var kinds []timeline.Kind
		for h := range hosts {
			name := timelinetest.ClusterHost(h)
			m.info.Hosts = append(m.info.Hosts, timeline.HostInfo{Name: name, Driver: info.Driver, CUDA: info.CUDA})
			for _, g := range info.GPUs {
				g.Host, g.HostIndex, g.Index = name, g.Index, h*len(info.GPUs)+g.Index
				m.info.GPUs = append(m.info.GPUs, g)
			}
			for i, k := range s.Columns.Keys() {
				if g, ok := timeline.ParseGPUDevice(k.Device); ok {
					k.Device = timeline.GPUDevice(h*len(info.GPUs) + g)
				} else {
					k.Device = timeline.DeviceOnHost(k.Device, name)
				}
				keys, kinds = append(keys, k), append(kinds, s.Columns.Kind(i))
			}
		}
		m.cols = timeline.NewColumns(keys, kinds)
	}
	m.past = append([][]float64{slices.Clone(s.Values)}, m.past...)
	if len(m.past) > hosts {
		m.past = m.past[:hosts]
	}
	out := timeline.Sample{At: s.At, Columns: m.cols, Values: make([]float64, 0, hosts*s.Len())}
	for h := range hosts {
		out.Values = append(out.Values, m.past[min(h, len(m.past)-1)]...)
		out.Probes = append(out.Probes, timeline.ProbeStatus{Probe: timeline.RemoteProbe,
			Device: timelinetest.ClusterHost(h), State: timeline.ProbeOK})
		for _, p := range s.Processes {
			p.GPU += h * len(info.GPUs)
			out.Processes = append(out.Processes, p)
		}
	}
	return out, m.info
}
