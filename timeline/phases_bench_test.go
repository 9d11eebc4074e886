package timeline

import (
	"sync"
	"testing"
	"time"
)

// phDay is 24 h of 8 GPUs and a 32-core host at 1 Hz, in a checkpoint-like
// rhythm (busy 75 s, stalled 45 s), built once per store size.
var phDay = map[int]*Store{}
var phDayMu sync.Mutex

func phDayStore(b *testing.B, raw int) *Store {
	phDayMu.Lock()
	defer phDayMu.Unlock()
	if s, ok := phDay[raw]; ok {
		return s
	}
	s := NewStore(StoreOptions{RawSamples: raw})
	metrics := make([]Metric, 0, 8*4+3+32)
	for sec := range 86400 {
		metrics = metrics[:0]
		stalled := sec%120 >= 75
		for gi := range 8 {
			dev := GPUDevice(gi)
			util, sm := 90.0+float64(sec%7), 70.0+float64(sec%5)
			if stalled {
				util, sm = 99, 2
			}
			metrics = append(metrics, g(GPUUtil, dev, util), g(GPUSMActive, dev, sm),
				g(GPUMemUsed, dev, 40<<30), g(GPUPower, dev, 100+5*util))
		}
		metrics = append(metrics, g(HostCPU, HostDevice, 30), g(HostIOWait, HostDevice, 1), g(ProcCPU, JobDevice, 400))
		for ci := range 32 {
			v := 40.0
			if ci == 0 && stalled {
				v = 99
			}
			metrics = append(metrics, g(CoreBusy, CoreDevice(ci), v))
		}
		s.Add(&Sample{At: t0.Add(time.Duration(sec) * time.Second), Metrics: metrics})
	}
	phDay[raw] = s
	return s
}

// BenchmarkSegmentDay segments a whole day, as the UI does every few
// seconds with the session's full range: from a replay's store (every sample
// raw) and from a live store (an hour raw, the rest in buckets).
func BenchmarkSegmentDay(b *testing.B) {
	for _, bc := range []struct {
		name string
		raw  int
	}{{"replay", 0}, {"live", DefaultRawSamples}} {
		b.Run(bc.name, func(b *testing.B) {
			s := phDayStore(b, bc.raw)
			opts := DefaultPhaseOptions()
			var n int
			b.ResetTimer()
			for b.Loop() {
				n = len(Segment(s, SourceInfo{}, s.First(), s.Last(), opts))
			}
			b.ReportMetric(float64(n), "phases")
		})
	}
}
