package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
)

// BenchmarkReportRecordingDay is `gputop report day.gtr --format html`
// without the process: a day of the checkpoint demo's 8 GPUs at 1 s
// (86,401 samples of 574 metrics, recorded first, which takes a minute
// or two) read, derived once, filed in the store, judged by a fresh
// Engine, and written as the HTML page. docs/performance.md has its
// figures; GPUTOP_BENCH_DAY names a recording to use instead (the one
// measured there with /usr/bin/time).
func BenchmarkReportRecordingDay(b *testing.B) {
	path := os.Getenv("GPUTOP_BENCH_DAY")
	if path == "" {
		b.Setenv("XDG_RUNTIME_DIR", b.TempDir())
		path = filepath.Join(b.TempDir(), "day.gtr")
		if code := run([]string{"record", "-o", path, "--demo=checkpoint", "--fast", "--duration", "24h"}, &newTestEnv().env); code != 0 {
			b.Fatal("record failed")
		}
	}
	opts := report.ReportOptions{TimelineColumns: render.TimelineColumns, TextWidth: -1}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		rep, warn, err := reportWith(path, "", "", opts)
		if err != nil || warn != nil {
			b.Fatal(err, warn)
		}
		if err := render.HTML(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapSys)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MB-heap-sys")
}
