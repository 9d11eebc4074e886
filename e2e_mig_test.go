package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// MIG through the real Prometheus: gputop serve --demo=mig exports GPU0's
// three slices as dcgm-exporter does (GPU0's gpu and UUID, GPU_I_PROFILE,
// GPU_I_ID), Prometheus keeps them apart from GPU0's own series, and
// gputop import prometheus reads them back as MIG slices of GPU0, which
// the report counts as such. Everything listens on 127.0.0.1.
func TestMIGThroughTheRealPrometheus(t *testing.T) {
	// In parallel: mostly waiting on Prometheus, with ports and a runtime
	// directory of its own.
	t.Parallel()
	isolateOwnMarks(t)
	promBin := needPrometheus(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	from := time.Now().Add(-time.Second).UTC().Truncate(time.Second)
	addr := freeLoopbackAddr(t)
	startGroup(t, filepath.Join(dir, "serve.log"), bin, "serve", "--demo=mig", "--listen", addr)
	config := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n"+
		"  - job_name: gputop\n    static_configs:\n      - targets: [%q]\n", addr)
	promAddr := startPrometheus(t, promBin, dir, config)

	// Bounded: 20 s of the slices' series, and the starved slice's hint.
	deadline := time.Now().Add(90 * time.Second)
	var slices []promResult
	ready := false
	for !ready && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		slices = promQuery(promAddr, `DCGM_FI_DEV_FB_USED{GPU_I_ID!=""}`)
		hinted := len(promQuery(promAddr, `gputop_hint_active{id="gpu-imbalance",GPU_I_PROFILE="1g.10gb",gpu="0"}`)) > 0
		ready = len(slices) == 3 && hinted && time.Since(from) > 20*time.Second
	}
	if !ready {
		log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
		t.Fatalf("after 90 s Prometheus had %d slices' series or no hint on the 1g.10gb slice; its log's tail:\n%s",
			len(slices), tail(string(log), 2000))
	}
	whole := promQuery(promAddr, `DCGM_FI_DEV_FB_USED{gpu="0",GPU_I_ID=""}`)
	if len(whole) != 1 {
		t.Fatalf("GPU0's own memory: %v", whole)
	}
	profiles := map[string]bool{}
	for _, s := range slices {
		profiles[s.Metric["GPU_I_PROFILE"]] = true
		if s.Metric["gpu"] != "0" || s.Metric["UUID"] != whole[0].Metric["UUID"] || s.Metric["device"] != "nvidia0" {
			t.Errorf("a slice's labels %v, GPU0's %v", s.Metric, whole[0].Metric)
		}
	}
	if !profiles["3g.40gb"] || !profiles["2g.20gb"] || !profiles["1g.10gb"] {
		t.Errorf("profiles %v", profiles)
	}

	out := filepath.Join(dir, "mig.gtr")
	msg, err := exec.Command(bin, "import", "prometheus", "http://"+promAddr, "--from", from.Format(time.RFC3339),
		"--to", "now", "--step", "1s", "-o", out).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, msg)
	}
	if !strings.Contains(string(msg), "of 8 GPUs on ") || !strings.Contains(string(msg), "(GPU0 split into 3 MIG slices)") {
		t.Errorf("import says %q", msg)
	}
	r, err := recordings.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	info := r.Info()
	r.Close()
	got := map[string]bool{}
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			if g.MIGParent != 0 || g.Index < 8 {
				t.Errorf("slice %+v", g)
			}
			got[g.MIGProfile] = true
		}
	}
	if len(info.GPUs) != 11 || len(got) != 3 || !info.GPUs[0].MIG {
		t.Errorf("%d GPUs, slices %v, GPU0 %+v", len(info.GPUs), got, info.GPUs[0])
	}
	rep, err := exec.Command(bin, "report", "--format", "json", out).Output()
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var report struct {
		PhysicalGPUs int `json:"physical_gpus"`
		MIGInstances int `json:"mig_instances"`
		Hints        []struct {
			ID   string
			GPUs []int
		}
	}
	if err := json.Unmarshal(rep, &report); err != nil {
		t.Fatal(err)
	}
	if report.PhysicalGPUs != 8 || report.MIGInstances != 3 {
		t.Errorf("report counts %d GPUs and %d slices", report.PhysicalGPUs, report.MIGInstances)
	}
	text, err := exec.Command(bin, "report", out).Output()
	if err != nil || !strings.Contains(string(text), "8 GPUs, GPU0 split into 3 MIG slices") {
		t.Errorf("text report: %v\n%s", err, text)
	}
}
