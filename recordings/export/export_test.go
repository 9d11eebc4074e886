package export

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
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
		// NVML's average on the first sample; then from the energy counter,
		// with the float noise of 412.345 J differences rounded away.
		{"power_w", cells(gpu0, "power_w"), []string{"400", "412.345", "412.345", "412.345"}},
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
		{"marker", cells(tbl.of("marker"), "marker"), []string{`epoch 1, "warmup" done`, "line one\nline two"}},
		{"marker_origin", cells(tbl.of("marker"), "marker_origin"), []string{"job", "key"}},
		{"marker time", cells(tbl.of("marker"), "time"), []string{"2026-03-14T09:26:53.950Z", "2026-03-14T09:26:56.150Z"}},
		{"marker elapsed_s", cells(tbl.of("marker"), "elapsed_s"), []string{"0.95", "3.15"}},
		{"marker has no status", cells(tbl.of("marker"), "status"), []string{"", ""}},
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
		{"power_w", json.Number("412.345")},
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
