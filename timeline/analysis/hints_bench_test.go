package analysis

import (
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Benchmarks of hint evaluation on 8 GPUs and a 32-core host at 1 Hz, as
// the live demo samples them: every GPU metric the rules read, per-core
// CPU, a checkpoint-like stall every 2m and a thermal outlier, so every
// rule has work to do.

// htBenchSample is second sec of the benchmarks' node.
func htBenchSample(t *htTick, sec int) timeline.Sample {
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
	return timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(t.m)
}

// BenchmarkEngine is the analysis's cost on every tick of a live view that
// has run for a while: the next sample added, and the hints at it. The
// goal is under 1 ms with a day of history.
func BenchmarkEngine(b *testing.B) {
	for _, hist := range []struct {
		name string
		secs int
	}{{"hour", 3600}, {"day", 86400}} {
		b.Run(hist.name, func(b *testing.B) {
			e := NewEngine(timeline.SourceInfo{Interval: time.Second})
			t := &htTick{}
			for sec := range hist.secs {
				s := htBenchSample(t, sec)
				e.Add(&s)
				if sec%60 == 0 {
					e.Hints(s.At) // as the screen asks, so the kept verdicts are in
				}
			}
			sec := hist.secs
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s := htBenchSample(t, sec)
				sec++
				e.Add(&s)
				if len(e.Hints(s.At)) == 0 {
					b.Fatal("no hints")
				}
			}
		})
	}
}

// BenchmarkReportHints is the hints of `gputop report`: every sample of an
// hour or a day added, then the hints over all of it.
func BenchmarkReportHints(b *testing.B) {
	for _, hist := range []struct {
		name string
		secs int
	}{{"hour", 3600}, {"day", 86400}} {
		b.Run(hist.name, func(b *testing.B) {
			t := &htTick{}
			for b.Loop() {
				e := NewEngine(timeline.SourceInfo{Interval: time.Second})
				for sec := range hist.secs {
					s := htBenchSample(t, sec)
					e.Add(&s)
				}
				if len(e.Hints(e.Last())) == 0 {
					b.Fatal("no hints")
				}
			}
		})
	}
}
