package export

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// exportColumns is the documented column order (docs/export.md): a
// contract, so it is spelled out here rather than read from the code.
var exportColumns = []string{
	"time", "elapsed_s", "device", "gpu", "status", "error",
	"util_pct", "util_min_pct", "util_max_pct", "mem_util_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_pct",
	"dram_bw_pct", "mem_used_bytes", "mem_total_bytes", "power_w", "power_limit_w", "temp_c", "clock_sm_mhz",
	"clock_mem_mhz", "throttle", "throttle_reasons", "pcie_tx_bytes_per_s", "pcie_rx_bytes_per_s",
	"cpu_pct", "iowait_pct", "cpu_cores", "cpu_busiest_pct", "cpu_cores_pegged", "load1", "swap_used_bytes",
	"swap_total_bytes", "disk_read_bytes_per_s", "disk_write_bytes_per_s",
	"proc_cpu_pct", "proc_rss_bytes", "sample_lag_s", "marker", "marker_origin",
	"hostname", "host_gpu", "mig_parent", "mig_profile", "mem_free_bytes",
	"pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max", "pcie_replays",
	"nvlink_tx_bytes_per_s", "nvlink_rx_bytes_per_s", "nvlink_links", "nvlink_down", "nvlink_errors",
	"ecc_corrected", "ecc_uncorrected", "ecc_corrected_life", "ecc_uncorrected_life", "retired_pages", "remapped_rows",
	"xid", "clocks_held_power_pct", "clocks_held_thermal_pct", "clocks_held_sync_boost_pct",
	"clocks_held_board_limit_pct", "clocks_held_low_util_pct", "clocks_held_reliability_pct",
	"progress_done", "progress_rate_per_s", "progress_unit",
}

const (
	exportSamples = 4
	gpu1LostAt    = 1 // gpu1 falls off the bus on this sample
	gpu0FailsAt   = 2 // gpu0's utilisation is unknown on this sample
	// rows: 2 markers, gpu0 on every sample, gpu1 up to and with the
	// sample it was lost on, and the host, the job and gputop on every one.
	exportRows = 2 + exportSamples + (gpu1LostAt + 1) + 3*exportSamples
)

