package nvidia_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/nvidia"
	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// The probe in a session of probes, as gputop runs it: outside package
// nvidia, since probes imports it (the rig comes through export_test.go).

// quietHost is a host probe at 20 % CPU: nothing on the host to blame.
type quietHost struct{}

func (quietHost) Name() string   { return "host" }
func (quietHost) Device() string { return "host" }
func (quietHost) Collect(context.Context) (probe.Reading, error) {
	return probe.Reading{Metrics: []timeline.Metric{{Key: timeline.Key{Name: timeline.HostCPU, Device: "host"},
		Kind: timeline.Gauge, Value: 20}}}, nil
}

// Five minutes of an A100 node with GPU0 in MIG mode and GPU3 idle among
// busy GPUs: the hints name GPU3, and never GPU0 or a slice, of which NVML
// says nothing but memory (a slice holding memory with no activity known
// is not an idle one).
func TestNVMLMIGOnA100Hints(t *testing.T) {
	util := map[int]uint32{}
	for i := 1; i < 8; i++ {
		util[i] = 97
	}
	util[3] = 2
	lib := nvidia.A100ForTest(t, util)
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Clock: probes.NewFastClock(nvidia.RigStart),
		Machine: &probes.Machine{NVML: lib, Host: quietHost{}, Kind: timeline.Demo}})
	defer sess.Close()
	e := analysis.NewEngine(sess.Info())
	var last timeline.Sample
	for range 300 {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		e.Add(&s)
		last = s
	}
	hints := e.Hints(last.At)
	named3 := false
	for _, h := range hints {
		for _, g := range h.GPUs {
			named3 = named3 || g == 3
			if g == 0 || g >= 8 {
				t.Errorf("%s names GPU %d, of which NVML gives no activity: %s", h.ID, g, h.Evidence)
			}
		}
	}
	if !named3 {
		t.Errorf("no hint on the idle GPU3: %+v", hints)
	}
}

// BenchmarkProcessProbeCollect is one run of the process tier on 8 GPUs,
// each held by the same 4 processes (sleeps the benchmark starts), looked
// up in the real /proc by the session's own lookup (NewProcessLookup):
// stat, cmdline and status of each once per run, and its cgroup once per
// process. (The lookup reads /proc only in the host's PID namespace, where
// its PIDs are NVML's; in a container it measures NVML's lists alone.)
func BenchmarkProcessProbeCollect(b *testing.B) {
	var pids []uint32
	for range 4 {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			b.Skipf("cannot start sleep: %v", err)
		}
		b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		pids = append(pids, uint32(cmd.Process.Pid))
	}
	n := nvidia.HeldByForTest(b, pids)
	probe := n.ProcessProbe(probes.NewProcessLookup())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := probe.Collect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
