package export

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// rowKind is what a row of the export is about. Each column applies to
// some kinds; a CSV cell of a column that does not apply is empty, and a
// JSONL object leaves the column out.
type rowKind uint8

const (
	gpuRow    rowKind = 1 << iota // device gpu0, gpu1, ...
	hostRow                       // device host, with its cores folded in
	procRow                       // device job (the wrapped job) or self (gputop)
	markerRow                     // device marker
	everyRow  = gpuRow | hostRow | procRow | markerRow
	deviceRow = gpuRow | hostRow | procRow
)

// Column indexes, in the export's column order. The order is a contract
// (docs/export.md): columns may be added at the end, never moved.
const (
	colTime = iota
	colElapsed
	colDevice
	colGPU
	colStatus
	colError
	colUtil
	colUtilMin
	colUtilMax
	colMemUtil
	colSMActive
	colSMOccupancy
	colTensor
	colDRAMBW
	colMemUsed
	colMemTotal
	colPower
	colPowerLimit
	colTemp
	colClockSM
	colClockMem
	colThrottle
	colThrottleReasons
	colPCIeTx
	colPCIeRx
	colCPU
	colIOWait
	colCores
	colBusiestCore
	colPeggedCores
	colLoad1
	colSwapUsed
	colSwapTotal
	colDiskRead
	colDiskWrite
	colProcCPU
	colProcRSS
	colSampleLag
	colMarker
	colMarkerOrigin
	numColumns
)

// exportColumn is one column of the export: its name (with its unit), the rows
// it applies to, and whether its values are text rather than numbers.
type exportColumn struct {
	name  string
	kinds rowKind
	text  bool
}

// columnDefs are the export's columns. GPU and host rows share one header, a
// union of their columns, because a CSV file has one header and pandas
// reads it without options; a column shared by both (mem_used_bytes) means
// the same thing in the same unit on each. Host and job CPU do not share a
// column: the host's is a share of all cores, a process tree's of one core.
var columnDefs = [numColumns]exportColumn{
	colTime:            {"time", everyRow, true},
	colElapsed:         {"elapsed_s", everyRow, false},
	colDevice:          {"device", everyRow, true},
	colGPU:             {"gpu", gpuRow, false},
	colStatus:          {"status", deviceRow, true},
	colError:           {"error", deviceRow, true},
	colUtil:            {"util_pct", gpuRow, false},
	colUtilMin:         {"util_min_pct", gpuRow, false},
	colUtilMax:         {"util_max_pct", gpuRow, false},
	colMemUtil:         {"mem_util_pct", gpuRow, false},
	colSMActive:        {"sm_active_pct", gpuRow, false},
	colSMOccupancy:     {"sm_occupancy_pct", gpuRow, false},
	colTensor:          {"tensor_pct", gpuRow, false},
	colDRAMBW:          {"dram_bw_pct", gpuRow, false},
	colMemUsed:         {"mem_used_bytes", gpuRow | hostRow, false},
	colMemTotal:        {"mem_total_bytes", gpuRow | hostRow, false},
	colPower:           {"power_w", gpuRow, false},
	colPowerLimit:      {"power_limit_w", gpuRow, false},
	colTemp:            {"temp_c", gpuRow, false},
	colClockSM:         {"clock_sm_mhz", gpuRow, false},
	colClockMem:        {"clock_mem_mhz", gpuRow, false},
	colThrottle:        {"throttle", gpuRow, false},
	colThrottleReasons: {"throttle_reasons", gpuRow, true},
	colPCIeTx:          {"pcie_tx_bytes_per_s", gpuRow, false},
	colPCIeRx:          {"pcie_rx_bytes_per_s", gpuRow, false},
	colCPU:             {"cpu_pct", hostRow, false},
	colIOWait:          {"iowait_pct", hostRow, false},
	colCores:           {"cpu_cores", hostRow, false},
	colBusiestCore:     {"cpu_busiest_pct", hostRow, false},
	colPeggedCores:     {"cpu_cores_pegged", hostRow, false},
	colLoad1:           {"load1", hostRow, false},
	colSwapUsed:        {"swap_used_bytes", hostRow, false},
	colSwapTotal:       {"swap_total_bytes", hostRow, false},
	colDiskRead:        {"disk_read_bytes_per_s", hostRow, false},
	colDiskWrite:       {"disk_write_bytes_per_s", hostRow, false},
	colProcCPU:         {"proc_cpu_pct", procRow, false},
	colProcRSS:         {"proc_rss_bytes", procRow, false},
	colSampleLag:       {"sample_lag_s", procRow, false},
	colMarker:          {"marker", markerRow, true},
	colMarkerOrigin:    {"marker_origin", markerRow, true},
}

