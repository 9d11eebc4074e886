package analysis

import (
	"sync"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Benchmarks of hint evaluation on 8 GPUs and a 32-core host at 1 Hz, as
// the live demo samples them: every GPU metric the rules read, per-core
// CPU, a checkpoint-like stall every 2m and a thermal outlier, so every
// rule has work to do.

var (
	htBenchMu     sync.Mutex
	htBenchStores = map[int]*timeline.Store{}
)

// htBenchStore returns (and keeps) a store of secs seconds; raw 0 keeps
// every sample (replay, a report), otherwise the live ring's size.
func htBenchStore(b *testing.B, secs, raw int) *timeline.Store {
	b.Helper()
	htBenchMu.Lock()
	defer htBenchMu.Unlock()
	key := secs*10 + min(raw, 1)
	if s, ok := htBenchStores[key]; ok {
		return s
	}
	s := timeline.NewStore(timeline.StoreOptions{RawSamples: raw})
	t := &htTick{}
	for sec := range secs {
		t.sec, t.m = sec, t.m[:0]
		stalled := sec%120 >= 60 && sec%120 < 105
		htEvery8(func(i int) {
			u, sm, p, bits, temp := 92.0, 75.0, 560.0, 0.0, 62.0
			switch {
			case stalled && i == 0:
				u, sm, p = 2, 0.3, 145
			case stalled:
				u, sm, p = 100, 2, 150
			}
			if i == 5 && !stalled {
				bits, temp = timeline.ThrottleSWThermal, 87
			}
			t.h100(i, u, sm, p, 40*htGiB)
			t.gpu(i, timeline.GPUThrottle, bits)
			t.gpu(i, timeline.GPUTemp, temp)
			t.gpu(i, timeline.GPUClockSM, 1980)
			t.gpu(i, timeline.GPUPCIeRx, 4e8)
			t.gpu(i, timeline.GPUPCIeTx, 1e8)
		})
		t.cores(htCoreSet(32, 3, 70, 70, 70, 70, 70, 70, 70, 70)...)
		t.put(timeline.HostIOWait, timeline.HostDevice, 0.5)
		t.put(timeline.HostMemUsed, timeline.HostDevice, 140*htGiB)
		t.put(timeline.HostMemTotal, timeline.HostDevice, 512*htGiB)
		t.put(timeline.HostSwapUsed, timeline.HostDevice, 12<<20)
		t.put(timeline.HostDiskRead, timeline.HostDevice, 5e7)
		t.put(timeline.HostDiskWrite, timeline.HostDevice, 2e6)
		s.Add(&timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second), Metrics: t.m})
	}
	htBenchStores[key] = s
	return s
}

func benchHints(b *testing.B, s *timeline.Store, span time.Duration) {
	to := s.Last()
	from := to.Add(-span)
	opts := DefaultHintOptions()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if len(EvaluateHints(s, timeline.SourceInfo{}, from, to, opts)) == 0 {
			b.Fatal("no hints")
		}
	}
}

// BenchmarkEvaluateHintsLive is the UI's call every few seconds: the last
// 5 and 10 minutes of a live store holding an hour.
func BenchmarkEvaluateHintsLive(b *testing.B) {
	s := htBenchStore(b, 3600, timeline.DefaultRawSamples)
	b.Run("5min", func(b *testing.B) { benchHints(b, s, 5*time.Minute) })
	b.Run("10min", func(b *testing.B) { benchHints(b, s, 10*time.Minute) })
}

// BenchmarkEvaluateHintsHour is a report over an hour.
func BenchmarkEvaluateHintsHour(b *testing.B) {
	benchHints(b, htBenchStore(b, 3600, 0), time.Hour)
}

// BenchmarkEvaluateHintsDay is a report over a day: the goal is well under
// a second.
func BenchmarkEvaluateHintsDay(b *testing.B) {
	benchHints(b, htBenchStore(b, 86400, 0), 24*time.Hour)
}
