package diff

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline/report"
)

// repOf is a small report: GPUs of the given mean utilisation (p10 and p90
// 10 points either side), 300 W and 1 MJ each, and phases and hints.
func repOf(utils []float64, phases []report.ReportPhase, hints ...report.ReportHint) *report.Report {
	r := &report.Report{Duration: 600, Phases: phases, Hints: hints}
	for i, u := range utils {
		r.GPUs = append(r.GPUs, report.ReportGPU{Index: i, Name: "NVIDIA H100 80GB HBM3",
			Util:     report.ReportStats{Mean: report.Number(u), P10: report.Number(u - 10), P90: report.Number(u + 10)},
			SMActive: report.ReportStats{Mean: report.Number(math.NaN())}, PowerMean: 300, Energy: 1e6,
			MemUsedMax: 40 << 30})
	}
	return r
}

func phase(kind, label string, secs float64) report.ReportPhase {
	return report.ReportPhase{Kind: kind, Label: label, Duration: report.Number(secs)}
}

func TestNewComparesFiguresPhasesAndHints(t *testing.T) {
	stall := report.ReportHint{ID: "periodic-stall", Severity: "warning", Evidence: "stalls"}
	held := report.ReportHint{ID: "power-capped", Severity: "info", Evidence: "capped"}
	a := repOf([]float64{50, 70}, []report.ReportPhase{phase("busy", "", 400), phase("stalled", "", 200),
		phase("marker", "epoch 1", 300), phase("marker", "eval", 60)}, stall, held)
	heldWorse := held
	heldWorse.Severity = "warning"
	idle := report.ReportHint{ID: "gpu-idle", Severity: "critical", Evidence: "GPU2 idle"}
	b := repOf([]float64{80, 90, 10}, []report.ReportPhase{phase("busy", "", 540), phase("idle", "", 60),
		phase("marker", "epoch 1", 200), phase("marker", "epoch 2", 200)}, heldWorse, idle)
	d := New("a.gtr", a, "b.gtr", b)

	for _, tt := range []struct {
		metric       string
		a, b, change float64
	}{
		{MetricBusy, 400.0 / 6, 90, 90 - 400.0/6},
		{MetricUtil, 60, 60, 0},
		{MetricUtilP10, 50, 50, 0},
		{MetricPower, 600, 900, 300},
		{MetricEnergy, 2e6, 3e6, 1e6},
		{MetricMemory, 40 << 30, 40 << 30, 0},
	} {
		m, ok := d.Metric(tt.metric)
		if !ok || math.Abs(float64(m.A)-tt.a) > 1e-9 || math.Abs(float64(m.B)-tt.b) > 1e-9 || math.Abs(float64(m.Change)-tt.change) > 1e-9 {
			t.Errorf("%s: got %v -> %v (%v), want %v -> %v (%v)", tt.metric, m.A, m.B, m.Change, tt.a, tt.b, tt.change)
		}
	}
	if m, _ := d.Metric(MetricSM); !math.IsNaN(float64(m.A)) || !math.IsNaN(float64(m.Relative)) {
		t.Errorf("SM activity recorded by neither run should be unknown, got %+v", m)
	}
	wantPhases := map[string][2]float64{"busy/": {400, 540}, "stalled/": {200, 0}, "idle/": {0, 60},
		"marker/epoch 1": {300, 200}, "marker/eval": {60, 0}, "marker/epoch 2": {0, 200}}
	for _, p := range d.Phases {
		w, ok := wantPhases[p.Kind+"/"+p.Label]
		if !ok || float64(p.A) != w[0] || float64(p.B) != w[1] {
			t.Errorf("phase %s %q: %v -> %v, want %v", p.Kind, p.Label, p.A, p.B, w)
		}
		delete(wantPhases, p.Kind+"/"+p.Label)
	}
	if len(wantPhases) > 0 {
		t.Errorf("phases missing: %v", wantPhases)
	}
	changes := map[string]string{}
	for _, h := range d.Hints {
		changes[h.ID] = h.Change
	}
	if changes["periodic-stall"] != "gone" || changes["power-capped"] != "severity" || changes["gpu-idle"] != "appeared" || len(changes) != 3 {
		t.Errorf("hint changes: %v", changes)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "different GPU counts (2 and 3)") {
		t.Errorf("notes: %q", d.Notes)
	}
	var text, md, page, js bytes.Buffer
	for _, w := range []error{d.WriteText(&text), d.WriteMarkdown(&md), d.WriteHTML(&page), d.WriteJSON(&js)} {
		if w != nil {
			t.Fatal(w)
		}
	}
	for _, want := range []string{"busy share", "+23.3pt (+35.0%)", `marked "epoch 2"`, "gone: periodic-stall (warning in A)",
		"changed: power-capped, info in A, warning in B", "appeared: gpu-idle (critical in B): GPU2 idle"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if !strings.Contains(page.String(), "<h2>Hints</h2>") || !strings.Contains(md.String(), "| marked \"epoch 2\" | 0s | 3m20s |") {
		t.Errorf("html or markdown:\n%s\n%s", page.String(), md.String())
	}
}

func TestParseCondition(t *testing.T) {
	for _, tt := range []struct {
		in       string
		metric   string
		op       string
		value    float64
		relative bool
		err      string
	}{
		{in: "busy<-5%", metric: "busy", op: "<", value: -0.05, relative: true},
		{in: "energy>+10%", metric: "energy", op: ">", value: 0.10, relative: true},
		{in: " util <= -3pt ", metric: "util", op: "<=", value: -3},
		{in: "duration>=+2m", metric: "duration", op: ">=", value: 120},
		{in: "energy>1.5kWh", metric: "energy", op: ">", value: 5.4e6},
		{in: "memory>+2GiB", metric: "memory", op: ">", value: 2 << 30},
		{in: "power>50", metric: "power", op: ">", value: 50},
		{in: "busy", err: "not METRIC OP CHANGE"},
		{in: "bsy<-5%", err: `no metric "bsy"`},
		{in: "busy<-5W", err: "W is no unit of busy"},
		{in: "busy=-5%", err: "not METRIC OP CHANGE"},
		{in: "busy<--5%", err: "not METRIC OP CHANGE"},
	} {
		c, err := ParseCondition(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || c.Metric != tt.metric || c.Op != tt.op || math.Abs(c.Value-tt.value) > 1e-9 || c.Relative != tt.relative {
			t.Errorf("%q: %+v, %v", tt.in, c, err)
		}
	}
}

func TestConditionCheck(t *testing.T) {
	a := repOf([]float64{80, 80}, []report.ReportPhase{phase("busy", "", 600)})
	b := repOf([]float64{70, 70}, []report.ReportPhase{phase("busy", "", 300), phase("idle", "", 300)})
	b.GPUs[0].Energy, b.GPUs[1].Energy = 1.2e6, 1.2e6
	b.GPUs[0].SMActive.Mean = 40 // SM known in B only: cannot be compared
	d := New("a", a, "b", b)
	for _, tt := range []struct {
		cond  string
		holds bool
		why   string
	}{
		{"busy<-5%", true, "busy<-5%: busy share 100% -> 50%, -50.0pt (-50.0%)"},
		{"busy<-60%", false, ""},
		{"util<-5pt", true, ""},
		{"util<-15pt", false, ""},
		{"energy>+10%", true, "energy>+10%: energy, all GPUs 2.00MJ -> 2.40MJ"},
		{"energy>+25%", false, ""},
		{"sm<-5%", true, "(cannot be compared)"},
	} {
		c, err := ParseCondition(tt.cond)
		if err != nil {
			t.Fatal(err)
		}
		holds, why := c.Check(d)
		if holds != tt.holds || !strings.Contains(why, tt.why) {
			t.Errorf("%s: holds %v (%s), want %v (%s)", tt.cond, holds, why, tt.holds, tt.why)
		}
	}
}

// BenchmarkNew is the comparison alone, of two reports of 64 GPUs with a
// day of phases: the command's cost is its two reports (BenchmarkReportBigNode).
func BenchmarkNew(b *testing.B) {
	utils := make([]float64, 64)
	var ps []report.ReportPhase
	for i := range 1440 {
		ps = append(ps, phase([]string{"busy", "stalled", "idle"}[i%3], "", 60), phase("marker", "epoch "+string(rune('0'+i%10)), 60))
	}
	a, c := repOf(utils, ps), repOf(utils, ps)
	for b.Loop() {
		New("a", a, "b", c)
	}
}
