package diff

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The diff compares each owner's GPU time: one that let its idle GPU go
// in B shows its idle hours falling to 0; one only in B appears with 0 in
// A; a cost known in neither run is left out of the tables.
func TestOwnersCompared(t *testing.T) {
	nb := report.ReportOwner{Owner: "pod team-b/notebook-bob", AllocatedGPUHours: 2, IdleGPUHours: 2, Energy: 5e5,
		Cost: report.Number(math.NaN())}
	job := report.ReportOwner{Owner: "Slurm job 4242", AllocatedGPUHours: 4, BusyGPUHours: 3.5, IdleGPUHours: 0.5, Energy: 8e6,
		Cost: report.Number(math.NaN())}
	a := repOf([]float64{50}, nil)
	a.Owners = []report.ReportOwner{nb, job}
	b := repOf([]float64{50}, nil)
	jobB := job
	jobB.BusyGPUHours, jobB.IdleGPUHours = 4, 0
	newJob := report.ReportOwner{Owner: "Slurm job 4300", AllocatedGPUHours: 1, BusyGPUHours: 1, Energy: 1e6,
		Cost: report.Number(math.NaN())}
	b.Owners = []report.ReportOwner{jobB, newJob}
	d := New("a.gtr", a, "b.gtr", b)
	if len(d.Owners) != 3 || d.Owners[0].Owner != nb.Owner || d.Owners[2].Owner != newJob.Owner {
		t.Fatalf("owners %+v", d.Owners)
	}
	get := func(o Owner, name string) Metric {
		for _, m := range o.Metrics {
			if m.Name == name {
				return m
			}
		}
		t.Fatalf("%s has no %s", o.Owner, name)
		return Metric{}
	}
	if m := get(d.Owners[0], OwnerIdle); m.A != 2 || m.B != 0 || m.Change != -2 || m.Better != "down" {
		t.Errorf("the notebook's idle hours %+v", m)
	}
	if m := get(d.Owners[1], OwnerBusy); m.A != 3.5 || m.B != 4 || math.Abs(float64(m.Relative)-0.5/3.5) > 1e-12 {
		t.Errorf("the job's busy hours %+v", m)
	}
	if m := get(d.Owners[2], OwnerAllocated); m.A != 0 || m.B != 1 || !m.Relative.Unknown() {
		t.Errorf("the new job's hours %+v", m)
	}
	var text, md, page bytes.Buffer
	for _, err := range []error{d.WriteText(&text), d.WriteMarkdown(&md), d.WriteHTML(&page)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]string{"text": text.String(), "markdown": md.String(), "HTML": page.String()} {
		if !strings.Contains(s, "pod team-b/notebook-bob") || !strings.Contains(s, "idle GPU-h") || strings.Contains(s, "cost") {
			t.Errorf("%s:\n%s", name, s)
		}
	}
	if !strings.Contains(text.String(), "  idle GPU-h                    2            0  -2 (-100.0%)") {
		t.Errorf("text:\n%s", text.String())
	}

	// Neither run knows owners: nothing said of them, the JSON as before.
	plain := New("a.gtr", repOf([]float64{50}, nil), "b.gtr", repOf([]float64{60}, nil))
	var js bytes.Buffer
	if err := plain.WriteJSON(&js); err != nil || plain.Owners != nil || strings.Contains(js.String(), "owner") {
		t.Errorf("a diff without owners: %v %s", err, js.String())
	}
}
