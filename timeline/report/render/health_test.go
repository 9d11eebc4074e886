package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// A GPU whose link ran at x8 of x16 and whose clocks were held for power
// half the time has a HEALTH line; a GPU that reports none of it has none
// (timeline/report's TestReportHealth: its figures and its JSON).
func TestHealthWritten(t *testing.T) {
	samples, info := reporttest.HealthSamples()
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "HEALTH") ||
		!strings.Contains(b.String(), "  0  PCIe Gen5 x8 of Gen5 x16; last Xid 94; ECC uncorrected 1; clocks held:\n     power 50% (1m)") {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### Health") ||
		!strings.Contains(b.String(), "| GPU0 | PCIe Gen5 x8 of Gen5 x16; last Xid 94; ECC uncorrected 1; clocks held: power 50% (1m) |") ||
		strings.Contains(b.String(), "| GPU1 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
}
