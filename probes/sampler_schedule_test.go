package probes

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Tests of the sampler's schedule: skipped and overrun ticks, cancellation,
// Close, the slow tier and simulated time. Fake probes and helpers are in
// sampler_test.go.

func TestSamplerSkipsMissedTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewSampler(SamplerConfig{Probes: []Probe{steadyProbe("gpu0")}})
		defer s.Close()
		t0 := mustNext(t, s).At
		time.Sleep(3500 * time.Millisecond) // the caller was busy for three and a half ticks

		smp := mustNext(t, s)
		if want := t0.Add(3500 * time.Millisecond); !smp.At.Equal(want) {
			t.Errorf("late pull: sample at %v, want the time it was read, %v", smp.At, want)
		}
		if lag := value(t, smp, timeline.SampleLag, timeline.SelfDevice); lag != 0.5 {
			t.Errorf("lag = %v s, want 0.5", lag)
		}
		if next := mustNext(t, s); !next.At.Equal(t0.Add(4 * time.Second)) {
			t.Errorf("following tick at %v, want back on schedule at %v", next.At, t0.Add(4*time.Second))
		}
		if got := s.Stats(); got.Overruns != 2 || got.Ticks != 3 {
			t.Errorf("stats = %+v, want 2 overruns (ticks 1 s and 2 s skipped) in 3 ticks", got)
		}
	})
}

func TestSamplerCountsCollectionLongerThanInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := &scriptedProbe{name: "nvml", device: "gpu0", answer: func(_ context.Context, call int) (Reading, error) {
			time.Sleep(1200 * time.Millisecond)
			return Reading{}, nil
		}}
		s := NewSampler(SamplerConfig{Interval: time.Second, Timeout: 2 * time.Second, Probes: []Probe{slow}})
		defer s.Close()
		t0 := mustNext(t, s).At
		second := mustNext(t, s)
		if want := t0.Add(1200 * time.Millisecond); !second.At.Equal(want) {
			t.Errorf("second tick read at %v, want %v (its schedule was 1 s, the first tick overran)", second.At, want)
		}
		if lag := value(t, second, timeline.SampleLag, timeline.SelfDevice); math.Abs(lag-0.2) > 1e-9 {
			t.Errorf("lag = %v s, want 0.2", lag)
		}
		if got := s.Stats().Overruns; got != 2 {
			t.Errorf("Overruns = %d, want 2 (both ticks took 1.2 s)", got)
		}
	})
}

func TestSamplerCancelReturnsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		hung := &scriptedProbe{name: "nvml", device: "gpu0", answer: func(context.Context, int) (Reading, error) {
			<-release
			return Reading{}, nil
		}}
		s := NewSampler(SamplerConfig{Interval: 10 * time.Second, Probes: []Probe{hung}})
		defer s.Close()

		for _, phase := range []string{"waiting on a hung probe", "sleeping until the next tick"} {
			ctx, cancel := context.WithCancel(t.Context())
			began := time.Now()
			time.AfterFunc(200*time.Millisecond, cancel)
			if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Next = %v, want context.Canceled", phase, err)
			}
			if took := time.Since(began); took != 200*time.Millisecond {
				t.Errorf("%s: Next returned %v after the call, want at the cancel, 200ms", phase, took)
			}
		}
	})
}

func TestSamplerCloseCancelsProbesAndNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		causes := make(chan error, 1)
		polite := &scriptedProbe{name: "nvml", device: "gpu0", answer: func(ctx context.Context, call int) (Reading, error) {
			if call == 1 {
				return Reading{}, nil
			}
			<-ctx.Done()
			causes <- ctx.Err()
			return Reading{}, ctx.Err()
		}}
		s := NewSampler(SamplerConfig{Interval: time.Second, Timeout: time.Hour, Probes: []Probe{polite}})
		mustNext(t, s)
		time.AfterFunc(1500*time.Millisecond, s.Close)
		if _, err := s.Next(t.Context()); !errors.Is(err, ErrSamplerClosed) {
			t.Errorf("Next during Close = %v, want ErrSamplerClosed", err)
		}
		if cause := <-causes; !errors.Is(cause, context.Canceled) {
			t.Errorf("running probe's context: %v, want cancelled by Close", cause)
		}
		if _, err := s.Next(t.Context()); !errors.Is(err, ErrSamplerClosed) {
			t.Errorf("Next after Close = %v, want ErrSamplerClosed", err)
		}
	})
}

