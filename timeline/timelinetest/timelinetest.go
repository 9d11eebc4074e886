package timelinetest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// T0 is the time tests start their samples at.
var T0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// Gauge is a gauge reading of metric name on device dev.
func Gauge(name, dev string, v float64) timeline.Metric {
	return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: v}
}

// Counter is a counter reading of metric name on device dev.
func Counter(name, dev string, v float64) timeline.Metric {
	return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Counter, Value: v}
}

// DaySample is second sec of a day of 8 GPUs and a 32-core host at 1 Hz
// from T0, in a checkpoint-like rhythm (busy 75 s, stalled 45 s), in cols
// where they are its columns (the day's last sample's).
func DaySample(sec int, cols *timeline.Columns) timeline.Sample {
	var metrics []timeline.Metric
	stalled := sec%120 >= 75
	for gi := range 8 {
		dev := timeline.GPUDevice(gi)
		util, sm := 90.0+float64(sec%7), 70.0+float64(sec%5)
		if stalled {
			util, sm = 99, 2
		}
		metrics = append(metrics, Gauge(timeline.GPUUtil, dev, util), Gauge(timeline.GPUSMActive, dev, sm),
			Gauge(timeline.GPUMemUsed, dev, 40<<30), Gauge(timeline.GPUPower, dev, 100+5*util))
	}
	metrics = append(metrics, Gauge(timeline.HostCPU, timeline.HostDevice, 30),
		Gauge(timeline.HostIOWait, timeline.HostDevice, 1), Gauge(timeline.ProcCPU, timeline.JobDevice, 400))
	for ci := range 32 {
		v := 40.0
		if ci == 0 && stalled {
			v = 99
		}
		metrics = append(metrics, Gauge(timeline.CoreBusy, timeline.CoreDevice(ci), v))
	}
	s := timeline.Sample{At: T0.Add(time.Duration(sec) * time.Second), Columns: cols}
	s.SetMetrics(metrics)
	return s
}

// Telemetry returns one of the real logs of ../shared/telemetry beside the
// repository (found from this file, so a test of any package reads the
// same logs): real logs of other people's jobs, read where they are kept
// and never copied into the repository; its README.md says where each
// comes from and what an expert reads in it. Where the folder is not
// beside the repository the test stops: it fails under CI (Unavailable),
// where the folder is always there, and elsewhere says in one line that
// the real-log tests were skipped. A log missing from a folder that is
// there fails the test: a test that skips for want of its input guards
// nothing.
func Telemetry(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "telemetry")
	if _, err := os.Stat(dir); err != nil {
		Unavailable(t, "the real logs are read from %s, which is not there: real-log tests skipped", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("telemetry log %s: %v", name, err)
	}
	return b
}

// TelemetryFile writes one of the real logs to a file of the same name in
// a directory of the test's, for a command that reads a path.
func TelemetryFile(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, Telemetry(t, name), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Unavailable stops a test that cannot run here for want of something
// outside the repository (tmux, python3, a pseudo-terminal, the git
// history): it skips on a developer's machine, and fails under CI
// (GPUTOP_CI=1, set by .ci/run), where everything must be there.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("GPUTOP_CI") != "" {
		t.Fatalf("cannot run under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}

// Source is a timeline.Source that plays samples, one per Next, then
// io.EOF.
type Source struct {
	info    timeline.SourceInfo
	samples []timeline.Sample
}

// Play is a Source of samples, described by info.
func Play(info timeline.SourceInfo, samples []timeline.Sample) *Source {
	return &Source{info: info, samples: samples}
}

// Info is the description Play was given.
func (s *Source) Info() timeline.SourceInfo { return s.info }

// Next is the next sample, or io.EOF once they are played.
func (s *Source) Next(context.Context) (timeline.Sample, error) {
	if len(s.samples) == 0 {
		return timeline.Sample{}, io.EOF
	}
	next := s.samples[0]
	s.samples = s.samples[1:]
	return next, nil
}
