package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// A MIG instance's row in the tables says which GPU it is a slice of and
// its profile, not the model it shares with its parent.
func TestReportNamesMIGSlices(t *testing.T) {
	info := timeline.SourceInfo{Interval: time.Second, GPUs: []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", MIG: true},
		{Index: 1, Name: "NVIDIA H100 80GB HBM3 MIG 1g.10gb", MIG: true, MIGProfile: "1g.10gb", MIGParent: 0},
	}}
	var samples []timeline.Sample
	for sec := range 60 {
		samples = append(samples, timeline.Sample{At: reporttest.T(float64(sec))}.WithMetrics([]timeline.Metric{
			timelinetest.Gauge(timeline.GPUSMActive, "gpu1", 4),
		}))
	}
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	var text, md bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "  1  GPU0 MIG 1g.10gb ") || strings.Contains(text.String(), "HBM...") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(md.String(), "GPU0 MIG 1g.10gb") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