// metricColumns maps a display metric to its column. The per-core
// timeline.CoreBusy is not here: it is folded into the host row.
var metricColumns = map[string]int{
	timeline.GPUUtil:        colUtil,
	timeline.GPUUtilMin:     colUtilMin,
	timeline.GPUUtilMax:     colUtilMax,
	timeline.GPUMemUtil:     colMemUtil,
	timeline.GPUSMActive:    colSMActive,
	timeline.GPUSMOccupancy: colSMOccupancy,
	timeline.GPUTensor:      colTensor,
	timeline.GPUDRAMBW:      colDRAMBW,
	timeline.GPUMemUsed:     colMemUsed,
	timeline.GPUMemTotal:    colMemTotal,
	timeline.GPUPower:       colPower,
	timeline.GPUPowerLimit:  colPowerLimit,
	timeline.GPUTemp:        colTemp,
	timeline.GPUClockSM:     colClockSM,
	timeline.GPUClockMem:    colClockMem,
	timeline.GPUThrottle:    colThrottle,
	timeline.GPUPCIeTx:      colPCIeTx,
	timeline.GPUPCIeRx:      colPCIeRx,
	timeline.HostCPU:        colCPU,
	timeline.HostIOWait:     colIOWait,
	timeline.HostLoad1:      colLoad1,
	timeline.HostMemUsed:    colMemUsed,
	timeline.HostMemTotal:   colMemTotal,
	timeline.HostSwapUsed:   colSwapUsed,
	timeline.HostSwapTotal:  colSwapTotal,
	timeline.HostDiskRead:   colDiskRead,
	timeline.HostDiskWrite:  colDiskWrite,
	timeline.ProcCPU:        colProcCPU,
	timeline.ProcRSS:        colProcRSS,
	timeline.SampleLag:      colSampleLag,
}

// peggedCore is the busy share (%) from which cpu_cores_pegged counts a
// core: the hints' default for a pegged core, so the column confirms a
// host-single-thread hint. One column for the busiest core and one count
// say "one core pegged, the rest idle" without a column per core, which
// would be 128 mostly empty columns on a big host.
const peggedCore = 90

// exportRow is one row of the export. num holds the numeric columns
// (NaN when unknown); text columns have fields of their own.
type exportRow struct {
	kind    rowKind
	at      time.Time
	elapsed time.Duration
	device  string
	state   timeline.ProbeState
	stated  bool // a probe status was seen for the device this sample
	err     string
	marker  timeline.Marker
	num     [numColumns]float64
}

// exportTable turns each sample's display values into rows. It remembers
// lost devices: a GPU that fell off the bus has a last row saying so, and
// none after it.
type exportTable struct {
	start    time.Time // elapsed_s counts from here
	lost     map[string]bool
	buf      []exportRow
	out      []*exportRow
	byDevice map[string]int // index in buf of each device's row this sample
	cores    coreStats
}

func newExportTable(start time.Time) *exportTable {
	return &exportTable{start: start, lost: map[string]bool{}, byDevice: map[string]int{}}
}

// coreStats folds the host's per-core busy shares into three numbers.
type coreStats struct {
	known, pegged int
	busiest       float64
}

func (c *coreStats) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if c.known == 0 || v > c.busiest {
		c.busiest = v
	}
	c.known++
	if v >= peggedCore {
		c.pegged++
	}
}

