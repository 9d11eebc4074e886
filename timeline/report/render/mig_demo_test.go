package render

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// repMIGDemo is three minutes of `gputop record --demo=mig --fast`: the
// real NVML probes over the demo's mock, on a fast clock.
func repMIGDemo(t *testing.T) ([]timeline.Sample, timeline.SourceInfo) {
	t.Helper()
	clock := probes.NewFastClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
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

// The report of the mig demo counts the 8 physical GPUs and says how GPU0
// is split, and lists each slice's process under its slice.
func TestReportMIGDemo(t *testing.T) {
	samples, info := repMIGDemo(t)
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	text, md, js := repRender(t, r)
	repCheckText(t, text)
	repGolden(t, "report_mig.txt.golden", text)
	repGolden(t, "report_mig.md.golden", md)
	repGolden(t, "report_mig.json.golden", js)

	for _, want := range []string{"8 GPUs, GPU0 split into 3 MIG slices", "\n0/1g.10gb ", "\n0/3g.40gb "} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(string(md), "8 GPUs, GPU0 split into 3 MIG slices") || !strings.Contains(string(md), "| 0/1g.10gb | 6021 |") {
		t.Errorf("markdown:\n%s", md)
	}
	var back struct {
		PhysicalGPUs int `json:"physical_gpus"`
		MIGInstances int `json:"mig_instances"`
		GPUs         []struct {
			Index int `json:"index"`
		} `json:"gpus"`
		Processes []struct {
			GPU        int    `json:"gpu"`
			PID        int    `json:"pid"`
			MIGProfile string `json:"mig_profile"`
			MIGParent  *int   `json:"mig_parent"`
		} `json:"processes"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.PhysicalGPUs != 8 || back.MIGInstances != 3 || len(back.GPUs) != 11 {
		t.Errorf("JSON counts %d physical, %d instances, %d GPUs", back.PhysicalGPUs, back.MIGInstances, len(back.GPUs))
	}
	slices := map[int]string{}
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			slices[g.Index] = g.MIGProfile
		}
	}
	// The scenario's processes, by the slice each runs in.
	want := map[int]string{5210: "3g.40gb", 5388: "2g.20gb", 6021: "1g.10gb"}
	for _, p := range back.Processes {
		profile, isMIG := want[p.PID]
		if !isMIG {
			if p.MIGProfile != "" || p.MIGParent != nil || p.GPU == 0 {
				t.Errorf("training process %+v", p)
			}
			continue
		}
		if slices[p.GPU] != profile || p.MIGProfile != profile || p.MIGParent == nil || *p.MIGParent != 0 {
			t.Errorf("PID %d on GPU %d (%s), want the %s slice", p.PID, p.GPU, p.MIGProfile, profile)
		}
		delete(want, p.PID)
	}
	if len(want) != 0 {
		t.Errorf("not listed: %v", want)
	}
}
