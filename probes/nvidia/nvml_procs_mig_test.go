package nvidia

import (
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gputop-dev/gputop/timeline"
)

func TestMIGSliceOf(t *testing.T) {
	// GPU instance 1 holds two compute instances (two 1c.3g slices);
	// GPU instance 9 one.
	in := []migSliceFact{{index: 8, gi: 1, ci: 0}, {index: 9, gi: 1, ci: 1}, {index: 10, gi: 9, ci: 0}}
	const none = noMIGInstance
	tests := []struct {
		name   string
		gi, ci uint32
		want   int
		ok     bool
	}{
		{"both ids", 1, 1, 9, true},
		{"both ids, the other instance", 9, 0, 10, true},
		{"only instance of its GPU instance", 9, none, 10, true},
		{"GPU instance of two, compute instance not given", 1, none, 0, false},
		{"no ids (not allowed to see them)", none, none, 0, false},
		{"GPU instance not listed", 5, 0, 0, false},
		{"compute instance not listed", 9, 2, 0, false},
	}
	for _, tt := range tests {
		got, ok := migSliceOf(nvml.ProcessInfo{Pid: 1, GpuInstanceId: tt.gi, ComputeInstanceId: tt.ci}, in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %d %v, want %d %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := migSliceOf(nvml.ProcessInfo{GpuInstanceId: 1, ComputeInstanceId: 0}, nil); ok {
		t.Error("a process placed in a GPU without instances")
	}
}

// procSlices is an H100 split into 3g.40gb (GPU instance 2), 2g.20gb (3)
// and 1g.10gb (9), each with compute instance 0, as `nvidia-smi mig -cgi
// 9,14,19 -C` makes them.
func procSlices() []*fakeMIG {
	return []*fakeMIG{
		{gi: 2, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 3g.40gb", memTotal: 40 << 30},
		{gi: 3, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 2g.20gb", memTotal: 20 << 30},
		{gi: 9, ci: 0, name: "NVIDIA H100 80GB HBM3 MIG 1g.10gb", memTotal: 10 << 30},
	}
}

// TestNVMLProcessProbeMIG: on a MIG-enabled GPU NVML lists every instance's
// processes under the physical GPU, each with its instance ids; each goes
// to the GPU of its instance, and one whose instance is not known stays
// under the physical GPU, said once in Checks.
func TestNVMLProcessProbeMIG(t *testing.T) {
	r := newRig(t)
	r.addMIG(0, procSlices()...)
	none := uint32(noMIGInstance)
	r.fakes[0].compute = []nvml.ProcessInfo{
		{Pid: 6021, UsedGpuMemory: 9 << 30, GpuInstanceId: 9, ComputeInstanceId: 0},
		{Pid: 5210, UsedGpuMemory: 34 << 30, GpuInstanceId: 2, ComputeInstanceId: 0},
		{Pid: 5388, UsedGpuMemory: 11 << 30, GpuInstanceId: 3, ComputeInstanceId: none},
		{Pid: 700, UsedGpuMemory: memoryNotAvailable, GpuInstanceId: none, ComputeInstanceId: none},
		{Pid: 701, UsedGpuMemory: 1 << 30, GpuInstanceId: 13, ComputeInstanceId: 0},
	}
	// 5210 has a graphics context too: one process in its instance.
	r.fakes[0].graphics = []nvml.ProcessInfo{{Pid: 5210, UsedGpuMemory: 34 << 30, GpuInstanceId: 2, ComputeInstanceId: 0}}
	r.fakes[1].compute = []nvml.ProcessInfo{{Pid: 4101, UsedGpuMemory: 60 << 30, GpuInstanceId: none, ComputeInstanceId: none}}
	n := r.open(t)
	gpus := n.GPUs()
	if len(gpus) != 11 {
		t.Fatalf("%d GPUs, want 8 and 3 instances", len(gpus))
	}

	rd, err := n.ProcessProbe(nil).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []timeline.Process{
		{GPU: 0, PID: 700, GPUMem: nan, Util: nan, CPU: nan, RSS: nan},
		{GPU: 0, PID: 701, GPUMem: 1 << 30, Util: nan, CPU: nan, RSS: nan},
		{GPU: 1, PID: 4101, GPUMem: 60 << 30, Util: nan, CPU: nan, RSS: nan},
		{GPU: 8, PID: 5210, GPUMem: 34 << 30, Util: nan, CPU: nan, RSS: nan},
		{GPU: 9, PID: 5388, GPUMem: 11 << 30, Util: nan, CPU: nan, RSS: nan},
		{GPU: 10, PID: 6021, GPUMem: 9 << 30, Util: nan, CPU: nan, RSS: nan},
	}
	assertProcesses(t, rd.Processes, want)
	for k, p := range rd.Processes[3:] {
		if g := gpus[p.GPU]; g.MIGParent != 0 || g.MIGProfile != []string{"3g.40gb", "2g.20gb", "1g.10gb"}[k] {
			t.Errorf("PID %d on %+v", p.PID, g)
		}
	}
	var said []string
	for _, c := range n.Checks() {
		if strings.Contains(c, "in no MIG instance") {
			said = append(said, c)
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "gpu0: ") || !strings.HasSuffix(said[0], "shown under gpu0") {
		t.Errorf("checks about unplaced processes: %q", said)
	}
	// Said once, however often it happens.
	if _, err := n.ProcessProbe(nil).Collect(t.Context()); err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, c := range n.Checks() {
		if strings.Contains(c, "in no MIG instance") {
			count++
		}
	}
	if count != 1 {
		t.Errorf("said %d times", count)
	}
	if c := len(r.devs[0].GetProcessUtilizationCalls()); c != 0 {
		t.Errorf("per-process utilisation asked of a MIG GPU %d times", c)
	}
}