// rows returns the rows of one sample: its markers, then its GPUs in index
// order, the host, the job and gputop itself. The rows are reused by the
// next call.
func (t *exportTable) rows(s *timeline.Sample, values []timeline.Value) []*exportRow {
	if t.start.IsZero() { // a header without a start: count from the first sample
		t.start = s.At
	}
	t.buf, t.out, t.cores = t.buf[:0], t.out[:0], coreStats{}
	clear(t.byDevice)
	for _, m := range s.Markers {
		t.newRow(markerRow, m.At, "marker").marker = m
	}
	markers := len(t.buf)
	for _, v := range values {
		if v.Key.Name == timeline.CoreBusy && strings.HasPrefix(v.Key.Device, "cpu") {
			t.device(timeline.HostDevice, s.At)
			t.cores.add(v.Value)
			continue
		}
		col, ok := metricColumns[v.Key.Name]
		if !ok {
			continue
		}
		if r := t.device(v.Key.Device, s.At); r != nil && columnDefs[col].kinds&r.kind != 0 {
			r.num[col] = v.Value
		}
	}
	for _, p := range s.Probes {
		// A device may have several probes; its row shows the worst.
		if r := t.device(p.Device, s.At); r != nil && (!r.stated || p.State > r.state) {
			r.state, r.stated, r.err = p.State, true, p.Err
		}
	}
	if i, ok := t.byDevice[timeline.HostDevice]; ok && t.cores.known > 0 {
		r := &t.buf[i]
		r.num[colCores] = float64(t.cores.known)
		r.num[colBusiestCore] = t.cores.busiest
		r.num[colPeggedCores] = float64(t.cores.pegged)
	}
	for i := range t.buf {
		r := &t.buf[i]
		if r.stated && r.state == timeline.ProbeLost {
			t.lost[r.device] = true
		}
		t.out = append(t.out, r)
	}
	slices.SortStableFunc(t.out[markers:], compareDevices)
	return t.out
}

// device returns the row of a device in this sample, made on first use;
// nil for a device that has no row of its own (a core, a probe without a
// device, an unknown name, a GPU already lost). The pointer is good until
// the next row is made.
func (t *exportTable) device(dev string, at time.Time) *exportRow {
	if i, ok := t.byDevice[dev]; ok {
		return &t.buf[i]
	}
	kind, gpu := deviceKind(dev)
	if kind == 0 || t.lost[dev] {
		return nil
	}
	t.byDevice[dev] = len(t.buf)
	r := t.newRow(kind, at, dev)
	if kind == gpuRow {
		r.num[colGPU] = float64(gpu)
	}
	return r
}

// newRow appends a row with every value unknown.
func (t *exportTable) newRow(kind rowKind, at time.Time, dev string) *exportRow {
	t.buf = append(t.buf, exportRow{kind: kind, at: at, elapsed: at.Sub(t.start), device: dev})
	r := &t.buf[len(t.buf)-1]
	for i := range r.num {
		r.num[i] = math.NaN()
	}
	return r
}

// deviceKind says what kind of row a device has, and a GPU's index.
func deviceKind(dev string) (rowKind, int) {
	switch dev {
	case timeline.HostDevice:
		return hostRow, -1
	case timeline.JobDevice, timeline.SelfDevice:
		return procRow, -1
	}
	if n, ok := strings.CutPrefix(dev, "gpu"); ok {
		// Only the canonical spelling GPUDevice writes: gpu3, not gpu03.
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && timeline.GPUDevice(i) == dev {
			return gpuRow, i
		}
	}
	return 0, -1
}

// compareDevices orders a sample's device rows: GPUs by index (gpu10 after
// gpu9), then the host, then the job, then gputop itself.
func compareDevices(a, b *exportRow) int {
	rank := func(r *exportRow) int {
		switch {
		case r.kind == gpuRow:
			return 0
		case r.kind == hostRow:
			return 1
		case r.device == timeline.JobDevice:
			return 2
		}
		return 3
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	return cmp.Compare(a.num[colGPU], b.num[colGPU])
}
