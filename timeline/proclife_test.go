package timeline

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestProcessSpans: a process's life over a stretch, from the process
// lists in it and the one current at its start: a PID reused by a later
// process is another span; one on two GPUs is two; one that let go is not
// running; peak memory ignores unknowns.
func TestProcessSpans(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	first, second := at(-100), at(12)
	lists := map[int][]Process{
		0:  {{GPU: 0, PID: 10, GPUMem: 1 << 30, Started: first}, {GPU: 1, PID: 10, GPUMem: 2 << 30, Started: first}},
		5:  {{GPU: 0, PID: 10, GPUMem: 3 << 30, Started: first}, {GPU: 1, PID: 10, GPUMem: math.NaN(), Started: first}},
		10: {{GPU: 1, PID: 10, GPUMem: 1 << 30, Started: first}},
		15: {{GPU: 0, PID: 10, GPUMem: 5 << 30, Started: second}, {GPU: 1, PID: 10, GPUMem: 1 << 30, Started: first}},
	}
	s := NewStore(StoreOptions{})
	for sec := 0; sec <= 17; sec++ {
		smp := Sample{At: at(sec)}.WithMetrics([]Metric{{Key: Key{Name: GPUUtil, Device: "gpu0"}, Value: 1}})
		smp.Processes = lists[sec]
		s.Add(&smp)
	}

	spans := s.ProcessSpans(at(0), at(17))
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3: %+v", len(spans), spans)
	}
	old, reused, other := spans[0], spans[1], spans[2]
	if old.GPU != 0 || !old.Started.Equal(first) || old.Running || !old.LastSeen.Equal(at(5)) || old.PeakGPUMem != 3<<30 {
		t.Errorf("GPU0's first PID 10: %+v", old)
	}
	if reused.GPU != 0 || !reused.Started.Equal(second) || !reused.Running || !reused.FirstSeen.Equal(at(15)) || reused.PeakGPUMem != 5<<30 {
		t.Errorf("GPU0's reused PID 10: %+v", reused)
	}
	if other.GPU != 1 || !other.Running || other.PeakGPUMem != 2<<30 || !other.FirstSeen.Equal(at(0)) {
		t.Errorf("GPU1's PID 10: %+v", other)
	}

	// A stretch from 7 s starts with the list current then (5 s).
	if spans := s.ProcessSpans(at(7), at(9)); len(spans) != 2 || !spans[0].FirstSeen.Equal(at(5)) {
		t.Errorf("from 7 s: %+v", spans)
	}
	if f, l := s.ProcessListsIn(at(7), at(12)); !f.Equal(at(5)) || !l.Equal(at(10)) {
		t.Errorf("lists in 7-12 s: %v %v", f, l)
	}
	if spans := s.ProcessSpans(at(-10), at(-5)); spans != nil {
		t.Errorf("before any list: %+v", spans)
	}
}

// TestProcessSpansOrderHostilePIDs: a file's PIDs are any varint; the spans
// still come in PID order where a PID's difference would overflow an int.
func TestProcessSpansOrderHostilePIDs(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pids := []int{math.MaxInt, math.MinInt, 7, -1, math.MinInt + 1}
	s := NewStore(StoreOptions{})
	smp := Sample{At: t0}.WithMetrics([]Metric{{Key: Key{Name: GPUUtil, Device: "gpu0"}, Value: 1}})
	for _, pid := range pids {
		smp.Processes = append(smp.Processes, Process{GPU: 0, PID: pid, Started: t0})
	}
	s.Add(&smp)
	var got []int
	for _, sp := range s.ProcessSpans(t0, t0.Add(time.Second)) {
		got = append(got, sp.PID)
	}
	want := []int{math.MinInt, math.MinInt + 1, -1, 7, math.MaxInt}
	if !slices.Equal(got, want) {
		t.Errorf("PIDs in order %v, want %v", got, want)
	}
}

// BenchmarkProcessSpans is the process table's read of a day's window on a
// busy node (8 GPUs, 4 processes each, a list every 5 s): done only when the
// window's lists change, not every frame.
func BenchmarkProcessSpans(b *testing.B) {
	t0 := time.Unix(1_700_000_000, 0)
	s := NewStore(StoreOptions{})
	for i := range maxProcessLists {
		var procs []Process
		for g := range 8 {
			for p := range 4 {
				procs = append(procs, Process{GPU: g, PID: 1000 + g*10 + p + i/1000, GPUMem: float64(i)})
			}
		}
		s.addProcesses(t0.Add(time.Duration(i)*5*time.Second).UnixNano(), procs)
	}
	end := t0.Add(maxProcessLists * 5 * time.Second)
	for _, w := range []struct {
		name string
		span time.Duration
	}{{"10m", 10 * time.Minute}, {"24h", 24 * time.Hour}} {
		b.Run(w.name, func(b *testing.B) {
			for b.Loop() {
				s.ProcessSpans(end.Add(-w.span), end)
			}
		})
	}
}
