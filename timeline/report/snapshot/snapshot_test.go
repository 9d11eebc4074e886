package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

var at0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return at0.Add(time.Duration(sec * float64(time.Second))) }

func near(got report.Number, want float64) bool { return math.Abs(float64(got)-want) < 1e-6 }

func unknown(n report.Number) bool { return math.IsNaN(float64(n)) }

// checkpointInfo describes eight H100s running a wrapped job.
func checkpointInfo() timeline.SourceInfo {
	info := timeline.SourceInfo{Kind: timeline.Demo, Scenario: "checkpoint", Host: "node-a", Interval: time.Second}
	for i := range 8 {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: i, Name: "NVIDIA H100 80GB HBM3", MemTotal: 80 << 30, PowerLimit: 700})
	}
	return info
}

// migDemo is three minutes of the mig demo, sampled as a session samples.
func migDemo(t *testing.T) ([]timeline.Sample, timeline.SourceInfo) {
	t.Helper()
	clock := probes.NewFastClock(at0)
	node, err := demo.New("mig", 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	var out []timeline.Sample
	for range 180 {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out, sess.Info()
}

// A snapshot gives the health of the instant; without any, none.
func TestSnapshotHealth(t *testing.T) {
	prev := timeline.Sample{At: at(0)}.WithMetrics([]timeline.Metric{
		timelinetest.Counter(timeline.GPUViolThermalSecs, "gpu0", 10),
		timelinetest.Gauge(timeline.GPUUtil, "gpu1", 10),
	})
	cur := timeline.Sample{At: at(1)}.WithMetrics([]timeline.Metric{
		timelinetest.Counter(timeline.GPUViolThermalSecs, "gpu0", 10.25),
		timelinetest.Gauge(timeline.GPUPCIeReplays, "gpu0", 3),
		timelinetest.Gauge(timeline.GPUUtil, "gpu1", 10),
	})
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 0}, {Index: 1}}}
	s := New(&cur, &prev, info)
	h := s.GPUs[0].Health
	if h == nil || h.PCIeReplays != 3 || len(h.ClocksHeld) != 1 || !near(h.ClocksHeld[0].Share, 0.25) {
		t.Fatalf("health %+v", h)
	}
	if s.GPUs[1].Health != nil {
		t.Errorf("GPU1: %+v", s.GPUs[1].Health)
	}
}

// gputop snapshot --json of a session of several hosts: each host with its
// GPUs together and its connection, each GPU with its host; a host not
// answering says why, and its GPUs read unknown, not zero.
func TestSnapshotHosts(t *testing.T) {
	info, samples := timelinetest.Cluster(3, 4, 2, func(h, g, sec int) timelinetest.GPUReading {
		switch h {
		case 1:
			return timelinetest.Idle
		case 2:
			return timelinetest.Absent
		}
		return timelinetest.Training
	})
	s := New(&samples[1], &samples[0], info)
	if len(s.Hosts) != 3 {
		t.Fatalf("hosts: %+v", s.Hosts)
	}
	n1, n2, n3 := s.Hosts[0], s.Hosts[1], s.Hosts[2]
	if n1.Name != "node1" || n1.State != "ok" || len(n1.GPUs) != 4 || !(float64(n1.UtilMean) > 90) ||
		!(float64(n1.PowerW) > 2000) || float64(n1.MemUsedBytes) != 4*(40<<30) || float64(n1.CPU) != 30 {
		t.Errorf("node1: %+v", n1)
	}
	if n2.LowestGPU == nil || *n2.LowestGPU < 4 || *n2.LowestGPU > 7 || !(float64(n2.UtilMean) < 2) {
		t.Errorf("node2: %+v", n2)
	}
	if n3.State != "failed" || !strings.Contains(n3.Err, "unreachable") || !unknown(n3.UtilMean) ||
		!unknown(n3.PowerW) || n3.LowestGPU != nil {
		t.Errorf("node3, not answering: %+v", n3)
	}
	if g := s.GPUs[5]; g.Host != "node2" || g.HostIndex == nil || *g.HostIndex != 1 {
		t.Errorf("gpu5: %+v", g)
	}
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HOST  GPU", "node2    1  H100", "node1  4     98%", "node3  4     N/A", "failed: unreachable: connection refused"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the snapshot does not say %q:\n%s", want, text.String())
		}
	}
	// One host: no hosts, no host fields in the JSON.
	one := New(&samples[1], &samples[0], timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 0}}})
	js, err := json.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), `"hosts"`) || strings.Contains(string(js), `"host_index"`) {
		t.Errorf("a one-host snapshot names hosts: %s", js)
	}
}

