package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// A GPU whose link ran at x8 of x16 and whose clocks were held for power
// half the time has a HEALTH line and a health object; a GPU that reports
// none of it has neither.
func TestReportHealth(t *testing.T) {
	var samples []timeline.Sample
	for sec := range 120 {
		g := timelinetest.Gauge
		ms := []timeline.Metric{
			g(timeline.GPUUtil, "gpu0", 95),
			g(timeline.GPUPCIeGen, "gpu0", 5), g(timeline.GPUPCIeGenMax, "gpu0", 5),
			g(timeline.GPUPCIeWidth, "gpu0", 8), g(timeline.GPUPCIeWidthMax, "gpu0", 16),
			g(timeline.GPUECCUncorrected, "gpu0", float64(sec/60)),
			g(timeline.GPUXid, "gpu0", 0),
			// Half of every second held for power, since the driver loaded.
			timelinetest.Counter(timeline.GPUViolPowerSecs, "gpu0", 1000+0.5*float64(sec)),
			g(timeline.GPUUtil, "gpu1", 95),
		}
		s := timeline.Sample{At: repT(float64(sec)), Metrics: ms}
		if sec == 90 {
			s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(0, 94), Origin: timeline.XidOrigin}}
		}
		samples = append(samples, s)
	}
	info := timeline.SourceInfo{Interval: time.Second}
	r := NewReport(repStore(samples), info, repAnalysis(samples, info), ReportOptions{})
	if r.GPUs[1].Health != nil {
		t.Errorf("GPU1 reported no health, yet has %+v", r.GPUs[1].Health)
	}
	h := r.GPUs[0].Health
	if h == nil {
		t.Fatal("no health for GPU0")
	}
	if h.PCIeWidth != 8 || h.PCIeWidthMax != 16 || h.ECCUncorrected != 1 || h.LastXid != 94 {
		t.Errorf("health %+v", h)
	}
	if len(h.ClocksHeld) != 1 || h.ClocksHeld[0].Reason != "power" || !repNear(h.ClocksHeld[0].Share, 0.5) {
		t.Fatalf("clocks held %+v", h.ClocksHeld)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "HEALTH") ||
		!strings.Contains(b.String(), "  0  PCIe Gen5 x8 of Gen5 x16; last Xid 94; ECC uncorrected 1; clocks held:\n     power 50% (1m)") {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### Health") ||
		!strings.Contains(b.String(), "| GPU0 | PCIe Gen5 x8 of Gen5 x16; last Xid 94; ECC uncorrected 1; clocks held: power 50% (1m) |") ||
		strings.Contains(b.String(), "| GPU1 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		GPUs []map[string]any `json:"gpus"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.GPUs[1]["health"]; ok {
		t.Error("GPU1 has a health object in JSON")
	}
	repKeys(t, "gpus.health", doc.GPUs[0]["health"], []string{"pcie_gen", "pcie_width_max", "ecc_uncorrected", "last_xid", "clocks_held"})
}
