package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// The postmortem of issue 15 with the real Prometheus (Debian's package):
// it scrapes two gputop serve processes standing for two hosts every
// second, and gputop import prometheus reads the range back into one
// recording of both hosts, whose report gives the hint the imbalance demo
// should give, on the imbalance host's GPUs. Everything listens on
// 127.0.0.1.
//
// Both serves run on this machine, so both would say the same Hostname:
// Prometheus' metric_relabel_configs rename them, as a monitoring stack
// with two exporters behind one name would.
func TestImportPrometheusFromTheRealPrometheus(t *testing.T) {
	// In parallel: mostly waiting on Prometheus, with ports and a runtime
	// directory of its own.
	t.Parallel()
	isolateOwnMarks(t)
	promBin := needPrometheus(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	// Prometheus keeps milliseconds; the range starts before the first
	// scrape and is given as --from takes RFC 3339.
	from := time.Now().Add(-time.Second).UTC().Truncate(time.Second)

	hosts := []struct{ name, scenario, addr string }{
		{"node-imbalance", "imbalance", freeLoopbackAddr(t)},
		{"node-training", "training", freeLoopbackAddr(t)},
	}
	var config strings.Builder
	config.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: gputop\n    static_configs:\n")
	for _, h := range hosts {
		startGroup(t, filepath.Join(dir, h.scenario+".log"), bin, "serve", "--demo="+h.scenario, "--listen", h.addr)
		fmt.Fprintf(&config, "      - targets: [%q]\n        labels: {node: %q}\n", h.addr, h.name)
	}
	config.WriteString("    metric_relabel_configs:\n      - source_labels: [node]\n        target_label: Hostname\n")
	promAddr := startPrometheus(t, promBin, dir, config.String())

	// Bounded: the imbalance demo's hint needs about 30 s of samples; the
	// import then has those and a little more.
	deadline := time.Now().Add(100 * time.Second)
	ready := false
	for !ready && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		gpus := map[string]int{}
		for _, r := range promQuery(promAddr, "DCGM_FI_DEV_GPU_UTIL") {
			gpus[r.Metric["Hostname"]]++
		}
		hinted := len(promQuery(promAddr, `gputop_hint_active{id="gpu-imbalance",Hostname="node-imbalance"}`)) > 0
		ready = hinted && gpus["node-imbalance"] == 8 && gpus["node-training"] == 8 && time.Since(from) > 40*time.Second
	}
	if !ready {
		log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
		t.Fatalf("after 100 s Prometheus did not have both hosts' GPUs and the imbalance hint; its log's tail:\n%s", tail(string(log), 2000))
	}

	out := filepath.Join(dir, "job.gtr")
	cmd := exec.Command(bin, "import", "prometheus", "http://"+promAddr, "--from", from.Format(time.RFC3339),
		"--to", "now", "--step", "1s", "--match", `{job="gputop"}`, "-o", out)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, msg)
	}
	if !strings.Contains(string(msg), "of 16 GPUs on 2 hosts") {
		t.Errorf("import says %q", msg)
	}
	t.Logf("%s", msg)

	r, err := recordings.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	info := r.Info()
	r.Close()
	var names []string
	for _, h := range info.Hosts {
		names = append(names, h.Name)
	}
	if !slices.Equal(names, []string{"node-imbalance", "node-training"}) || len(info.GPUs) != 16 {
		t.Fatalf("hosts %q with %d GPUs, want node-imbalance and node-training with 8 each", names, len(info.GPUs))
	}
	for _, h := range hosts {
		gpus := info.GPUsOf(h.name)
		for i, g := range gpus {
			if gi := info.GPUs[g]; gi.HostIndex != i || gi.Name != "NVIDIA H100 80GB HBM3" {
				t.Errorf("%s's GPU %d: %+v", h.name, i, gi)
			}
		}
		if len(gpus) != 8 {
			t.Errorf("%s has GPUs %v, want 8", h.name, gpus)
		}
	}

	rep, err := exec.Command(bin, "report", "--format", "json", out).Output()
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var report struct {
		GPUs []struct {
			Index int
			Util  struct{ Mean float64 }
		}
		Hints []struct {
			ID   string
			GPUs []int
		}
		Hosts []struct {
			Name     string
			GPUs     []int
			UtilMean float64 `json:"util_mean"`
		}
	}
	if err := json.Unmarshal(rep, &report); err != nil {
		t.Fatal(err)
	}
	// The report gives each host its figures: the imbalance host's one busy
	// GPU of eight leaves it far below the training host.
	if len(report.Hosts) != 2 || report.Hosts[0].Name != "node-imbalance" || report.Hosts[1].Name != "node-training" ||
		len(report.Hosts[0].GPUs) != 8 || len(report.Hosts[1].GPUs) != 8 || report.Hosts[0].UtilMean >= report.Hosts[1].UtilMean {
		t.Errorf("the report's hosts: %+v", report.Hosts)
	}
	text, err := exec.Command(bin, "report", out).Output()
	if err != nil || !strings.Contains(string(text), "HOSTS  2 hosts, 16 GPUs") || !strings.Contains(string(text), "node-imbalance (8 GPUs)") {
		t.Errorf("the text report does not give the hosts: %v\n%s", err, text)
	}
	imbalance, training := info.GPUsOf("node-imbalance"), info.GPUsOf("node-training")
	found := false
	for _, h := range report.Hints {
		t.Logf("hint %s on GPUs %v", h.ID, h.GPUs)
		if h.ID == "gpu-imbalance" && slices.ContainsFunc(h.GPUs, func(g int) bool { return slices.Contains(imbalance, g) }) {
			found = true
		}
	}
	if !found {
		t.Errorf("no gpu-imbalance hint on node-imbalance's GPUs %v", imbalance)
	}
	// The demos' own figures came through: on the imbalance host one GPU
	// (its GPU1) works and seven idle; the training host's eight all work.
	for _, g := range report.GPUs {
		busy := g.Util.Mean > 50
		switch {
		case slices.Contains(training, g.Index) && !busy,
			g.Index == imbalance[1] && !busy,
			slices.Contains(imbalance, g.Index) && g.Index != imbalance[1] && busy:
			t.Errorf("GPU %d: mean utilisation %.0f%%", g.Index, g.Util.Mean)
		}
	}
}