// A snapshot of the mig demo names each slice by its parent and profile in
// both tables, and its processes' JSON carry the slice.
func TestSnapshotMIGDemo(t *testing.T) {
	samples, info := migDemo(t)
	var cur, prev *timeline.Sample
	for i := len(samples) - 1; i > 0; i-- {
		if samples[i].Processes != nil {
			cur, prev = &samples[i], &samples[i-1]
			break
		}
	}
	s := New(cur, prev, info)
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  0/1g.10gb  H100 80GB HBM3 MIG 1g.10gb ", "\n0/1g.10gb  6021 ", "\n1          4101 "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("snapshot lacks %q:\n%s", want, text.String())
		}
	}
	for _, p := range s.Processes {
		if p.PID == 6021 && (p.MIGProfile != "1g.10gb" || p.MIGParent == nil || *p.MIGParent != 0 || s.GPUs[p.GPU].MIGProfile != "1g.10gb") {
			t.Errorf("notebook %+v", p)
		}
		if p.PID == 4101 && (p.MIGProfile != "" || p.MIGParent != nil) {
			t.Errorf("training rank %+v", p)
		}
	}
}

// TestSnapshotProcessDetails: a snapshot's process says when it started
// and where it runs, null for either when unknown, and the text names the
// workload in its WHERE column.
func TestSnapshotProcessDetails(t *testing.T) {
	started := time.Date(2026, 11, 25, 4, 0, 0, 0, time.FixedZone("CET", 3600))
	cur := timeline.Sample{At: at0, Processes: []timeline.Process{
		{GPU: 0, PID: 4242, User: "alice", Command: "python train.py", GPUMem: 1 << 30, Started: started,
			Workload: &timeline.Workload{Runtime: "containerd", Container: "2032491dcae3", Pod: "55c6c714-b240-4dec-9a45-57b61696ab6e", QoS: "burstable"}},
		{GPU: 1, PID: 99, GPUMem: 1 << 30},
	}}
	s := New(&cur, nil, checkpointInfo())
	js, err := json.Marshal(s.Processes)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"started":"2026-11-25T03:00:00Z"`,
		`"workload":{"runtime":"containerd","container":"2032491dcae3","pod_uid":"55c6c714-b240-4dec-9a45-57b61696ab6e","qos":"burstable","slurm_job":"","slurm_step":"","session":""}`,
		`"pid":99,"user":"","command":"","gpu_mem_bytes":1073741824,"util":0,"sm":0,"cpu":0,"rss_bytes":0,"started":null,"workload":null`,
	} {
		if !strings.Contains(string(js), want) {
			t.Errorf("snapshot JSON lacks %s:\n%s", want, js)
		}
	}
	var text strings.Builder
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "pod 55c6c714") {
		t.Errorf("the text names no pod:\n%s", text.String())
	}
}

// Who holds each GPU: in the JSON under its GPU, and in the text with the
// GPUs allocated and unused said so.
func TestSnapshotOwners(t *testing.T) {
	info := checkpointInfo()
	prev := timeline.Sample{At: at(0), Owners: []timeline.Owner{
		{GPU: 0, Pod: "train-0", Namespace: "team-a", Container: "trainer"},
		{GPU: 2, Job: "4242", User: "alice", Partition: "gpu"},
		{GPU: 2, Job: "4243"},
	}, Processes: []timeline.Process{{GPU: 0, PID: 10, GPUMem: 1 << 30, Util: 90, CPU: math.NaN(), RSS: math.NaN()}}}
	// The process tier ran on the first reading only, as in a snapshot.
	cur := timeline.Sample{At: at(0.25)}
	snap := New(&cur, &prev, info)

	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(snap); err != nil {
		t.Fatal(err)
	}
	var back struct {
		GPUs []struct {
			Index  int              `json:"index"`
			Owners []map[string]any `json:"owners"`
		} `json:"gpus"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	g0, g1, g2 := back.GPUs[0].Owners, back.GPUs[1].Owners, back.GPUs[2].Owners
	if len(g0) != 1 || g0[0]["scheduler"] != "kubernetes" || g0[0]["pod"] != "train-0" || g0[0]["namespace"] != "team-a" ||
		g0[0]["container"] != "trainer" {
		t.Errorf("GPU 0 owners %v", g0)
	}
	if g1 != nil {
		t.Errorf("GPU 1 has no allocation, yet owners %v (want the field absent)", g1)
	}
	if len(g2) != 2 || g2[0]["scheduler"] != "slurm" || g2[0]["job"] != "4242" || g2[0]["user"] != "alice" ||
		g2[0]["partition"] != "gpu" || g2[1]["job"] != "4243" {
		t.Errorf("GPU 2 owners %v", g2)
	}

	var text bytes.Buffer
	if err := snap.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"HELD BY", "pod team-a/train-0 (trainer)", "Slurm job 4242 (alice, gpu): no process on it",
		"Slurm job 4243"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(trainer): no process") {
		t.Errorf("GPU 0 has a process, yet the text says none:\n%s", out)
	}
}
