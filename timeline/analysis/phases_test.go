package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// phMoment is one second of a synthetic job. A NaN leaves the metric out,
// as a device that does not have it would.
type phMoment struct {
	util, sm                []float64 // per GPU
	host, core, job, iowait float64
	skip                    bool // no sample at all: the sampler stalled
	lost                    []bool
}

// phSamples are secs one-second samples of a synthetic job.
type phSamples []timeline.Sample

// phBuild makes secs one-second samples; fn fills each second's moment,
// which starts with every value unknown.
func phBuild(gpus, secs int, fn func(sec int, m *phMoment)) phSamples {
	var s phSamples
	nan := math.NaN()
	for sec := range secs {
		m := phMoment{util: make([]float64, gpus), sm: make([]float64, gpus), lost: make([]bool, gpus),
			host: nan, core: nan, job: nan, iowait: nan}
		for g := range gpus {
			m.util[g], m.sm[g] = nan, nan
		}
		fn(sec, &m)
		if m.skip {
			continue
		}
		smp := &timeline.Sample{At: timelinetest.T0.Add(time.Duration(sec) * time.Second)}
		var ms []timeline.Metric
		put := func(name, dev string, v float64) {
			if !math.IsNaN(v) {
				ms = append(ms, timelinetest.Gauge(name, dev, v))
			}
		}
		for gi := range gpus {
			if m.lost[gi] {
				smp.Probes = append(smp.Probes, timeline.ProbeStatus{Probe: "nvml", Device: timeline.GPUDevice(gi), State: timeline.ProbeLost})
				continue
			}
			put(timeline.GPUUtil, timeline.GPUDevice(gi), m.util[gi])
			put(timeline.GPUSMActive, timeline.GPUDevice(gi), m.sm[gi])
		}
		put(timeline.HostCPU, timeline.HostDevice, m.host)
		put(timeline.HostIOWait, timeline.HostDevice, m.iowait)
		put(timeline.CoreBusy, timeline.CoreDevice(0), m.core)
		put(timeline.ProcCPU, timeline.JobDevice, m.job)
		smp.SetMetrics(ms)
		s = append(s, *smp)
	}
	return s
}

// Segment is the phases an Engine with opts finds in ss, cut to [from, to].
func Segment(ss phSamples, info timeline.SourceInfo, from, to time.Time, opts PhaseOptions) []timeline.Phase {
	if info.Interval == 0 {
		info.Interval = time.Second
	}
	e := NewEngineWith(info, frame.DefaultOptions(), opts)
	for i := range ss {
		e.Add(&ss[i])
	}
	return e.Phases(from, to)
}

// phAll sets every GPU to the same utilisation and SM activity.
func (m *phMoment) phAll(util, sm float64) {
	for i := range m.util {
		m.util[i], m.sm[i] = util, sm
	}
}

// phWant is an expected phase in seconds after t0.
type phWant struct {
	from, to int
	kind     timeline.PhaseKind
}

func phString(ps []timeline.Phase) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "[%v-%v %v] ", p.Start.Sub(timelinetest.T0).Seconds(), p.End.Sub(timelinetest.T0).Seconds(), p.Kind)
	}
	return b.String()
}

// phCheckTiling asserts what every Segment result must be: phases that tile
// [from, to], in order, adjacent kinds differing, none shorter than MinPhase
// unless it is the only one.
func phCheckTiling(t *testing.T, ps []timeline.Phase, from, to time.Time, minPhase time.Duration) {
	t.Helper()
	if len(ps) == 0 {
		t.Fatal("no phases")
	}
	if !ps[0].Start.Equal(from) || !ps[len(ps)-1].End.Equal(to) {
		t.Fatalf("phases %s do not span %v-%v", phString(ps), from.Sub(timelinetest.T0), to.Sub(timelinetest.T0))
	}
	for i, p := range ps {
		if !p.End.After(p.Start) {
			t.Fatalf("empty phase %d: %s", i, phString(ps))
		}
		if len(ps) > 1 && p.End.Sub(p.Start) < minPhase {
			t.Fatalf("phase %d shorter than %v: %s", i, minPhase, phString(ps))
		}
		if p.Kind == timeline.PhaseMarked || p.Label != "" {
			t.Fatalf("automatic phase %d is %v %q", i, p.Kind, p.Label)
		}
		if i > 0 && (!ps[i-1].End.Equal(p.Start) || ps[i-1].Kind == p.Kind) {
			t.Fatalf("phases %d and %d do not abut with different kinds: %s", i-1, i, phString(ps))
		}
	}
}

