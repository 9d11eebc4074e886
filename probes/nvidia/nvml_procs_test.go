package nvidia

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/probes/probe"
	"github.com/gputop-dev/gputop/timeline"
)

// fakeLookup is the host's view of a few processes.
type fakeLookup map[int]probe.ProcessInfo

func (f fakeLookup) Lookup(pid int) (probe.ProcessInfo, bool) {
	info, ok := f[pid]
	return info, ok
}

func TestNVMLProcessProbe(t *testing.T) {
	r := newRig(t)
	g0, g1 := r.fakes[0], r.fakes[1]
	g0.compute = []nvml.ProcessInfo{
		{Pid: 4242, UsedGpuMemory: 30 << 30},
		{Pid: 77, UsedGpuMemory: memoryNotAvailable},
	}
	// 4242 has a graphics context too: one process, not two.
	g0.graphics = []nvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 30 << 30}, {Pid: 9, UsedGpuMemory: 1 << 20}}
	g0.procUtil = []nvml.ProcessUtilizationSample{
		{Pid: 4242, TimeStamp: sampleBase + 1, SmUtil: 80},
		{Pid: 4242, TimeStamp: sampleBase + 2, SmUtil: 90},
		{Pid: 77, TimeStamp: sampleBase + 3, SmUtil: 250}, // nonsense: dropped
		{Pid: 555, TimeStamp: sampleBase + 4, SmUtil: 50}, // exited: not listed
	}
	g1.compute = []nvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 2 << 30}}
	g1.rets = map[string]nvml.Return{"GetProcessUtilization": nvml.ERROR_NOT_SUPPORTED}
	n := r.open(t)
	lookup := fakeLookup{4242: {User: "ana", Command: "python train.py", CPU: 180, RSS: 12 << 30}}
	probe := n.ProcessProbe(lookup)
	if probe.Name() != "procs" || probe.Device() != "" {
		t.Errorf("probe is %s/%q", probe.Name(), probe.Device())
	}

	rd, err := probe.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []timeline.Process{
		{GPU: 0, PID: 9, GPUMem: 1 << 20, Util: nan, CPU: nan, RSS: nan},
		{GPU: 0, PID: 77, GPUMem: nan, Util: nan, CPU: nan, RSS: nan},
		{GPU: 0, PID: 4242, User: "ana", Command: "python train.py", GPUMem: 30 << 30, Util: 85, CPU: 180, RSS: 12 << 30},
		{GPU: 1, PID: 4242, User: "ana", Command: "python train.py", GPUMem: 2 << 30, Util: nan, CPU: 180, RSS: 12 << 30},
	}
	assertProcesses(t, rd.Processes, want)
	if !hasCheck(n, "gpu1: process utilization: Not Supported, no longer asked") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}

	// Next round: only samples since the newest seen count; none means unknown.
	g0.procUtil = append(g0.procUtil, nvml.ProcessUtilizationSample{Pid: 9, TimeStamp: sampleBase + 10, SmUtil: 5})
	rd, err = probe.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if calls := r.devs[0].GetProcessUtilizationCalls(); calls[1].V != sampleBase+4 {
		t.Errorf("second GetProcessUtilization since %d, want %d", calls[1].V, sampleBase+4)
	}
	want[0].Util, want[2].Util = 5, nan
	assertProcesses(t, rd.Processes[:3], want[:3])
	if c := len(r.devs[1].GetProcessUtilizationCalls()); c != 1 {
		t.Errorf("gpu1 GetProcessUtilization called %d times, want 1", c)
	}
}

func TestNVMLProcessProbeErrors(t *testing.T) {
	r := newRig(t)
	r.fakes[0].compute = []nvml.ProcessInfo{{Pid: 1, UsedGpuMemory: 1 << 30}}
	r.fakes[2].rets = map[string]nvml.Return{"GetComputeRunningProcesses": nvml.ERROR_UNKNOWN}
	n := r.open(t)
	r.fakes[5].lost = true
	// Lost after open: the process tier finds out, and the GPU probe stops too.
	rd, err := n.ProcessProbe(nil).Collect(t.Context())
	if err == nil || err.Error() != "gpu2: compute processes: Unknown Error" {
		t.Errorf("error %v", err)
	}
	if len(rd.Processes) != 1 || rd.Processes[0].PID != 1 {
		t.Errorf("processes %+v", rd.Processes)
	}
	res := r.collect(t, n)
	if !res[5].Lost {
		t.Error("gpu5 not lost after the process tier found it gone")
	}
	if c := len(r.devs[5].GetGraphicsRunningProcessesCalls()); c != 0 {
		t.Errorf("graphics list of a lost GPU read %d times", c)
	}
}

func assertProcesses(t *testing.T, got, want []timeline.Process) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d processes, want %d: %+v", len(got), len(want), got)
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for i := range want {
		g, w := got[i], want[i]
		if g.GPU != w.GPU || g.PID != w.PID || g.User != w.User || g.Command != w.Command ||
			!same(g.GPUMem, w.GPUMem) || !same(g.Util, w.Util) || !same(g.CPU, w.CPU) || !same(g.RSS, w.RSS) {
			t.Errorf("process %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestNVMLProcessProbeWorkloadAndFailures: what the host says of a process
// (its start, its pod) rides along; a GPU whose process list is not
// supported is asked no more while the others go on; a GPU that answers
// GPU_IS_LOST to the process list is lost for every probe.
func TestNVMLProcessProbeWorkloadAndFailures(t *testing.T) {
	r := newRig(t)
	r.fakes[0].compute = []nvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 30 << 30}}
	r.fakes[1].rets = map[string]nvml.Return{
		"GetComputeRunningProcesses": nvml.ERROR_NOT_SUPPORTED, "GetGraphicsRunningProcesses": nvml.ERROR_NOT_SUPPORTED,
	}
	r.fakes[2].rets = map[string]nvml.Return{"GetComputeRunningProcesses": nvml.ERROR_GPU_IS_LOST}
	n := r.open(t)
	started := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	pod := &timeline.Workload{Runtime: "containerd", Container: "2032491dcae3", Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}
	probe := n.ProcessProbe(fakeLookup{4242: {User: "ana", Command: "python train.py", Started: started, Workload: pod}})

	for round := range 2 {
		rd, err := probe.Collect(t.Context())
		if err != nil {
			t.Fatalf("round %d: %v (not supported and lost are not failures)", round, err)
		}
		if len(rd.Processes) != 1 || rd.Processes[0].Workload != pod || !rd.Processes[0].Started.Equal(started) {
			t.Fatalf("round %d: processes %+v, want 4242 in its pod", round, rd.Processes)
		}
	}
	if c := len(r.devs[1].GetComputeRunningProcessesCalls()); c != 1 {
		t.Errorf("gpu1's unsupported process list asked %d times, want once", c)
	}
	if !hasCheck(n, "gpu1: compute processes: Not Supported, no longer asked") {
		t.Errorf("Checks:\n%s", strings.Join(n.Checks(), "\n"))
	}
	if c := len(r.devs[2].GetComputeRunningProcessesCalls()); c != 1 {
		t.Errorf("lost gpu2's process list asked %d times, want once", c)
	}
	if res := r.collect(t, n); !res[2].Lost {
		t.Error("gpu2 not lost after its process list said GPU_IS_LOST")
	}
}
