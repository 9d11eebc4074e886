package export

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

func TestExportCSV(t *testing.T) {
	tbl := parseCSV(t, exportOf(t, exportFile(t, t.TempDir()), CSV))
	if !slices.Equal(tbl.header, exportColumns) {
		t.Fatalf("header\n got %q\nwant %q", tbl.header, exportColumns)
	}
	if len(tbl.rows) != exportRows {
		t.Fatalf("%d rows, want %d", len(tbl.rows), exportRows)
	}
	gpu0, gpu1, host := tbl.of("gpu0"), tbl.of("gpu1"), tbl.of("host")
	for _, c := range []struct {
		what string
		got  []string
		want []string
	}{
		{"time", cells(gpu0, "time"), []string{"2026-03-14T09:26:53.250Z", "2026-03-14T09:26:54.250Z", "2026-03-14T09:26:55.250Z", "2026-03-14T09:26:56.250Z"}},
		{"elapsed_s", cells(gpu0, "elapsed_s"), []string{"0.25", "1.25", "2.25", "3.25"}},
		{"gpu", cells(gpu1, "gpu"), []string{"1", "1"}},
		// NVML's one-second average throughout: samples 1 s apart are too
		// close for the energy counter's rate (412.345 W here) to replace it
		// (timeline's energyTrustAfter).
		{"power_w", cells(gpu0, "power_w"), []string{"400", "400", "400", "400"}},
		{"util_pct", cells(gpu0, "util_pct"), []string{"97.1667", "97.1667", "", "97.1667"}},
		{"sm_active_pct (NaN)", cells(gpu0, "sm_active_pct"), []string{"", "", "", ""}},
		{"mem_used_bytes", cells(gpu0, "mem_used_bytes"), []string{"64424509440", "64424509440", "64424509440", "64424509440"}},
		{"pcie_tx_bytes_per_s", cells(gpu0, "pcie_tx_bytes_per_s"), []string{"", "400000000", "400000000", "400000000"}},
		{"throttle", cells(gpu0, "throttle"), []string{"0", "0", "9", "0"}},
		{"throttle_reasons", cells(gpu0, "throttle_reasons"), []string{"", "", "power cap|sw thermal", ""}},
		{"status", cells(gpu0, "status"), []string{"ok", "ok", "failed", "ok"}},
		{"error", cells(gpu0, "error"), []string{"", "", `nvml: Unknown Error, "code" 999`, ""}},
		{"lost GPU's status", cells(gpu1, "status"), []string{"ok", "lost"}},
		{"lost GPU's error", cells(gpu1, "error"), []string{"", "GPU is lost"}},
		{"cpu_pct", cells(host, "cpu_pct"), []string{"", "75", "75", "75"}},
		{"iowait_pct", cells(host, "iowait_pct"), []string{"", "5", "5", "5"}},
		{"cpu_cores", cells(host, "cpu_cores"), []string{"", "2", "2", "2"}},
		{"cpu_busiest_pct", cells(host, "cpu_busiest_pct"), []string{"", "100", "100", "100"}},
		{"cpu_cores_pegged", cells(host, "cpu_cores_pegged"), []string{"", "1", "1", "1"}},
		{"host mem_used_bytes", cells(host, "mem_used_bytes"), []string{"214748364800", "214748364800", "214748364800", "214748364800"}},
		{"host has no util", cells(host, "util_pct"), []string{"", "", "", ""}},
		{"gpu has no cpu", cells(gpu0, "cpu_pct"), []string{"", "", "", ""}},
		{"job proc_cpu_pct", cells(tbl.of("job"), "proc_cpu_pct"), []string{"", "150", "150", "150"}},
		{"job proc_rss_bytes", cells(tbl.of("job"), "proc_rss_bytes"), []string{"8589934592", "8589934592", "8589934592", "8589934592"}},
		{"self sample_lag_s", cells(tbl.of("self"), "sample_lag_s"), []string{"0.000412", "0.000412", "0.000412", "0.000412"}},
		{"marker", cells(tbl.of("marker"), "marker"), []string{`epoch 1, "warmup" done`, "ünïcode ✓, \"two\""}},
		{"marker_origin", cells(tbl.of("marker"), "marker_origin"), []string{"job", "key"}},
		{"marker time", cells(tbl.of("marker"), "time"), []string{"2026-03-14T09:26:53.950Z", "2026-03-14T09:26:56.150Z"}},
		{"marker elapsed_s", cells(tbl.of("marker"), "elapsed_s"), []string{"0.95", "3.15"}},
		{"marker has no status", cells(tbl.of("marker"), "status"), []string{"", ""}},
		{"hostname", cells(gpu1, "hostname"), []string{"dgx-07", "dgx-07"}},
		{"host's hostname", cells(host, "hostname"), []string{"dgx-07", "dgx-07", "dgx-07", "dgx-07"}},
		{"host_gpu", cells(gpu1, "host_gpu"), []string{"1", "1"}},
		{"a physical GPU has no mig_parent", cells(gpu0, "mig_parent"), []string{"", "", "", ""}},
		{"mem_free_bytes", cells(gpu0, "mem_free_bytes"), []string{"21474836480", "21474836480", "21474836480", "21474836480"}},
		{"pcie_width", cells(gpu0, "pcie_width"), []string{"8", "8", "8", "8"}},
		{"pcie_width_max", cells(gpu0, "pcie_width_max"), []string{"16", "16", "16", "16"}},
		{"pcie_replays", cells(gpu0, "pcie_replays"), []string{"2", "2", "2", "2"}},
		{"nvlink_tx_bytes_per_s (MiB counter)", cells(gpu0, "nvlink_tx_bytes_per_s"), []string{"", "1073741824", "1073741824", "1073741824"}},
		{"nvlink_links (a count)", cells(gpu0, "nvlink_links"), []string{"18", "18", "18", "18"}},
		{"nvlink_down (link ids)", cells(gpu0, "nvlink_down"), []string{"", "", "", "3"}},
		{"ecc_uncorrected", cells(gpu0, "ecc_uncorrected"), []string{"0", "1", "2", "3"}},
		{"xid (none)", cells(gpu0, "xid"), []string{"0", "0", "0", "0"}},
		{"clocks_held_power_pct", cells(gpu0, "clocks_held_power_pct"), []string{"", "25", "25", "25"}},
		{"not reported by gpu1", cells(gpu1, "pcie_gen"), []string{"", ""}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
	// Each sample's rows: its markers, then GPUs in index order, the host,
	// the job, gputop.
	var order []string
	for _, r := range tbl.rows[:8] {
		order = append(order, r["device"])
	}
	if want := []string{"gpu0", "gpu1", "host", "job", "self", "marker", "gpu0", "gpu1"}; !slices.Equal(order, want) {
		t.Errorf("row order %q, want %q", order, want)
	}
}

func TestExportJSONL(t *testing.T) {
	data := exportOf(t, exportFile(t, t.TempDir()), JSONL)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != exportRows {
		t.Fatalf("%d lines, want %d", len(lines), exportRows)
	}
	var objs []map[string]any
	for i, line := range lines {
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		var obj map[string]any
		if err := d.Decode(&obj); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		objs = append(objs, obj)
	}
	keysOf := func(obj map[string]any) []string {
		var keys []string
		for _, c := range exportColumns { // in column order
			if _, ok := obj[c]; ok {
				keys = append(keys, c)
			}
		}
		return keys
	}
	find := func(device string, n int) map[string]any {
		for _, o := range objs {
			if o["device"] == device {
				if n == 0 {
					return o
				}
				n--
			}
		}
		t.Fatalf("no row %d of %s", n, device)
		return nil
	}
	marker := find("marker", 0)
	if got, want := keysOf(marker), []string{"time", "elapsed_s", "device", "marker", "marker_origin"}; !slices.Equal(got, want) || len(marker) != len(want) {
		t.Errorf("marker object has %q, want %q", got, want)
	}
	if marker["marker"] != `epoch 1, "warmup" done` || marker["elapsed_s"] != json.Number("0.95") {
		t.Errorf("marker object %v", marker)
	}
	failed := find("gpu0", gpu0FailsAt)
	for _, c := range []struct {
		key  string
		want any
	}{
		{"util_pct", nil},      // NaN
		{"sm_active_pct", nil}, // NaN
		{"power_w", json.Number("400")},
		{"gpu", json.Number("0")},
		{"status", "failed"},
		{"error", `nvml: Unknown Error, "code" 999`},
		{"throttle", json.Number("9")},
		{"throttle_reasons", "power cap|sw thermal"},
		{"time", "2026-03-14T09:26:55.250Z"},
	} {
		if got, ok := failed[c.key]; !ok || got != c.want {
			t.Errorf("gpu0 row %d: %s = %#v (present %v), want %#v", gpu0FailsAt, c.key, got, ok, c.want)
		}
	}
	if _, ok := failed["cpu_pct"]; ok {
		t.Errorf("a GPU row carries the host's cpu_pct: %v", failed)
	}
	if ok := find("gpu0", 0); ok["error"] != nil || ok["throttle_reasons"] != "" {
		t.Errorf("a GPU without error or throttling: error %#v, throttle_reasons %#v", ok["error"], ok["throttle_reasons"])
	}
	host := find("host", 1)
	if host["cpu_pct"] != json.Number("75") || host["cpu_busiest_pct"] != json.Number("100") || host["gpu"] != nil {
		t.Errorf("host row %v", host)
	}
	if _, ok := host["util_pct"]; ok {
		t.Errorf("the host row carries util_pct: %v", host)
	}
}

// A GPU that is lost has a last row that says so, and none after it; the
// other devices go on.
func TestExportLostGPUHasNoRowsAfter(t *testing.T) {
	tbl := parseCSV(t, exportOf(t, exportFile(t, t.TempDir()), CSV))
	gpu1 := tbl.of("gpu1")
	if len(gpu1) != gpu1LostAt+1 || gpu1[len(gpu1)-1]["status"] != "lost" {
		t.Fatalf("gpu1 rows: %v", gpu1)
	}
	last := gpu1[len(gpu1)-1]["time"]
	for _, r := range tbl.rows {
		if r["device"] == "gpu0" && r["time"] > last {
			return
		}
	}
	t.Fatal("no gpu0 row after gpu1 was lost")
}

// In a session of several hosts each row says its machine: every host has
// its own host, job and gputop rows (its cores folded into its own row), a
// GPU carries its number on its host, and a host that does not answer has
// a row saying why, and no GPU rows, while the others go on.
func TestExportSeveralHosts(t *testing.T) {
	h, ss := exportRecording()
	const downAt = 2 // node-b does not answer on this sample
	var bSamples []timeline.Sample
	for i, s := range ss {
		if i != downAt {
			bSamples = append(bSamples, s)
		}
	}
	info, merged := timelinetest.Combine([]timelinetest.HostRun{
		{Name: "node-a", Info: h.Info, Samples: ss},
		{Name: "node-b", Info: h.Info, Samples: bSamples},
	})
	merged[downAt].Probes = append(merged[downAt].Probes, timeline.ProbeStatus{Probe: timeline.RemoteProbe,
		Device: "node-b", State: timeline.ProbeFailed, Err: "unreachable: connection refused; retrying in 2s"})
	h.Info = info
	path := filepath.Join(t.TempDir(), "hosts.gtr")
	writeFile(t, path, h, merged)
	tbl := parseCSV(t, exportOf(t, path, CSV))

	var order []string
	for _, r := range tbl.rows[:8] {
		order = append(order, r["device"]+"@"+r["hostname"])
	}
	if want := []string{"gpu0@node-a", "gpu1@node-a", "gpu2@node-b", "gpu3@node-b", "host@node-a", "host@node-b",
		"job@node-a", "job@node-b"}; !slices.Equal(order, want) {
		t.Errorf("row order %q, want %q", order, want)
	}
	byHost := func(device, host string) []map[string]string {
		var out []map[string]string
		for _, r := range tbl.of(device) {
			if r["hostname"] == host {
				out = append(out, r)
			}
		}
		return out
	}
	hostB := byHost("host", "node-b")
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"node-a's cores, its own", cells(byHost("host", "node-a"), "cpu_cores"), []string{"", "2", "2", "2"}},
		// A rate needs the sample before: none on the first after the gap.
		{"node-b's cpu", cells(hostB, "cpu_pct"), []string{"", "75", "", ""}},
		{"node-b's status", cells(hostB, "status"), []string{"ok", "ok", "failed", "ok"}},
		{"node-b's error", cells(hostB, "error"), []string{"", "", "unreachable: connection refused; retrying in 2s", ""}},
		{"node-b's GPU, session-wide", cells(tbl.of("gpu2"), "gpu"), []string{"2", "2", "2"}},
		{"node-b's GPU, on its host", cells(tbl.of("gpu2"), "host_gpu"), []string{"0", "0", "0"}},
		{"node-b's GPU, while it is down", cells(tbl.of("gpu2"), "time"), []string{"2026-03-14T09:26:53.250Z", "2026-03-14T09:26:54.250Z", "2026-03-14T09:26:56.250Z"}},
		{"node-b's gputop", cells(byHost("self", "node-b"), "sample_lag_s"), []string{"0.000412", "0.000412", "0.000412"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
}

// A MIG slice is a GPU row of its own, after the physical GPUs, with its
// parent and profile.
func TestExportMIGSlice(t *testing.T) {
	h, ss := exportRecording()
	h.Info.GPUs = append(h.Info.GPUs, timeline.GPUInfo{Index: 2, Name: "NVIDIA H100 80GB HBM3 MIG 1g.10gb",
		MIGProfile: "1g.10gb", MIGParent: 0, MIGGPUInstance: 13, MIGComputeInstance: 0})
	for i := range ss {
		ss[i].SetMetrics(append(ss[i].Metrics(),
			timeline.Metric{Key: timeline.Key{Name: timeline.GPUSMActive, Device: "gpu2"}, Kind: timeline.Gauge, Value: 2},
			timeline.Metric{Key: timeline.Key{Name: timeline.GPUMemUsed, Device: "gpu2"}, Kind: timeline.Gauge, Value: 9 << 30}))
	}
	path := filepath.Join(t.TempDir(), "mig.gtr")
	writeFile(t, path, h, ss)
	tbl := parseCSV(t, exportOf(t, path, CSV))
	slice := tbl.of("gpu2")
	if len(slice) != exportSamples {
		t.Fatalf("%d rows of the slice, want %d", len(slice), exportSamples)
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"mig_parent", cells(slice, "mig_parent"), []string{"0", "0", "0", "0"}},
		{"mig_profile", cells(slice, "mig_profile"), []string{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}},
		{"sm_active_pct", cells(slice, "sm_active_pct"), []string{"2", "2", "2", "2"}},
		{"util_pct: none under MIG", cells(slice, "util_pct"), []string{"", "", "", ""}},
		{"the parent has no profile", cells(tbl.of("gpu0"), "mig_profile"), []string{"", "", "", ""}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
}
