package exporter

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// A GPU allocated to a pod or a Slurm job carries dcgm-exporter's pod,
// namespace, container and hpc_job labels on its series, from the process
// tier's sample on until the next says otherwise; a GPU nobody holds
// keeps its six labels.
func TestOwnedGPUSeriesCarryDCGMOwnerLabels(t *testing.T) {
	x := New(Options{})
	first := fixedSample(0, 1000)
	first.Owners = []timeline.Owner{
		{GPU: 0, Pod: "train-0", Namespace: "team-a", Container: "trainer"},
		{GPU: 1, Job: "4242", User: "alice", Partition: "gpu"},
		{GPU: 1, Job: "4243"}, // sharing GPU 1
	}
	x.Observe(&first, twoGPUs)
	second := fixedSample(1, 1700) // not a process-tier tick: owners as last read
	x.Observe(&second, twoGPUs)

	byGPU := map[string]map[string]string{}
	for _, l := range seriesLabels(t, x, "DCGM_FI_DEV_GPU_TEMP") {
		byGPU[l["gpu"]] = l
	}
	for _, l := range seriesLabels(t, x, "DCGM_FI_DEV_FB_USED") {
		if l["gpu"] == "1" {
			byGPU["1"] = l
		}
	}
	g0, g1 := byGPU["0"], byGPU["1"]
	if g0["pod"] != "train-0" || g0["namespace"] != "team-a" || g0["container"] != "trainer" || g0["UUID"] != "GPU-aaaa" {
		t.Errorf("GPU 0's labels %v: want its pod's", g0)
	}
	if _, ok := g0["hpc_job"]; ok && g0["hpc_job"] != "" {
		t.Errorf("GPU 0 is a pod's, yet hpc_job=%q", g0["hpc_job"])
	}
	if g1["hpc_job"] != "4242,4243" || g1["pod"] != "" {
		t.Errorf("GPU 1's labels %v: want hpc_job 4242,4243 (two jobs share it) and no pod", g1)
	}
	if _, ok := g1["job"]; ok {
		t.Error("a job label would clash with Prometheus' own job label of the target")
	}

	// The pod ends: the next process-tier sample has no allocation.
	third := fixedSample(2, 2400)
	third.Owners = []timeline.Owner{}
	x.Observe(&third, twoGPUs)
	for _, l := range seriesLabels(t, x, "DCGM_FI_DEV_GPU_TEMP") {
		if l["pod"] != "" || l["hpc_job"] != "" || len(l) != 6 {
			t.Errorf("after the allocations ended: labels %v, want the six GPU labels", l)
		}
	}
}

// A MIG instance allocated to a pod (the device plugin's mixed strategy
// hands out instances) carries dcgm-exporter's MIG labels and the pod's.
func TestOwnedMIGInstanceSeriesCarryBothLabelSets(t *testing.T) {
	info := timeline.SourceInfo{Kind: timeline.Live, Host: "node7", Interval: twoGPUs.Interval, GPUs: []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA A100-SXM4-40GB", UUID: "GPU-aaaa", MIG: true},
		{Index: 1, Name: "NVIDIA A100-SXM4-40GB", UUID: "MIG-bbbb", MIGProfile: "3g.20gb", MIGParent: 0, MIGGPUInstance: 2},
	}}
	s := timeline.Sample{At: t0,
		Owners: []timeline.Owner{{GPU: 1, Pod: "infer-7", Namespace: "serving", Container: "triton"}}}.WithMetrics([]timeline.Metric{gauge(timeline.GPUMemUsed, "gpu1", 4<<30)})
	x := New(Options{})
	x.Observe(&s, info)
	got := seriesLabels(t, x, "DCGM_FI_DEV_FB_USED")
	if len(got) != 1 {
		t.Fatalf("series %v, want the instance's one", got)
	}
	l := got[0]
	if l["GPU_I_PROFILE"] != "3g.20gb" || l["GPU_I_ID"] != "2" || l["UUID"] != "GPU-aaaa" || l["pod"] != "infer-7" ||
		l["namespace"] != "serving" || l["container"] != "triton" {
		t.Errorf("labels %v", l)
	}
}