// exportRecording is a small session with one of everything the export
// shows: gauges and counters, NaN, a throttled tick, a failed probe with
// an error text that needs quoting, a lost GPU, per-core counters, a job,
// and markers with commas, quotes and a newline.
func exportRecording() (recordings.Header, []timeline.Sample) {
	h := recordings.Header{Version: "v0.0.0-export", Info: recordingstest.Info(2, time.Second), Start: recordingstest.T0}
	var out []timeline.Sample
	for i := range exportSamples {
		f := float64(i)
		s := timeline.Sample{At: recordingstest.T0.Add(time.Duration(i)*time.Second + 250*time.Millisecond)}
		var ms []timeline.Metric
		add := func(name, dev string, kind timeline.Kind, v float64) {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v})
		}
		for g := range 2 {
			dev := timeline.GPUDevice(g)
			if g == 1 && i > gpu1LostAt {
				s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "nvml", Device: dev, State: timeline.ProbeLost, Err: "GPU is lost"})
				continue
			}
			util, throttle := 583.0/6, 0.0
			st := timeline.ProbeStatus{Probe: "nvml", Device: dev, State: timeline.ProbeOK, Took: time.Millisecond}
			switch {
			case g == 0 && i == gpu0FailsAt:
				util, throttle = math.NaN(), timeline.ThrottlePowerCap|timeline.ThrottleSWThermal
				st.State, st.Err = timeline.ProbeFailed, `nvml: Unknown Error, "code" 999`
			case g == 1 && i == gpu1LostAt:
				util = math.NaN()
				st.State, st.Err = timeline.ProbeLost, "GPU is lost"
			}
			add(timeline.GPUUtil, dev, timeline.Gauge, util)
			add(timeline.GPUUtilMin, dev, timeline.Gauge, 90)
			add(timeline.GPUUtilMax, dev, timeline.Gauge, 100)
			add(timeline.GPUSMActive, dev, timeline.Gauge, math.NaN()) // no GPM on this GPU
			add(timeline.GPUMemUsed, dev, timeline.Gauge, 60<<30)
			add(timeline.GPUMemTotal, dev, timeline.Gauge, 85520809984)
			add(timeline.GPUPower, dev, timeline.Gauge, 400) // NVML's average: shown, as the samples are 1 s apart
			add(timeline.GPUTemp, dev, timeline.Gauge, float64(61+g))
			add(timeline.GPUClockSM, dev, timeline.Gauge, 1980)
			add(timeline.GPUThrottle, dev, timeline.Gauge, throttle)
			add(timeline.GPUEnergy, dev, timeline.Counter, 5e6+412.345*f)
			add(timeline.GPUPCIeTxBytes, dev, timeline.Counter, 1e12+4e8*f)
			if g == 0 { // links and health: gpu0 runs at x8 of x16 and loses NVLink 3 on the last sample
				down := 0.0
				if i == exportSamples-1 {
					down = 1 << 3
				}
				add(timeline.GPUMemFree, dev, timeline.Gauge, 20<<30)
				add(timeline.GPUPCIeGen, dev, timeline.Gauge, 5)
				add(timeline.GPUPCIeGenMax, dev, timeline.Gauge, 5)
				add(timeline.GPUPCIeWidth, dev, timeline.Gauge, 8)
				add(timeline.GPUPCIeWidthMax, dev, timeline.Gauge, 16)
				add(timeline.GPUPCIeReplays, dev, timeline.Gauge, 2)
				add(timeline.GPUNVLinkTxMiB, dev, timeline.Counter, 1e6+1024*f)
				add(timeline.GPUNVLinkLinks, dev, timeline.Gauge, 1<<18-1)
				add(timeline.GPUNVLinkDown, dev, timeline.Gauge, down)
				add(timeline.GPUECCUncorrected, dev, timeline.Gauge, f)
				add(timeline.GPUXid, dev, timeline.Gauge, 0)
				add(timeline.GPUViolPowerSecs, dev, timeline.Counter, 100+0.25*f)
			}
			s.Probes = append(s.Probes, st)
		}
		add(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, 10+3*f)
		add(timeline.HostCPUWaitSecs, timeline.HostDevice, timeline.Counter, 1+0.2*f)
		add(timeline.HostCPUTotSecs, timeline.HostDevice, timeline.Counter, 40+4*f)
		add(timeline.HostLoad1, timeline.HostDevice, timeline.Gauge, 11.5)
		add(timeline.HostMemUsed, timeline.HostDevice, timeline.Gauge, 200<<30)
		add(timeline.HostMemTotal, timeline.HostDevice, timeline.Gauge, 1<<40)
		add(timeline.CoreBusySecs, "cpu0", timeline.Counter, 5+2*f) // pegged
		add(timeline.CoreTotalSecs, "cpu0", timeline.Counter, 20+2*f)
		add(timeline.CoreBusySecs, "cpu1", timeline.Counter, 5+0.2*f) // 10 %
		add(timeline.CoreTotalSecs, "cpu1", timeline.Counter, 20+2*f)
		add(timeline.ProcCPUSecs, timeline.JobDevice, timeline.Counter, 100+1.5*f)
		add(timeline.ProcRSS, timeline.JobDevice, timeline.Gauge, 8<<30)
		add(timeline.ProcCPUSecs, timeline.SelfDevice, timeline.Counter, 1+0.01*f)
		add(timeline.SampleLag, timeline.SelfDevice, timeline.Gauge, 0.000412)
		s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "host", Device: timeline.HostDevice, State: timeline.ProbeOK},
			timeline.ProbeStatus{Probe: "procs", State: timeline.ProbeOK})
		switch i {
		case 1:
			s.Markers = []timeline.Marker{{At: s.At.Add(-300 * time.Millisecond), Text: `epoch 1, "warmup" done`, Origin: "job"}}
		case 3:
			s.Markers = []timeline.Marker{{At: s.At.Add(-100 * time.Millisecond), Text: "ünïcode ✓, \"two\"", Origin: "key"}}
		}
		s.SetMetrics(ms)
		out = append(out, s)
	}
	return h, out
}

// exportFile writes the export recording to a file in dir.
func exportFile(t *testing.T, dir string) string {
	t.Helper()
	h, ss := exportRecording()
	path := filepath.Join(dir, "export.gtr")
	writeFile(t, path, h, ss)
	return path
}

// exportOf exports the recording at path.
func exportOf(t *testing.T, path string, format Format) []byte {
	t.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	if err := Write(r, &out, format); err != nil {
		t.Fatalf("export %s: %v", format, err)
	}
	return out.Bytes()
}

// csvTable is a parsed CSV export: rows as maps from column name to cell.
type csvTable struct {
	header []string
	rows   []map[string]string
}

func parseCSV(t *testing.T, data []byte) csvTable {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	tbl := csvTable{header: records[0]}
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, name := range tbl.header {
			row[name] = rec[i]
		}
		tbl.rows = append(tbl.rows, row)
	}
	return tbl
}

// of returns the rows of one device, in order.
func (c csvTable) of(device string) []map[string]string {
	var out []map[string]string
	for _, r := range c.rows {
		if r["device"] == device {
			out = append(out, r)
		}
	}
	return out
}

// cells returns one column of rows.
func cells(rows []map[string]string, name string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[name])
	}
	return out
}
