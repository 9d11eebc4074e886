package probes

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Inside synctest bubbles time is fake: time.Sleep and timers advance it
// instantly and deterministically, so "returned after exactly 800ms" is an
// exact assertion, not a wall-clock threshold.

// scriptedProbe answers with whatever answer says for its nth call, and
// records how many calls ran at once.
type scriptedProbe struct {
	name, device string
	answer       func(ctx context.Context, call int) (Reading, error)

	mu         sync.Mutex
	calls      int
	running    int
	maxRunning int
}

func (p *scriptedProbe) Name() string   { return p.name }
func (p *scriptedProbe) Device() string { return p.device }

func (p *scriptedProbe) Collect(ctx context.Context) (Reading, error) {
	p.mu.Lock()
	p.calls++
	call := p.calls
	p.running++
	p.maxRunning = max(p.maxRunning, p.running)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.running--
		p.mu.Unlock()
	}()
	return p.answer(ctx, call)
}

func (p *scriptedProbe) stats() (calls, maxRunning int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.maxRunning
}

// utilReading is a reading of one gauge, gpu.util of device, worth v.
func utilReading(device string, v float64) Reading {
	return Reading{Metrics: []timeline.Metric{{
		Key: timeline.Key{Name: timeline.GPUUtil, Device: device}, Kind: timeline.Gauge, Value: v,
	}}}
}

// steadyProbe answers at once with its call number as gpu.util.
func steadyProbe(device string) *scriptedProbe {
	return &scriptedProbe{name: "nvml", device: device, answer: func(_ context.Context, call int) (Reading, error) {
		return utilReading(device, float64(call)), nil
	}}
}

func mustNext(t *testing.T, s *Sampler) timeline.Sample {
	t.Helper()
	smp, err := s.Next(t.Context())
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return smp
}

func value(t *testing.T, smp timeline.Sample, name, device string) float64 {
	t.Helper()
	v, ok := smp.Value(timeline.Key{Name: name, Device: device})
	if !ok {
		t.Fatalf("sample at %v has no %s/%s", smp.At, device, name)
	}
	return v
}

func status(t *testing.T, smp timeline.Sample, device string) timeline.ProbeStatus {
	t.Helper()
	for _, st := range smp.Probes {
		if st.Device == device {
			return st
		}
	}
	t.Fatalf("sample at %v has no status for %s", smp.At, device)
	return timeline.ProbeStatus{}
}

func keys(smp timeline.Sample) []timeline.Key {
	var out []timeline.Key
	for _, m := range smp.Metrics() {
		out = append(out, m.Key)
	}
	return out
}

func TestSamplerHungProbeDoesNotDelayOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		hung := &scriptedProbe{name: "nvml", device: "gpu1", answer: func(_ context.Context, call int) (Reading, error) {
			if call == 2 {
				<-release // a driver call that stops answering; it ignores ctx, as cgo calls do
			}
			return utilReading("gpu1", float64(call)), nil
		}}
		fine := steadyProbe("gpu0")
		s := NewSampler(SamplerConfig{Interval: time.Second, Probes: []Probe{fine, hung}})
		defer s.Close()
		defer close(release)

		t0 := time.Now()
		first := mustNext(t, s)
		if !first.At.Equal(t0) || status(t, first, "gpu1").State != timeline.ProbeOK {
			t.Fatalf("first tick: at %v, gpu1 %+v", first.At, status(t, first, "gpu1"))
		}

		second := mustNext(t, s)
		if waited := time.Since(t0.Add(time.Second)); waited != 800*time.Millisecond {
			t.Errorf("tick with a hung probe took %v, want the timeout, 800ms", waited)
		}
		if got := value(t, second, timeline.GPUUtil, "gpu0"); got != 2 {
			t.Errorf("gpu0 util = %v, want its own fresh reading 2", got)
		}
		if st := status(t, second, "gpu1"); st.State != timeline.ProbeLate || st.Err != "no answer within 800ms" {
			t.Errorf("hung probe status = %+v, want late, no answer within 800ms", st)
		}
		if v := value(t, second, timeline.GPUUtil, "gpu1"); !math.IsNaN(v) {
			t.Errorf("hung probe's util = %v, want NaN in its usual place", v)
		}
		// The same columns, not only the same keys: every stage downstream
		// knows the sample by them.
		if second.Columns != first.Columns || !slices.Equal(keys(first), keys(second)) {
			t.Errorf("columns changed when a probe went late:\n%v\n%v", keys(first), keys(second))
		}

		third := mustNext(t, s)
		if time.Now() != third.At {
			t.Errorf("tick while the probe is still hung returned at %v, want at once (%v)", time.Now(), third.At)
		}
		wantErr := "still busy from " + t0.Add(time.Second).Format("15:04:05")
		if st := status(t, third, "gpu1"); st.State != timeline.ProbeLate || st.Err != wantErr {
			t.Errorf("status = %+v, want late, %q", st, wantErr)
		}
		if calls, _ := hung.stats(); calls != 2 {
			t.Errorf("hung probe called %d times, want 2: never again while busy", calls)
		}

		release <- struct{}{} // the hung call returns now, with a stale reading (2)
		synctest.Wait()
		fourth := mustNext(t, s)
		if st := status(t, fourth, "gpu1"); st.State != timeline.ProbeOK {
			t.Errorf("probe back from hanging: status %+v, want ok", st)
		}
		if got := value(t, fourth, timeline.GPUUtil, "gpu1"); got != 3 {
			t.Errorf("gpu1 util = %v, want 3 from the fresh call, not the stale 2", got)
		}
		if _, most := hung.stats(); most != 1 {
			t.Errorf("%d calls ran at once, want 1", most)
		}
		if got := s.Stats().LateProbes; got != 2 {
			t.Errorf("LateProbes = %d, want 2", got)
		}
	})
}

