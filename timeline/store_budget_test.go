package timeline

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A live store with a budget keeps within it however long it runs, its
// oldest fine history going first, and still shows the whole session.
func TestStoreBudgetHolds(t *testing.T) {
	const series, budget = 400, 4 << 20
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples, Budget: budget})
	rng := rand.New(rand.NewPCG(3, 4))
	ms := make([]Metric, series)
	for i := range 2 * 86400 / 5 { // two days at 5 s
		for k := range ms {
			v := 50.0
			if k%3 == 0 {
				v = float64(rng.IntN(1000)) / 10 // a third of the series noisy
			}
			ms[k] = g(GPUUtil, GPUDevice(k), v)
		}
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * 5 * time.Second)}.WithMetrics(ms)))
		if i%1000 == 0 && s.HeldBytes() > budget+budget/8 {
			t.Fatalf("after %d samples the store holds %d bytes, past its budget of %d", i, s.HeldBytes(), budget)
		}
	}
	if got := s.HeldBytes(); got > budget+budget/8 {
		t.Fatalf("the store holds %d bytes, past its budget of %d", got, budget)
	}
	if s.OldestRaw().Before(t0.Add(24 * time.Hour)) {
		t.Errorf("the fine history reaches back to %v: a budget of %d bytes cannot hold that", s.OldestRaw(), budget)
	}
	// The whole session, from its first sample, in 100 columns.
	dst := make([]Agg, 100)
	s.Series(Key{GPUUtil, "gpu1"}, t0, t0.Add(48*time.Hour), dst)
	for i, a := range dst {
		if a.Mean != 50 {
			t.Fatalf("column %d of two days: %v, want 50", i, a)
		}
	}
}

// The process lists keep within their share of the budget however long a
// session of many processes runs: the newest stay whole, older ones are
// thinned, and the session's first list is still there.
func TestProcessListsKeepWithinTheBudget(t *testing.T) {
	const budget = 8 << 20
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples, Budget: budget})
	procs := make([]Process, 600) // 64 hosts' worth
	for i := range procs {
		procs[i] = Process{GPU: i % 512, PID: 1000 + i}
	}
	const lists = 5000
	for i := range lists {
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * 5 * time.Second),
			Processes: procs[:len(procs):len(procs)]}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 50)})))
	}
	if s.procBytes > budget/8 {
		t.Fatalf("the process lists hold %d bytes, past their %d", s.procBytes, budget/8)
	}
	if got, _ := s.ProcessesAt(t0); len(got) != len(procs) {
		t.Errorf("the first list is gone: %d processes at the start", len(got))
	}
	last := t0.Add((lists - 1) * 5 * time.Second)
	if _, at := s.ProcessesAt(last); !at.Equal(last) {
		t.Errorf("the newest list is of %v, want %v", at, last)
	}
	// The newest lists stay one every 5 s.
	n := len(s.processes)
	if d := time.Duration(s.processes[n-1].at - s.processes[n-2].at); d != 5*time.Second {
		t.Errorf("the newest lists are %v apart, want 5s", d)
	}
}

// A budget changes only what is kept of the past: whatever the budgeted
// store still holds raw reads exactly as an unbounded store's, window for
// window, and the newest value is the same.
func TestBudgetKeepsTheRecentPastExact(t *testing.T) {
	const series = 300
	small := NewStore(StoreOptions{RawSamples: DefaultRawSamples, Budget: 2 << 20})
	whole := NewStore(StoreOptions{RawSamples: DefaultRawSamples})
	rng := rand.New(rand.NewPCG(5, 6))
	ms := make([]Metric, series)
	for i := range 4 * 3600 {
		for k := range ms {
			v := float64(k % 7)
			if k%4 == 0 {
				v = float64(rng.IntN(10000)) / 100
			}
			ms[k] = g(GPUUtil, GPUDevice(k), v)
		}
		smp := Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(ms)
		small.Add(&smp)
		whole.Add(&smp)
	}
	if !small.OldestRaw().After(whole.OldestRaw()) {
		t.Fatalf("the budget kept as much raw history as no budget (%v): the test tests nothing", small.OldestRaw())
	}
	from, to := small.OldestRaw(), small.Last()
	a, b := make([]Agg, 150), make([]Agg, 150)
	for _, k := range []int{0, 1, 4, 299} {
		key := Key{GPUUtil, GPUDevice(k)}
		small.Series(key, from, to, a)
		whole.Series(key, from, to, b)
		for i := range a {
			if a[i] != b[i] && !(a[i].Empty() && b[i].Empty()) {
				t.Fatalf("series %d column %d: %v within the budget, %v without", k, i, a[i], b[i])
			}
		}
		if x, y := small.ValueAt(key, to), whole.ValueAt(key, to); x != y {
			t.Fatalf("series %d: the newest value %v within the budget, %v without", k, x, y)
		}
	}
}

// HeldBytes is what the store's history takes: its raw samples, its
// buckets and its process lists, the series' keys and events aside.
func (s *Store) HeldBytes() int {
	n := s.raw.HeldBytes() + s.procBytes
	for _, b := range s.tiers {
		n += b.HeldBytes()
	}
	return n
}
