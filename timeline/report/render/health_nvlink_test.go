package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// nvlinkSamples is three minutes of two busy H100s as the probe records
// their NVLink (timeline/metrics_nvlink.go), and a PCIe-only third GPU:
// GPU0's link 7 counts CRC errors from 0:40 and goes down at 1:10; GPU1's
// links are well, one with errors counted before the session.
func nvlinkSamples() []timeline.Sample {
	var out []timeline.Sample
	g := timelinetest.Gauge
	for sec := range 180 {
		var ms []timeline.Metric
		for gpu := range 2 {
			dev := timeline.GPUDevice(gpu)
			ms = append(ms, g(timeline.GPUUtil, dev, 97), g(timeline.GPUNVLinkLinks, dev, 1<<18-1))
			down, errLinks := 0.0, 0.0
			var errs [3]float64
			switch {
			case gpu == 0 && sec >= 40:
				crc := float64(min(sec, 70)-40) * 40
				errs = [3]float64{crc, crc / 10, float64(b2f(sec >= 70))}
				if crc > 0 {
					errLinks = 1 << 7
				}
				if sec >= 70 {
					down = 1 << 7
				}
			case gpu == 1:
				errs, errLinks = [3]float64{12, 0, 0}, 1<<3
			}
			ms = append(ms, g(timeline.GPUNVLinkDown, dev, down), g(timeline.GPUNVLinkErrLinks, dev, errLinks))
			erring := 7
			if gpu == 1 {
				erring = 3
			}
			if errLinks != 0 {
				k := timeline.NVLinks[erring]
				ms = append(ms, g(k.CRC, dev, errs[0]), g(k.Replay, dev, errs[1]), g(k.Recovery, dev, errs[2]))
			}
			for l := range 18 {
				gib := float64(sec) * 6
				if gpu == 0 && l == 7 {
					gib = float64(min(sec, 70)) * 6
				} else if gpu == 0 && sec > 70 {
					gib = 70*6 + float64(sec-70)*6*18/17
				}
				ms = append(ms, timelinetest.Counter(timeline.NVLinks[l].DataGiB, dev, gib))
			}
		}
		ms = append(ms, g(timeline.GPUUtil, "gpu2", 97), g(timeline.GPUPCIeGen, "gpu2", 5), g(timeline.GPUPCIeGenMax, "gpu2", 5),
			g(timeline.GPUPCIeWidth, "gpu2", 16), g(timeline.GPUPCIeWidthMax, "gpu2", 16))
		out = append(out, timeline.Sample{At: reporttest.T(float64(sec))}.WithMetrics(ms))
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// The report's HEALTH names the links down and erring, in text, markdown
// and JSON, and says nothing of the PCIe-only GPU's links.
func TestReportNVLinks(t *testing.T) {
	samples := nvlinkSamples()
	info := timeline.SourceInfo{Interval: time.Second, GPUs: []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3"}, {Index: 1, Name: "NVIDIA H100 80GB HBM3"}, {Index: 2, Name: "NVIDIA L40S"}}}
	r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{})
	h := r.GPUs[0].Health
	if h == nil || len(h.NVLinks) != 18 {
		t.Fatalf("GPU0 health %+v", h)
	}
	l7 := h.NVLinks[7]
	if !l7.Down || l7.DownSeconds < 105 || l7.DownSeconds > 112 || l7.CRCErrors != 1200 || l7.Replays != 120 || l7.Recoveries != 1 {
		t.Errorf("GPU0 NVLink 7: %+v", l7)
	}
	if l0 := h.NVLinks[0]; l0.Down || l0.CRCErrors != 0 || l0.Data < 6e9 {
		t.Errorf("GPU0 NVLink 0: %+v", l0)
	}
	if r.GPUs[2].Health == nil || r.GPUs[2].Health.NVLinks != nil {
		t.Errorf("the PCIe-only GPU's health: %+v", r.GPUs[2].Health)
	}
	text, md, js := repRender(t, r)
	repCheckText(t, text)
	for _, want := range []string{
		"  0  NVLink 7 down 1m50s; NVLink 7: CRC errors 1200, replays 120, recoveries 1",
		"  1  NVLink 3: CRC errors 12",
		"GPU0 NVLink 7 down while its 17 peers are up",
		"GPU0 NVLink 7: 1200 CRC errors, 120",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(string(md), "| GPU0 | NVLink 7 down 1m50s; NVLink 7: CRC errors 1200") {
		t.Errorf("markdown:\n%s", md)
	}
	var back struct {
		GPUs []struct {
			Health *struct {
				NVLinks []report.LinkHealth `json:"nvlinks"`
			} `json:"health"`
		} `json:"gpus"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.GPUs[0].Health.NVLinks[7]; !got.Down || got.CRCErrors != 1200 {
		t.Errorf("JSON GPU0 NVLink 7: %+v", got)
	}
	repGolden(t, "report_nvlink.txt.golden", text)
	repGolden(t, "report_nvlink.md.golden", md)
	repGolden(t, "report_nvlink.json.golden", js)
}