func TestSamplerStatusPerOutcome(t *testing.T) {
	lostErr := errors.New("GPU is lost")
	tests := []struct {
		name      string
		answer    func(context.Context, int) (Reading, error)
		wantState timeline.ProbeState
		wantErr   string
		wantUtil  float64 // NaN when no value is expected
	}{
		{"ok", func(context.Context, int) (Reading, error) { return utilReading("gpu0", 97), nil },
			timeline.ProbeOK, "", 97},
		{"error keeps the partial reading", func(context.Context, int) (Reading, error) {
			return utilReading("gpu0", 41), errors.New("temperature: Not Supported")
		}, timeline.ProbeFailed, "temperature: Not Supported", 41},
		{"lost", func(context.Context, int) (Reading, error) { return Reading{Lost: true}, lostErr },
			timeline.ProbeLost, "GPU is lost", math.NaN()},
		{"panic", func(context.Context, int) (Reading, error) { panic("nil GetTemperatureFunc") },
			timeline.ProbeFailed, "probe panicked: nil GetTemperatureFunc", math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &scriptedProbe{name: "nvml", device: "gpu0", answer: tt.answer}
				s := NewSampler(SamplerConfig{Probes: []Probe{p}})
				defer s.Close()
				smp := mustNext(t, s)
				st := smp.Probes[0]
				if st.Probe != "nvml" || st.Device != "gpu0" || st.State != tt.wantState || st.Err != tt.wantErr {
					t.Errorf("status = %+v, want nvml/gpu0 %v %q", st, tt.wantState, tt.wantErr)
				}
				v, ok := smp.Value(timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"})
				if math.IsNaN(tt.wantUtil) && ok || !math.IsNaN(tt.wantUtil) && v != tt.wantUtil {
					t.Errorf("util = %v (present %v), want %v", v, ok, tt.wantUtil)
				}
			})
		})
	}
}

func TestSamplerLostProbeIsNeverCalledAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &scriptedProbe{name: "nvml", device: "gpu3", answer: func(_ context.Context, call int) (Reading, error) {
			if call == 2 {
				return Reading{Lost: true}, errors.New("GPU is lost")
			}
			return utilReading("gpu3", 50), nil
		}}
		s := NewSampler(SamplerConfig{Probes: []Probe{p, steadyProbe("gpu0")}})
		defer s.Close()
		for tick := 1; tick <= 6; tick++ {
			smp := mustNext(t, s)
			st := status(t, smp, "gpu3")
			if tick >= 2 && (st.State != timeline.ProbeLost || st.Err != "GPU is lost") {
				t.Errorf("tick %d: status %+v, want lost, GPU is lost", tick, st)
			}
		}
		if calls, _ := p.stats(); calls != 2 {
			t.Errorf("lost probe called %d times, want 2", calls)
		}
	})
}

func TestSamplerMarkersRideOnTheNextSample(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s *Sampler
		p := &scriptedProbe{name: "host", device: "host", answer: func(_ context.Context, call int) (Reading, error) {
			if call == 2 {
				time.Sleep(100 * time.Millisecond)
				s.Mark("during collection")
			}
			return Reading{}, nil
		}}
		s = NewSampler(SamplerConfig{Probes: []Probe{p}})
		defer s.Close()

		t0 := mustNext(t, s).At
		time.Sleep(300 * time.Millisecond)
		go s.MarkFrom("job", "epoch 2") // from another goroutine, as the UI and `gputop mark` do
		synctest.Wait()

		second := mustNext(t, s)
		want := []timeline.Marker{{At: t0.Add(300 * time.Millisecond), Text: "epoch 2", Origin: "job"}}
		if !slices.Equal(second.Markers, want) {
			t.Errorf("markers = %+v, want %+v", second.Markers, want)
		}
		// A marker made after the tick's time waits for the following sample,
		// so no marker is ever later than the sample carrying it.
		third := mustNext(t, s)
		want = []timeline.Marker{{At: t0.Add(1100 * time.Millisecond), Text: "during collection", Origin: "key"}}
		if !slices.Equal(third.Markers, want) {
			t.Errorf("markers = %+v, want %+v", third.Markers, want)
		}
		if fourth := mustNext(t, s); fourth.Markers != nil {
			t.Errorf("markers delivered twice: %+v", fourth.Markers)
		}
	})
}