func TestSamplerSlowTierRunsEveryFiveSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		procs := &scriptedProbe{name: "procs", device: "", answer: func(_ context.Context, call int) (Reading, error) {
			if call == 2 {
				return Reading{}, nil // nobody holds a GPU now
			}
			return Reading{Processes: []timeline.Process{{GPU: 0, PID: 1000 + call}}}, nil
		}}
		s := NewSampler(SamplerConfig{Interval: time.Second, Probes: []Probe{steadyProbe("gpu0")}, Slow: []Probe{procs}})
		defer s.Close()
		for tick := range 11 {
			smp := mustNext(t, s)
			due := tick%5 == 0
			if due != (smp.Processes != nil) || len(smp.Probes) != 1+btoi(due) {
				t.Errorf("tick %d: processes %v, %d statuses; slow tier due: %v", tick, smp.Processes, len(smp.Probes), due)
			}
			if tick == 5 && len(smp.Processes) != 0 {
				t.Errorf("tick 5: processes %v, want an empty list (fresh: none)", smp.Processes)
			}
			if tick == 10 && (len(smp.Processes) != 1 || smp.Processes[0].PID != 1003) {
				t.Errorf("tick 10: processes %v, want pid 1003", smp.Processes)
			}
		}
		if calls, _ := procs.stats(); calls != 3 {
			t.Errorf("slow probe called %d times in 11 ticks, want 3", calls)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSamplerFastClockRunsInstantly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		clock := NewFastClock(start)
		s := NewSampler(SamplerConfig{
			Interval: time.Second,
			Clock:    clock,
			Probes:   []Probe{steadyProbe("gpu0"), steadyProbe("gpu1")},
			Slow:     []Probe{&scriptedProbe{name: "procs", answer: func(context.Context, int) (Reading, error) { return Reading{}, nil }}},
		})
		defer s.Close()
		began := time.Now()
		var prev []timeline.Key
		for i := range 600 {
			smp := mustNext(t, s)
			if want := start.Add(time.Duration(i) * time.Second); !smp.At.Equal(want) {
				t.Fatalf("tick %d at %v, want %v", i, smp.At, want)
			}
			if i > 0 && !slices.Equal(prev, keys(smp)) {
				t.Fatalf("tick %d: layout changed", i)
			}
			prev = keys(smp)
		}
		if elapsed := time.Since(began); elapsed != 0 {
			t.Errorf("600 simulated ticks waited %v of (bubble) time, want none", elapsed)
		}
		if got := s.Stats(); got.Ticks != 600 || got.Overruns != 0 || got.LateProbes != 0 {
			t.Errorf("stats = %+v, want 600 clean ticks", got)
		}
	})
}

// BenchmarkSamplerTick measures the sampler's own cost per tick with ten
// probes that answer at once (eight GPUs, host, self), on simulated time.
func BenchmarkSamplerTick(b *testing.B) {
	var probes []Probe
	for i := range 10 {
		probes = append(probes, steadyProbe(timeline.GPUDevice(i)))
	}
	s := NewSampler(SamplerConfig{Clock: NewFastClock(time.Unix(0, 0)), Probes: probes})
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Next(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSamplerAlignedTicksFallOnTheGrid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(300 * time.Millisecond) // started 0.3 s past a whole second
		s := NewSampler(SamplerConfig{Interval: time.Second, AlignTicks: true, Probes: []Probe{steadyProbe("gpu0")}})
		defer s.Close()
		first := mustNext(t, s).At
		if got := first.Sub(first.Truncate(time.Second)); got != 300*time.Millisecond {
			t.Fatalf("first tick %v past the second, want now (0.3 s): the first frame never waits", got)
		}
		for i := range 3 {
			at := mustNext(t, s).At
			if want := first.Truncate(time.Second).Add(time.Duration(i+1) * time.Second); !at.Equal(want) {
				t.Errorf("tick %d at %v, want %v, on a whole second", i+2, at, want)
			}
		}
		// Late past half an interval: back on the grid, not on a new phase.
		time.Sleep(1700 * time.Millisecond)
		late := mustNext(t, s).At
		if next := mustNext(t, s).At; next.Sub(next.Truncate(time.Second)) != 0 || !next.After(late) {
			t.Errorf("after a late pull at %v the next tick came at %v, want a whole second after it", late, next)
		}
	})
}

func TestOnGridRoundsToTheNearestMultiple(t *testing.T) {
	base := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		offset, interval, want time.Duration
	}{
		{0, time.Second, 0},
		{300 * time.Millisecond, time.Second, 0},
		{499 * time.Millisecond, time.Second, 0},
		{500 * time.Millisecond, time.Second, time.Second},
		{999 * time.Millisecond, time.Second, time.Second},
		{70 * time.Millisecond, 250 * time.Millisecond, 0},
		{130 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond},
	} {
		if got := onGrid(base.Add(c.offset), c.interval); !got.Equal(base.Add(c.want)) {
			t.Errorf("onGrid(+%v, %v) = +%v, want +%v", c.offset, c.interval, got.Sub(base), c.want)
		}
	}
}

func TestSamplerOwnersRideOnTheSlowTierApartFromProcesses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		procs := &scriptedProbe{name: "procs", answer: func(context.Context, int) (Reading, error) {
			return Reading{Processes: []timeline.Process{{GPU: 0, PID: 7}}}, nil
		}}
		own := &scriptedProbe{name: "owners", answer: func(_ context.Context, call int) (Reading, error) {
			switch call {
			case 2:
				return Reading{}, nil // the pod ended: nobody holds a GPU
			case 3:
				return Reading{}, errors.New("kubelet pod-resources: deadline exceeded")
			}
			return Reading{Owners: []timeline.Owner{{GPU: 1, Pod: "train-0", Namespace: "ml"}}}, nil
		}}
		s := NewSampler(SamplerConfig{Interval: time.Second, Probes: []Probe{steadyProbe("gpu0")},
			Slow: []Probe{procs}, Owners: []Probe{own}})
		defer s.Close()
		for tick := range 11 {
			smp := mustNext(t, s)
			due := tick%5 == 0 && tick != 10 // tick 10's read failed: unknown, not none
			if due != (smp.Owners != nil) {
				t.Errorf("tick %d: owners %v; slow tier due: %v", tick, smp.Owners, due)
			}
			if tick == 0 && (len(smp.Owners) != 1 || smp.Owners[0].Pod != "train-0" || len(smp.Processes) != 1) {
				t.Errorf("tick 0: owners %v, processes %v; want the pod on GPU 1 and one process", smp.Owners, smp.Processes)
			}
			if tick == 5 && (smp.Owners == nil || len(smp.Owners) != 0) {
				t.Errorf("tick 5: owners %v, want an empty list (fresh: none)", smp.Owners)
			}
		}
	})
}
