package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// A GPU whose link ran at x8 of x16 and whose clocks were held for power
// half the time has a health object; a GPU that reports none of it has
// none (timeline/report/render's TestHealthWritten: its lines).
func TestReportHealth(t *testing.T) {
	samples, info := reporttest.HealthSamples()
	r := NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), ReportOptions{})
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
