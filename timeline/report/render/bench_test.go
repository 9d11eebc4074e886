package render

import (
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// day is repDayStore's stores, built once per size.
var day = map[int]*timeline.Store{}
var dayMu sync.Mutex

// repDayStore is the 24 h of timelinetest.DaySample in a store keeping raw
// samples raw (0: all of them). It is built once per size and shared.
func repDayStore(raw int) *timeline.Store {
	dayMu.Lock()
	defer dayMu.Unlock()
	if s, ok := day[raw]; ok {
		return s
	}
	s := timeline.NewStore(timeline.StoreOptions{RawSamples: raw})
	var cols *timeline.Columns
	for sec := range 86400 {
		smp := timelinetest.DaySample(sec, cols)
		cols = smp.Columns
		s.Add(&smp)
	}
	day[raw] = s
	return s
}

// BenchmarkReportDay builds and prints the report of a day of 8 GPUs at
// 1 Hz, as `gputop report` does once, from the store and the Engine's
// analysis (whose own cost analysis.BenchmarkEngine measures).
func BenchmarkReportDay(b *testing.B) {
	e := analysis.NewEngine(timeline.SourceInfo{Interval: time.Second})
	var cols *timeline.Columns
	for sec := range 86400 {
		smp := timelinetest.DaySample(sec, cols)
		cols = smp.Columns
		e.Add(&smp)
	}
	a := report.Analyse(e)
	for _, bc := range []struct {
		name string
		raw  int
	}{{"replay", 0}, {"live", timeline.DefaultRawSamples}} {
		b.Run(bc.name, func(b *testing.B) {
			s := repDayStore(bc.raw)
			b.ResetTimer()
			for b.Loop() {
				r := report.NewReport(s, timeline.SourceInfo{}, a, report.ReportOptions{})
				if err := Text(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				if err := r.WriteJSON(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReportBigNode is `gputop report` of big machines' nvidia-smi
// logs once imported: every sample into a store and a fresh Engine, the
// analysis, the report, its text and JSON. 64x24h is the day of 64
// GPUs at 15 s (goal: under 2 s); 512x2h is 64 nodes of 8 GPUs in one log.
func BenchmarkReportBigNode(b *testing.B) {
	for _, bc := range []struct {
		name string
		node bigNode
	}{
		{"64x24h", bigDay},
		{"512x2h", bigNode{gpus: 512, span: 2 * time.Hour, interval: 15 * time.Second, idleGPU: 37,
			stallEach: 10 * time.Minute, stallFor: time.Minute}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			res := bc.node.bigImport(b)
			report := func() (*timeline.Store, *analysis.Engine, *report.Report) {
				s := timeline.NewStore(timeline.StoreOptions{Reserve: len(res.Samples)})
				e := analysis.NewEngine(res.Info)
				for i := range res.Samples {
					s.Add(&res.Samples[i])
					e.Add(&res.Samples[i])
				}
				r := report.NewReport(s, res.Info, report.Analyse(e), report.ReportOptions{})
				if err := Text(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				if err := r.WriteJSON(io.Discard); err != nil {
					b.Fatal(err)
				}
				return s, e, r
			}
			// What the report holds at its end, the store and the Engine
			// with it, beyond the imported samples.
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s, e, r := report()
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(s)
			runtime.KeepAlive(e)
			runtime.KeepAlive(r)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				report()
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-held")
		})
	}
}