func TestSegment(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		gpus int
		secs int
		fn   func(sec int, m *phMoment)
		want []phWant
	}{
		{"steady busy", 2, 600, func(sec int, m *phMoment) {
			m.phAll(95, 80)
			m.host, m.core = 30, 100
		}, []phWant{{0, 600, timeline.PhaseBusy}}},
		{
			// The input-bound demo: 1-2s bursts in 5-6s cycles while the
			// main process pegs a core. The GPUs work a fifth to a third of
			// the time and wait on the host the rest: one stalled phase.
			"sawtooth with the host busy is one stalled phase", 8, 600, func(sec int, m *phMoment) {
				m.phAll(0, 0)
				if phSawtoothBurst(sec) {
					m.phAll(97, 75)
				}
				m.host, m.core = 60, 98
			}, []phWant{{0, 600, timeline.PhaseStalled}},
		},
		{
			// The same sawtooth from an import without host data: the GPUs
			// work part-time and nothing shows what else was busy.
			"sawtooth without host data is one busy phase", 1, 600, func(sec int, m *phMoment) {
				m.util[0] = 0
				if phSawtoothBurst(sec) {
					m.util[0] = 97
				}
			}, []phWant{{0, 600, timeline.PhaseBusy}},
		},
		{"2s dips every minute stay one busy phase", 4, 600, func(sec int, m *phMoment) {
			m.phAll(95, 80)
			if sec%60 == 30 || sec%60 == 31 {
				m.phAll(0, 0)
			}
			m.host, m.core = 25, 100
		}, []phWant{{0, 600, timeline.PhaseBusy}}},
		{
			// vgg16_tf_v100_dmon.dmon: 57s of training with 3-4s drops
			// every ~17s, then 2.9h at 0% because the monitor was never
			// killed. dmon has no host data.
			"vgg16 dmon: work then a long idle tail", 1, 57 + 10440, func(sec int, m *phMoment) {
				m.util[0] = 0
				if sec < 57 && sec%17 >= 4 {
					m.util[0] = 97 + float64(sec%4)
				}
			}, []phWant{{0, 60, timeline.PhaseBusy}, {60, 10497, timeline.PhaseIdle}},
		},
		{
			// The checkpoint demo: rank 0 saves for 45s; GPU0 idles, GPUs
			// 1-7 spin in NCCL at 99% utilisation on 2% of their SMs, and
			// one core pickles and writes.
			"checkpoint: busy, 45s stalled, busy", 8, 285, func(sec int, m *phMoment) {
				m.phAll(90, 70)
				m.host, m.core = 28, 75
				if sec >= 120 && sec < 165 {
					m.phAll(99, 2)
					m.util[0], m.sm[0] = 0, 1
					m.host, m.core = 35, 98
				}
			}, []phWant{{0, 120, timeline.PhaseBusy}, {120, 165, timeline.PhaseStalled}, {165, 285, timeline.PhaseBusy}},
		},
		{
			// The llama8b ckpt100 trace as nvidia-smi logged it: utilisation
			// only, no host. GPUs 1-7 read 99% while spinning, so the mean
			// stays high; the busy-wait hint, not the phases, shows it.
			"checkpoint from utilisation alone cannot see the spin", 8, 285, func(sec int, m *phMoment) {
				for i := range m.util {
					m.util[i] = 90
				}
				if sec >= 120 && sec < 165 {
					for i := range m.util {
						m.util[i] = 99
					}
					m.util[0] = 0
				}
			}, []phWant{{0, 285, timeline.PhaseBusy}},
		},
		{"an import with utilisation only has no stalled phase", 2, 180, func(sec int, m *phMoment) {
			m.util[0], m.util[1] = 98, 96
			if sec >= 60 && sec < 120 {
				m.util[0], m.util[1] = 0, 0
			}
		}, []phWant{{0, 60, timeline.PhaseBusy}, {60, 120, timeline.PhaseIdle}, {120, 180, timeline.PhaseBusy}}},
		{"GPU quiet, job busy on the CPU: stalled", 1, 120, func(sec int, m *phMoment) {
			m.phAll(0, 0)
			m.host, m.core, m.job = 4, 30, 100
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
		{"GPU quiet, job asleep, host quiet: idle", 1, 120, func(sec int, m *phMoment) {
			m.phAll(0, 0)
			m.host, m.core, m.job = 2, 10, 1
		}, []phWant{{0, 120, timeline.PhaseIdle}}},
		{"GPU quiet, host CPU busy: stalled", 1, 120, func(sec int, m *phMoment) {
			m.phAll(0, 0)
			m.host, m.core = 25, 40
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
		{"GPU quiet, host waiting on storage: stalled", 1, 120, func(sec int, m *phMoment) {
			m.phAll(0, 0)
			m.host, m.iowait = 5, 15
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
		{"GPU low, host quiet: busy, if lightly", 1, 120, func(sec int, m *phMoment) {
			m.phAll(20, 11)
			m.host, m.core = 3, 10
		}, []phWant{{0, 120, timeline.PhaseBusy}}},
		{"GPU low, one core pegged: stalled", 1, 120, func(sec int, m *phMoment) {
			m.phAll(20, 11)
			m.host, m.core = 3, 100
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
		{"a 7s stall is absorbed", 1, 200, func(sec int, m *phMoment) {
			m.phAll(100, 100)
			if sec >= 100 && sec < 107 {
				m.phAll(0, 0)
			}
			m.core = 100
		}, []phWant{{0, 200, timeline.PhaseBusy}}},
		{"a 15s stall is a phase", 1, 200, func(sec int, m *phMoment) {
			m.phAll(100, 100)
			if sec >= 100 && sec < 115 {
				m.phAll(0, 0)
			}
			m.core = 100
		}, []phWant{{0, 100, timeline.PhaseBusy}, {100, 115, timeline.PhaseStalled}, {115, 200, timeline.PhaseBusy}}},
		{"a stalled sampler is not idle: the gap continues the phase", 1, 180, func(sec int, m *phMoment) {
			m.phAll(95, 80)
			m.skip = sec >= 60 && sec < 120
		}, []phWant{{0, 180, timeline.PhaseBusy}}},
		{"a gap before idle stays with the busy phase before it", 1, 240, func(sec int, m *phMoment) {
			m.phAll(95, 80)
			m.skip = sec >= 60 && sec < 180
			if sec >= 180 {
				m.phAll(0, 0)
			}
		}, []phWant{{0, 180, timeline.PhaseBusy}, {180, 240, timeline.PhaseIdle}}},
		{"one GPU of eight at work is a busy job (the imbalance is a hint, not a phase)", 8, 120, func(sec int, m *phMoment) {
			m.phAll(0, 0)
			m.util[1], m.sm[1] = 74, 28
			m.host, m.core = 13, 40
		}, []phWant{{0, 120, timeline.PhaseBusy}}},
		{"a lost GPU drops out", 2, 120, func(sec int, m *phMoment) {
			m.phAll(90, 70)
			m.lost[1] = sec >= 60
			m.host, m.core = 30, 100
		}, []phWant{{0, 120, timeline.PhaseBusy}}},
		{"SM activity where known, utilisation on the GPU without it", 2, 120, func(sec int, m *phMoment) {
			m.util[0], m.sm[0] = 99, 2 // spinning
			m.util[1], m.sm[1] = 0, nan
			m.core = 100
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
		{"one GPU's utilisation does not outvote the others' SM activity", 2, 120, func(sec int, m *phMoment) {
			m.util[0], m.sm[0] = 99, 2 // spinning, and honest about it
			m.util[1], m.sm[1] = 99, nan
			m.core = 100
		}, []phWant{{0, 120, timeline.PhaseStalled}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := phBuild(tt.gpus, tt.secs, tt.fn)
			// The session ends at its last sample, a second before secs.
			from, to := timelinetest.T0, timelinetest.T0.Add(time.Duration(tt.secs-1)*time.Second)
			opts := DefaultPhaseOptions()
			got := Segment(s, timeline.SourceInfo{}, from, to, opts)
			phCheckTiling(t, got, from, to, opts.MinPhase)
			var want []timeline.Phase
			for _, w := range tt.want {
				want = append(want, timeline.Phase{Start: timelinetest.T0.Add(time.Duration(w.from) * time.Second),
					End: timelinetest.T0.Add(time.Duration(min(w.to, tt.secs-1)) * time.Second), Kind: w.kind})
			}
			if phString(got) != phString(want) {
				t.Fatalf("got  %s\nwant %s", phString(got), phString(want))
			}
		})
	}
}

// phSawtoothBurst says whether the GPUs have a batch at sec: cycles of 5 or
// 6s (5.5 on average) that start with a 1 or 2s burst.
func phSawtoothBurst(sec int) bool {
	start := 0
	for c := 0; ; c++ {
		length := 5 + c%2
		if sec < start+length {
			return sec-start < 1+(c/2)%2
		}
		start += length
	}
}

func TestSegmentEdges(t *testing.T) {
	busyThenIdle := phBuild(1, 200, func(sec int, m *phMoment) {
		m.phAll(95, 80)
		if sec >= 100 {
			m.phAll(0, 0)
		}
	})
	opts := DefaultPhaseOptions()
	end := timelinetest.T0.Add(199 * time.Second) // the last sample

	t.Run("a window that starts before the data begins at the first sample", func(t *testing.T) {
		// Before the session began there is no phase: a live view's
		// first minute must not show one where its sparklines are blank.
		got := Segment(busyThenIdle, timeline.SourceInfo{}, timelinetest.T0.Add(-30*time.Second), end, opts)
		phCheckTiling(t, got, timelinetest.T0, end, opts.MinPhase)
		if len(got) != 2 || got[0].Kind != timeline.PhaseBusy || !got[0].End.Equal(timelinetest.T0.Add(100*time.Second)) {
			t.Fatalf("got %s", phString(got))
		}
	})
	t.Run("edges stay put when the window moves (live recomputation)", func(t *testing.T) {
		for _, shift := range []time.Duration{time.Second, 2300 * time.Millisecond, 4 * time.Second} {
			from := timelinetest.T0.Add(shift)
			got := Segment(busyThenIdle, timeline.SourceInfo{}, from, end, opts)
			phCheckTiling(t, got, from, end, opts.MinPhase)
			if len(got) != 2 || !got[1].Start.Equal(timelinetest.T0.Add(100*time.Second)) {
				t.Fatalf("from +%v: %s", shift, phString(got))
			}
		}
	})
	t.Run("the source's GPU list decides which GPUs count", func(t *testing.T) {
		s := phBuild(2, 120, func(sec int, m *phMoment) {
			m.util[0], m.util[1] = 0, 95
		})
		info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 1}}}
		got := Segment(s, info, timelinetest.T0, timelinetest.T0.Add(120*time.Second), opts)
		if len(got) != 1 || got[0].Kind != timeline.PhaseBusy {
			t.Fatalf("GPU1 alone: %s", phString(got))
		}
		if got := Segment(s, timeline.SourceInfo{}, timelinetest.T0, timelinetest.T0.Add(120*time.Second), opts); len(got) != 1 || got[0].Kind != timeline.PhaseBusy {
			// Without a list both count: mean 47.5%, no host, so busy.
			t.Fatalf("both GPUs: %s", phString(got))
		}
	})
	t.Run("no GPU data, no phases", func(t *testing.T) {
		s := phBuild(0, 60, func(sec int, m *phMoment) { m.host = 50 })
		if got := Segment(s, timeline.SourceInfo{}, timelinetest.T0, timelinetest.T0.Add(time.Minute), opts); got != nil {
			t.Fatalf("host only: %s", phString(got))
		}
		if got := Segment(nil, timeline.SourceInfo{}, timelinetest.T0, timelinetest.T0.Add(time.Minute), opts); got != nil {
			t.Fatalf("empty store: %s", phString(got))
		}
		if got := Segment(busyThenIdle, timeline.SourceInfo{}, end, timelinetest.T0, opts); got != nil {
			t.Fatalf("reversed range: %s", phString(got))
		}
	})
	t.Run("zero options are the defaults", func(t *testing.T) {
		a := Segment(busyThenIdle, timeline.SourceInfo{}, timelinetest.T0, end, PhaseOptions{})
		b := Segment(busyThenIdle, timeline.SourceInfo{}, timelinetest.T0, end, opts)
		if phString(a) != phString(b) {
			t.Fatalf("zero options %s, defaults %s", phString(a), phString(b))
		}
	})
}
