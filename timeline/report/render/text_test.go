package render

import (
	"bytes"
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
