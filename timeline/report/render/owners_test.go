package render

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// The report of the allocated demo sums each pod's and job's GPU time:
// the notebook's GPU6 and job 4250's GPU7 allocated and idle throughout,
// the others busy; its cost is the GPU time and the energy at the prices.
func TestReportOwnersDemo(t *testing.T) {
	samples, info := repDemo(t, "allocated", 360)
	opts := report.ReportOptions{PriceGPUHour: 2.5, PriceKWh: 0.3}
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), opts)
	text, md, js := repRender(t, r)
	repCheckText(t, text)
	repGolden(t, "report_owners.txt.golden", text)
	repGolden(t, "report_owners.md.golden", md)
	repGolden(t, "report_owners.json.golden", js)
	var page bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<h2>Owners</h2>") || !strings.Contains(page.String(), "pod team-b/notebook-bob") {
		t.Error("the HTML page has no owners section")
	}

	hours := 359.0 / 3600 // the report spans the first sample to the last
	want := map[string]struct {
		gpus       int
		idle       bool
		sched, who string
	}{
		"pod team-a/llm-train-0":  {4, false, "kubernetes", ""},
		"Slurm job 4242":          {2, false, "slurm", "alice"},
		"pod team-b/notebook-bob": {1, true, "kubernetes", ""},
		"Slurm job 4250":          {1, true, "slurm", "carol"},
	}
	if len(r.Owners) != len(want) || r.Owners[0].Owner != "pod team-a/llm-train-0" {
		t.Fatalf("owners %+v", r.Owners)
	}
	for _, o := range r.Owners {
		w, ok := want[o.Owner]
		if !ok || len(o.GPUs) != w.gpus || o.Scheduler != w.sched || o.User != w.who {
			t.Errorf("owner %+v", o)
			continue
		}
		alloc := float64(w.gpus) * hours
		busy, idle := float64(o.BusyGPUHours), float64(o.IdleGPUHours)
		if math.Abs(float64(o.AllocatedGPUHours)-alloc) > 1e-9 || math.Abs(busy+idle-alloc) > 0.01*alloc {
			t.Errorf("%s: %v GPU-h allocated (want %v), %v busy, %v idle", o.Owner, o.AllocatedGPUHours, alloc, busy, idle)
		}
		if w.idle && busy > 0 || !w.idle && idle > 0.05*alloc {
			t.Errorf("%s: %v busy, %v idle", o.Owner, busy, idle)
		}
		cost := float64(o.AllocatedGPUHours)*2.5 + float64(o.Energy)/3.6e6*0.3
		if !(o.Energy > 0) || math.Abs(float64(o.Cost)-cost) > 1e-9 {
			t.Errorf("%s: energy %v J, cost %v, want %v", o.Owner, o.Energy, o.Cost, cost)
		}
	}
	// The owners' energy is the GPUs' (integrated power).
	var sum, gpus float64
	for _, o := range r.Owners {
		sum += float64(o.Energy)
	}
	for _, g := range r.GPUs {
		gpus += float64(g.Energy)
	}
	if math.Abs(sum-gpus) > 1e-6*gpus {
		t.Errorf("owners' energy %v J, the GPUs' %v J", sum, gpus)
	}

	var back struct {
		Owners []report.ReportOwner `json:"owners"`
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Owners) != 4 {
		t.Fatalf("JSON owners: %v %+v", err, back.Owners)
	}
}

// A session without owners has no owners section in any form.
func TestReportWithoutOwners(t *testing.T) {
	samples, info := repDemo(t, "training", 60)
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	text, md, js := repRender(t, r)
	for name, b := range map[string][]byte{"text": text, "markdown": md, "JSON": js} {
		if bytes.Contains(bytes.ToLower(b), []byte("owner")) {
			t.Errorf("the %s report of a session without owners speaks of owners", name)
		}
	}
}
