package render

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// An nvidia-smi log has no power, SM activity or host: the text says N/A
// or leaves them out, never 0 (timeline/report's TestReportImportShowsNA:
// its figures).
func TestTextShowsNoZeroForUnknown(t *testing.T) {
	samples, info := reporttest.ImportSamples()
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	var text bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	for _, zero := range []string{" 0 W", " 0 J", "0 MiB", "CPU mean 0%"} {
		if strings.Contains(text.String(), zero) {
			t.Errorf("text shows %q for an unknown:\n%s", zero, text.String())
		}
	}
}

// A report of no samples is written in every form, and says so.
func TestNoSamplesWritten(t *testing.T) {
	r := report.NewReport(timeline.NewStore(timeline.StoreOptions{}), timeline.SourceInfo{Kind: timeline.Live, Host: "node-a"},
		report.Analysis{}, report.ReportOptions{TimelineColumns: TimelineColumns})
	var txt, md, page, svg bytes.Buffer
	for _, err := range []error{Text(&txt, r), Markdown(&md, r), HTML(&page, r), SVG(&svg, r)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(txt.String(), "no samples") {
		t.Fatalf("text:\n%s", txt.String())
	}
}

// The work table of the closing report: figures wider than their column
// planned for (a 10-character rate, a long kWh, a rate of six digits) keep
// a space from their neighbours, and a phase without a rate shows N/A.
func TestTextWorkTableColumnsApart(t *testing.T) {
	r := report.NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{})
	r.Work.Progress = &report.ReportProgress{Unit: "it", Done: 600, Rate: 0.454, WarmUp: report.Number(math.NaN()),
		WarmUpShare: report.Number(math.NaN()), EnergyPerUnit: report.Number(math.NaN())}
	nan := report.Number(math.NaN())
	for k := range r.Work.Phases {
		r.Work.Phases[k] = report.ReportPhaseWork{Energy: 20.7e3, Rate: 0.454, EnergyPerUnit: nan, Cost: nan}
	}
	r.Work.Phases[0] = report.ReportPhaseWork{Energy: 35.6e3, Rate: 245162, EnergyPerUnit: 0.145, Cost: nan}
	r.Work.Phases[1].Energy = nan
	r.Work.Phases[2].Rate = nan
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  0:00:00-0:01:00 busy          35.6kJ   0.00989 245162 it/s     0.145",
		"  0:00:00-0:01:00 epoch 1          N/A       N/A  0.454 it/s       N/A",
		"  0:01:00-0:01:45 stalled       20.7kJ   0.00575         N/A       N/A",
		"  0:01:00-0:01:45 saving...     20.7kJ   0.00575  0.454 it/s       N/A",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("the work table lacks\n%s\n%s", want, b.String())
		}
	}
}