// The faults demo's failure survives a Prometheus history: gputop serve
// --demo=faults --demo-from 90s (GPU1 Xid 48, then Xid 79 and lost 40 s
// in; GPU6 at PCIe x8; GPU7's NVLink 16 down), scraped every second by the
// real Prometheus and imported at a 2 s step, gives the report the same
// gpu-error and link-degraded hints, on the same GPUs and as severe, as
// the report of serve's own recording of the same samples (the live
// view's). Before, the import's report said HINTS none.
func TestImportPrometheusKeepsTheFaultsFailure(t *testing.T) {
	// In parallel: mostly waiting on Prometheus, with ports and a runtime
	// directory of its own.
	t.Parallel()
	isolateOwnMarks(t)
	promBin := needPrometheus(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	from := time.Now().Add(-time.Second).UTC().Truncate(time.Second)
	addr, live := freeLoopbackAddr(t), filepath.Join(dir, "live.gtr")
	stopServe := startStoppable(t, filepath.Join(dir, "serve.log"), bin, "serve", "--demo=faults", "--demo-from", "90s",
		"--listen", addr, "-o", live)
	promAddr := startPrometheus(t, promBin, dir, "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"+
		"scrape_configs:\n  - job_name: gputop\n    static_configs:\n      - targets: ["+strconv.Quote(addr)+"]\n")

	// Bounded: GPU1 is lost 40 s in; a few more seconds of the other
	// seven after it.
	deadline := time.Now().Add(100 * time.Second)
	ready := false
	for !ready && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		ready = len(promQuery(promAddr, `gputop_gpu_lost{gpu="1"}`)) > 0 && time.Since(from) > 50*time.Second
	}
	stopServe()
	if !ready {
		log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
		t.Fatalf("after 100 s Prometheus had no gputop_gpu_lost for GPU1; its log's tail:\n%s", tail(string(log), 2000))
	}
	imported := filepath.Join(dir, "imported.gtr")
	msg, err := exec.Command(bin, "import", "prometheus", "http://"+promAddr, "--from", from.Format(time.RFC3339),
		"--to", "now", "--step", "2s", "-o", imported).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, msg)
	}
	t.Logf("%s", msg)

	hardware := func(path string) []reportHint {
		var out []reportHint
		for _, h := range reportHintsOf(t, path) {
			if h.ID == "gpu-error" || h.ID == "link-degraded" {
				out = append(out, h)
			}
		}
		return out
	}
	want, got := hardware(live), hardware(imported)
	if len(want) != 2 || want[0].ID != "gpu-error" || want[0].Severity != "critical" {
		t.Fatalf("serve's own recording has hints %+v: want a critical gpu-error and link-degraded", want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the import's hints %+v, serve's own recording's %+v", got, want)
	}
	text, err := exec.Command(bin, "report", imported).Output()
	if err != nil || !strings.Contains(string(text), "GPU1 Xid 79: GPU has fallen off the bus (xid)") || !strings.Contains(string(text), "lost at 0:00:") {
		t.Errorf("the import's report lacks GPU1's Xid 79 event or its loss: %v\n%s", err, text)
	}
}
