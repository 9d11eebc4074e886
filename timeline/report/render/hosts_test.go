package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// Reports of sessions of several hosts (timelinetest.Cluster, synthetic
// H100 clusters): the hosts section, GPUs grouped and named by host, and
// the cross-host hints as they read.

// repTwoHosts is two hosts of eight GPUs for 10 min; node2 starts 3 min
// after node1.
func repTwoHosts() ([]timeline.Sample, timeline.SourceInfo) {
	info, samples := timelinetest.Cluster(2, 8, 600, func(h, g, sec int) timelinetest.GPUReading {
		if h == 1 && sec < 180 {
			return timelinetest.Idle
		}
		return timelinetest.Training
	})
	return samples, info
}

// repEightHosts is eight hosts of eight GPUs for 15 min: node3 never
// starts, node5 starts 4 min late, node7 is throttled and the others wait
// for it, node8 holds 70 GiB a GPU where the others hold 40.
func repEightHosts() ([]timeline.Sample, timeline.SourceInfo) {
	info, samples := timelinetest.Cluster(8, 8, 900, func(h, g, sec int) timelinetest.GPUReading {
		switch {
		case h == 2, h == 4 && sec < 240:
			return timelinetest.Idle
		case h == 6:
			return timelinetest.GPUReading{Util: 99, SM: 80, Power: 700, Clock: 1410, Mem: 40 << 30}
		}
		r := timelinetest.GPUReading{Util: 99, SM: 55, Power: 450, Clock: 1980, Mem: 40 << 30}
		if h == 7 {
			r.Mem = 70 << 30
		}
		return r
	})
	return samples, info
}

func TestReportHostsGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func() ([]timeline.Sample, timeline.SourceInfo)
	}{
		{"2hosts", repTwoHosts},
		{"8hosts", repEightHosts},
	} {
		t.Run(tt.name, func(t *testing.T) {
			samples, info := tt.make()
			r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
			text, md, js := repRender(t, r)
			repCheckText(t, text)
			repGolden(t, "report_"+tt.name+".txt.golden", text)
			repGolden(t, "report_"+tt.name+".md.golden", md)
			repGolden(t, "report_"+tt.name+".json.golden", js)
		})
	}
}

// What a person reading the 8-host report must be able to tell: every
// host in a line with its worst hint, each cross-host finding named by
// host, and GPUs by the numbers their hosts give them.
func TestReportHostsSay(t *testing.T) {
	samples, info := repEightHosts()
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	text, _, js := repRender(t, r)
	for _, want := range []string{
		"driver 550.54.15, CUDA 12.4, 8 hosts, 64 GPUs",
		"HOSTS  8 hosts, 64 GPUs",
		"warning host-idle", // node3's line
		"warning host-late",
		"straggler-host",
		"uneven-memory",
		"host-idle on node3 GPU0-7",
		"host-late on node5 GPU0-7",
		"straggler-host on node7 GPU0-7",
		"uneven-memory on node8 GPU0-7",
		"node8 (8 GPUs)",
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("the text report does not say %q:\n%s", want, text)
		}
	}
	if bytes.Contains(text, []byte("HOST  not recorded")) {
		t.Error("a session of several hosts says its one host was not recorded")
	}
	var back struct {
		Hosts []report.ReportHostSummary `json:"hosts"`
		GPUs  []report.ReportGPU         `json:"gpus"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Hosts) != 8 || len(back.GPUs) != 64 {
		t.Fatalf("JSON has %d hosts and %d GPUs, want 8 and 64", len(back.Hosts), len(back.GPUs))
	}
	node3 := back.Hosts[2]
	if node3.Name != "node3" || len(node3.GPUs) != 8 || node3.GPUs[0] != 16 || node3.WorstHint == nil ||
		node3.WorstHint.ID != timeline.HintHostIdle || !(float64(node3.UtilMean) < 2) || !(float64(node3.CPU.Mean) == 30) {
		t.Errorf("node3 in JSON: %+v", node3)
	}
	if g := back.GPUs[17]; g.Host != "node3" || g.HostIndex == nil || *g.HostIndex != 1 || g.Index != 17 {
		t.Errorf("gpu17 in JSON: %+v", g)
	}
	// One host: neither hosts nor a GPU's host in the JSON at all.
	var one bytes.Buffer
	if err := report.NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{}).WriteJSON(&one); err != nil {
		t.Fatal(err)
	}
	if s := one.String(); strings.Contains(s, `"hosts"`) || strings.Contains(s, `"host_index"`) {
		t.Error("a one-host report names hosts")
	}
}

// Hosts with long names, alike but for their ends, keep the text in 80
// columns and stay told apart: their middles go, their ends stay.
func TestReportHostsLongNames(t *testing.T) {
	info, samples := timelinetest.Cluster(2, 2, 300, func(h, g, sec int) timelinetest.GPUReading {
		if h == 1 {
			return timelinetest.GPUReading{Util: 72, SM: 55, Power: 520, Clock: 1980, Mem: 40 << 30}
		}
		return timelinetest.GPUReading{Util: 99, SM: 54, Power: 450, Clock: 1980, Mem: 40 << 30}
	})
	for i := range info.Hosts {
		name := "gpu-node-cluster-a-00" + string(rune('1'+i))
		for k := range info.GPUs {
			if info.GPUs[k].Host == info.Hosts[i].Name {
				info.GPUs[k].Host = name
			}
		}
		info.Hosts[i].Name = name
	}
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	text, _, _ := repRender(t, r)
	repCheckText(t, text)
	for _, want := range []string{"gpu-...a-001", "gpu-...a-002", "warning straggler-host"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if got := repTruncMiddle("gpu-node-0017", 12); got != "gpu-...-0017" {
		t.Errorf("repTruncMiddle = %q", got)
	}
}
