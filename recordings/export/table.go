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
	gpuRow      rowKind = 1 << iota // device gpu0, gpu1, ...
	hostRow                         // device host, with its cores folded in
	procRow                         // device job (the wrapped job) or self (gputop)
	markerRow                       // device marker
	progressRow                     // device progress: the job's own progress
	everyRow    = gpuRow | hostRow | procRow | markerRow | progressRow
	deviceRow   = gpuRow | hostRow | procRow
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
	// Added with the machine, MIG and health columns (after every column
	// of the first version, which keep their places).
	colHostname
	colHostGPU
	colMIGParent
	colMIGProfile
	colMemFree
	colPCIeGen
	colPCIeGenMax
	colPCIeWidth
	colPCIeWidthMax
	colPCIeReplays
	colNVLinkTx
	colNVLinkRx
	colNVLinkLinks
	colNVLinkDown
	colNVLinkErrors
	colECCCorrected
	colECCUncorrected
	colECCCorrectedLife
	colECCUncorrectedLife
	colRetiredPages
	colRemappedRows
	colXid
	colHeldPower
	colHeldThermal
	colHeldSyncBoost
	colHeldBoardLimit
	colHeldLowUtil
	colHeldReliability
	// Added with the job's progress.
	colProgressDone
	colProgressRate
	colProgressUnit
	// Added with GPU owners: written only where the recording names one
	// (ownerColumns), so an export without owners is as before.
	colOwnerPod
	colOwnerNamespace
	colOwnerContainer
	colOwnerJob
	colOwnerUser
	colOwnerPartition
	numColumns
)

// ownerColumns are the columns of who holds a GPU, the last ones.
const ownerColumns = numColumns - colOwnerPod

// exportColumn is one column of the export: its name (with its unit), the rows
// it applies to, whether its values are text rather than numbers, and the
// display metric they are, if one is.
type exportColumn struct {
	name   string
	kinds  rowKind
	text   bool
	metric string
}

// columnDefs are the export's columns. GPU and host rows share one header, a
// union of their columns, because a CSV file has one header and pandas
// reads it without options; a column shared by both (mem_used_bytes) means
// the same thing in the same unit on each. Host and job CPU do not share a
// column: the host's is a share of all cores, a process tree's of one core.
var columnDefs = [numColumns]exportColumn{
	colTime:            {"time", everyRow, true, ""},
	colElapsed:         {"elapsed_s", everyRow, false, ""},
	colDevice:          {"device", everyRow, true, ""},
	colGPU:             {"gpu", gpuRow, false, ""},
	colStatus:          {"status", deviceRow, true, ""},
	colError:           {"error", deviceRow, true, ""},
	colUtil:            {"util_pct", gpuRow, false, timeline.GPUUtil},
	colUtilMin:         {"util_min_pct", gpuRow, false, timeline.GPUUtilMin},
	colUtilMax:         {"util_max_pct", gpuRow, false, timeline.GPUUtilMax},
	colMemUtil:         {"mem_util_pct", gpuRow, false, timeline.GPUMemUtil},
	colSMActive:        {"sm_active_pct", gpuRow, false, timeline.GPUSMActive},
	colSMOccupancy:     {"sm_occupancy_pct", gpuRow, false, timeline.GPUSMOccupancy},
	colTensor:          {"tensor_pct", gpuRow, false, timeline.GPUTensor},
	colDRAMBW:          {"dram_bw_pct", gpuRow, false, timeline.GPUDRAMBW},
	colMemUsed:         {"mem_used_bytes", gpuRow | hostRow, false, timeline.GPUMemUsed},
	colMemTotal:        {"mem_total_bytes", gpuRow | hostRow, false, timeline.GPUMemTotal},
	colPower:           {"power_w", gpuRow, false, timeline.GPUPower},
	colPowerLimit:      {"power_limit_w", gpuRow, false, timeline.GPUPowerLimit},
	colTemp:            {"temp_c", gpuRow, false, timeline.GPUTemp},
	colClockSM:         {"clock_sm_mhz", gpuRow, false, timeline.GPUClockSM},
	colClockMem:        {"clock_mem_mhz", gpuRow, false, timeline.GPUClockMem},
	colThrottle:        {"throttle", gpuRow, false, timeline.GPUThrottle},
	colThrottleReasons: {"throttle_reasons", gpuRow, true, ""},
	colPCIeTx:          {"pcie_tx_bytes_per_s", gpuRow, false, timeline.GPUPCIeTx},
	colPCIeRx:          {"pcie_rx_bytes_per_s", gpuRow, false, timeline.GPUPCIeRx},
	colCPU:             {"cpu_pct", hostRow, false, timeline.HostCPU},
	colIOWait:          {"iowait_pct", hostRow, false, timeline.HostIOWait},
	colCores:           {"cpu_cores", hostRow, false, ""},
	colBusiestCore:     {"cpu_busiest_pct", hostRow, false, ""},
	colPeggedCores:     {"cpu_cores_pegged", hostRow, false, ""},
	colLoad1:           {"load1", hostRow, false, timeline.HostLoad1},
	colSwapUsed:        {"swap_used_bytes", hostRow, false, timeline.HostSwapUsed},
	colSwapTotal:       {"swap_total_bytes", hostRow, false, timeline.HostSwapTotal},
	colDiskRead:        {"disk_read_bytes_per_s", hostRow, false, timeline.HostDiskRead},
	colDiskWrite:       {"disk_write_bytes_per_s", hostRow, false, timeline.HostDiskWrite},
	colProcCPU:         {"proc_cpu_pct", procRow, false, timeline.ProcCPU},
	colProcRSS:         {"proc_rss_bytes", procRow, false, timeline.ProcRSS},
	colSampleLag:       {"sample_lag_s", procRow, false, timeline.SampleLag},
	colMarker:          {"marker", markerRow, true, ""},
	colMarkerOrigin:    {"marker_origin", markerRow, true, ""},

	colHostname:           {"hostname", deviceRow, true, ""},
	colHostGPU:            {"host_gpu", gpuRow, false, ""},
	colMIGParent:          {"mig_parent", gpuRow, false, ""},
	colMIGProfile:         {"mig_profile", gpuRow, true, ""},
	colMemFree:            {"mem_free_bytes", gpuRow, false, timeline.GPUMemFree},
	colPCIeGen:            {"pcie_gen", gpuRow, false, timeline.GPUPCIeGen},
	colPCIeGenMax:         {"pcie_gen_max", gpuRow, false, timeline.GPUPCIeGenMax},
	colPCIeWidth:          {"pcie_width", gpuRow, false, timeline.GPUPCIeWidth},
	colPCIeWidthMax:       {"pcie_width_max", gpuRow, false, timeline.GPUPCIeWidthMax},
	colPCIeReplays:        {"pcie_replays", gpuRow, false, timeline.GPUPCIeReplays},
	colNVLinkTx:           {"nvlink_tx_bytes_per_s", gpuRow, false, timeline.GPUNVLinkTx},
	colNVLinkRx:           {"nvlink_rx_bytes_per_s", gpuRow, false, timeline.GPUNVLinkRx},
	colNVLinkLinks:        {"nvlink_links", gpuRow, false, timeline.GPUNVLinkLinks}, // a bitmask, written as a count
	colNVLinkDown:         {"nvlink_down", gpuRow, true, timeline.GPUNVLinkDown},    // a bitmask, written as link ids
	colNVLinkErrors:       {"nvlink_errors", gpuRow, false, timeline.GPUNVLinkErrors},
	colECCCorrected:       {"ecc_corrected", gpuRow, false, timeline.GPUECCCorrected},
	colECCUncorrected:     {"ecc_uncorrected", gpuRow, false, timeline.GPUECCUncorrected},
	colECCCorrectedLife:   {"ecc_corrected_life", gpuRow, false, timeline.GPUECCCorrectedAgg},
	colECCUncorrectedLife: {"ecc_uncorrected_life", gpuRow, false, timeline.GPUECCUncorrectedAgg},
	colRetiredPages:       {"retired_pages", gpuRow, false, timeline.GPURetiredPages},
	colRemappedRows:       {"remapped_rows", gpuRow, false, timeline.GPURemappedRows},
	colXid:                {"xid", gpuRow, false, timeline.GPUXid},
	colHeldPower:          {"clocks_held_power_pct", gpuRow, false, timeline.GPUViolPower},
	colHeldThermal:        {"clocks_held_thermal_pct", gpuRow, false, timeline.GPUViolThermal},
	colHeldSyncBoost:      {"clocks_held_sync_boost_pct", gpuRow, false, timeline.GPUViolSyncBoost},
	colHeldBoardLimit:     {"clocks_held_board_limit_pct", gpuRow, false, timeline.GPUViolBoardLimit},
	colHeldLowUtil:        {"clocks_held_low_util_pct", gpuRow, false, timeline.GPUViolLowUtil},
	colHeldReliability:    {"clocks_held_reliability_pct", gpuRow, false, timeline.GPUViolReliability},
	colProgressDone:       {"progress_done", progressRow, false, ""},
	colProgressRate:       {"progress_rate_per_s", progressRow, false, ""},
	colProgressUnit:       {"progress_unit", progressRow, true, ""},
	colOwnerPod:           {"owner_pod", gpuRow, true, ""},
	colOwnerNamespace:     {"owner_namespace", gpuRow, true, ""},
	colOwnerContainer:     {"owner_container", gpuRow, true, ""},
	colOwnerJob:           {"owner_job", gpuRow, true, ""},
	colOwnerUser:          {"owner_user", gpuRow, true, ""},
	colOwnerPartition:     {"owner_partition", gpuRow, true, ""},
}

// metricColumns maps a display metric to its column: each column's
// metric, and the host's memory, which shares the GPUs' columns. The
// per-core timeline.CoreBusy is not here: it is folded into the host row.
var metricColumns = func() map[string]int {
	m := map[string]int{timeline.HostMemUsed: colMemUsed, timeline.HostMemTotal: colMemTotal}
	for col, c := range columnDefs {
		if c.metric != "" {
			m[c.metric] = col
		}
	}
	return m
}()

// peggedCore is the busy share (%) from which cpu_cores_pegged counts a
// core: the hints' default for a pegged core, so the column confirms a
// host-single-thread hint. One column for the busiest core and one count
// say "one core pegged, the rest idle" without a column per core, which
// would be 128 mostly empty columns on a big host.
const peggedCore = 90

// exportRow is one row of the export. num holds the numeric columns
// (NaN when unknown); text columns have fields of their own.
type exportRow struct {
	kind     rowKind
	at       time.Time
	elapsed  time.Duration
	device   string // as the sample names it: "gpu3", "host", "host@node2"
	hostRank int    // the row's host's place in the session, for the order
	hostname string
	profile  string // a MIG slice's profile
	state    timeline.ProbeState
	stated   bool // a probe status was seen for the device this sample
	err      string
	marker   timeline.Marker
	unit     string           // a progress row's unit
	cores    coreStats        // a host row's cores
	owners   []timeline.Owner // a GPU row's, as last read; nil for none
	num      [numColumns]float64
}

// deviceName is the row's device column: the device without its host,
// which the hostname column says ("host@node2" is host on node2).
func (r *exportRow) deviceName() string {
	name, _ := timeline.SplitDeviceHost(r.device)
	return name
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
	machines machines
	// owners are who holds each GPU, as the last sample that read them
	// said; nil before any.
	owners map[int][]timeline.Owner
}

func newExportTable(start time.Time) *exportTable {
	return &exportTable{start: start, lost: map[string]bool{}, byDevice: map[string]int{}}
}

// machines is what the source's description says of where each device
// is: a GPU's host and its number there, a MIG slice's parent and
// profile, and the order of the hosts. It is rebuilt only when the
// description changes (a host that answers late grows it).
type machines struct {
	gpus     []timeline.GPUInfo // the description's, compared by identity
	byIndex  map[int]timeline.GPUInfo
	hosts    []timeline.HostInfo
	rank     map[string]int // host name to its place in the session
	thisHost string         // the host of a session of one, whose devices name ""
}

func (m *machines) describe(info timeline.SourceInfo) {
	if m.byIndex != nil && sameSlice(info.GPUs, m.gpus) && sameSlice(info.Hosts, m.hosts) && m.thisHost == info.Host {
		return
	}
	m.gpus, m.hosts, m.thisHost = info.GPUs, info.Hosts, info.Host
	m.byIndex = make(map[int]timeline.GPUInfo, len(info.GPUs))
	for _, g := range info.GPUs {
		m.byIndex[g.Index] = g
	}
	m.rank = make(map[string]int, len(info.Hosts))
	for i, h := range info.Hosts {
		m.rank[h.Name] = i
	}
}

// sameSlice says whether a and b are the same slice, not only equal: the
// Reader hands out the same description until a new one is read.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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

// rows returns the rows of one sample, described by info, with its
// display values nums of keys: its markers, then its GPUs in index order,
// the hosts, the jobs and gputop itself (one of each a host, in the
// session's order of hosts). The rows are reused by the next call.
func (t *exportTable) rows(s *timeline.Sample, keys []timeline.Key, nums []float64, info timeline.SourceInfo) []*exportRow {
	if t.start.IsZero() { // a header without a start: count from the first sample
		t.start = s.At
	}
	t.machines.describe(info)
	if s.Owners != nil {
		t.owners = map[int][]timeline.Owner{}
		for _, o := range s.Owners {
			t.owners[o.GPU] = append(t.owners[o.GPU], o)
		}
	}
	t.buf, t.out = t.buf[:0], t.out[:0]
	clear(t.byDevice)
	for _, m := range s.Markers {
		t.newRow(markerRow, m.At, "marker").marker = m
	}
	for _, p := range s.Progress {
		r := t.newRow(progressRow, p.At, "progress")
		r.unit, r.num[colProgressDone], r.num[colProgressRate] = p.Unit, p.Done, p.Rate
	}
	markers := len(t.buf)
	for i, k := range keys {
		v := nums[i]
		if k.Name == timeline.CoreBusy && strings.HasPrefix(k.Device, "cpu") {
			_, host := timeline.SplitDeviceHost(k.Device)
			if r := t.device(timeline.DeviceOnHost(timeline.HostDevice, host), s.At); r != nil {
				r.cores.add(v)
			}
			continue
		}
		col, ok := metricColumns[k.Name]
		if !ok {
			continue
		}
		if r := t.device(k.Device, s.At); r != nil && columnDefs[col].kinds&r.kind != 0 {
			if col == colNVLinkLinks {
				v = linkCount(v)
			}
			r.num[col] = v
		}
	}
	for _, p := range s.Probes {
		dev := p.Device
		if p.Probe == timeline.RemoteProbe {
			// A host's connection: its host row says whether it answers,
			// and has a row even while it does not, to say why.
			dev = timeline.DeviceOnHost(timeline.HostDevice, p.Device)
		}
		// A device may have several probes; its row shows the worst.
		if r := t.device(dev, s.At); r != nil && (!r.stated || p.State > r.state) {
			r.state, r.stated, r.err = p.State, true, p.Err
		}
	}
	for i := range t.buf {
		r := &t.buf[i]
		if r.cores.known > 0 {
			r.num[colCores] = float64(r.cores.known)
			r.num[colBusiestCore] = r.cores.busiest
			r.num[colPeggedCores] = float64(r.cores.pegged)
		}
		if r.stated && r.state == timeline.ProbeLost {
			t.lost[r.device] = true
		}
		t.out = append(t.out, r)
	}
	slices.SortStableFunc(t.out[markers:], compareDevices)
	return t.out
}

// linkCount is how many links a bitmask of link ids names; NaN if unknown.
func linkCount(mask float64) float64 {
	ids := timeline.LinkIDs(mask)
	if ids == nil {
		return math.NaN()
	}
	return float64(len(ids))
}

// device returns the row of a device in this sample, made on first use;
// nil for a device that has no row of its own (a core, a probe without a
// device, an unknown name, a GPU already lost). The pointer is good until
// the next row is made.
func (t *exportTable) device(dev string, at time.Time) *exportRow {
	if i, ok := t.byDevice[dev]; ok {
		return &t.buf[i]
	}
	kind, gpu, host := deviceKind(dev)
	if kind == 0 || t.lost[dev] {
		return nil
	}
	t.byDevice[dev] = len(t.buf)
	r := t.newRow(kind, at, dev)
	if kind != gpuRow {
		r.hostname, r.hostRank = cmp.Or(host, t.machines.thisHost), t.machines.rank[host]
		return r
	}
	r.num[colGPU] = float64(gpu)
	r.owners = t.owners[gpu]
	g, described := t.machines.byIndex[gpu]
	if !described { // a GPU the description does not list: its number is all there is
		if len(t.machines.hosts) == 0 {
			r.hostname, r.num[colHostGPU] = t.machines.thisHost, float64(gpu)
		}
		return r
	}
	r.hostname, r.hostRank = cmp.Or(g.Host, t.machines.thisHost), t.machines.rank[g.Host]
	r.num[colHostGPU] = float64(g.OnHost())
	if g.IsMIGInstance() {
		r.profile = g.MIGProfile
		r.num[colMIGParent] = float64(g.MIGParent)
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

// deviceKind says what kind of row a device has, a GPU's index, and the
// host a device of a session of several names ("host@node2": node2).
func deviceKind(dev string) (kind rowKind, gpu int, host string) {
	if n, ok := strings.CutPrefix(dev, "gpu"); ok {
		// Only the canonical spelling GPUDevice writes: gpu3, not gpu03.
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && timeline.GPUDevice(i) == dev {
			return gpuRow, i, ""
		}
		return 0, -1, ""
	}
	name, host := timeline.SplitDeviceHost(dev)
	switch name {
	case timeline.HostDevice:
		return hostRow, -1, host
	case timeline.JobDevice, timeline.SelfDevice:
		return procRow, -1, host
	}
	return 0, -1, ""
}

// compareDevices orders a sample's device rows: GPUs by index (gpu10 after
// gpu9), then the hosts, then the jobs, then gputop itself, each in the
// session's order of hosts.
func compareDevices(a, b *exportRow) int {
	rank := func(r *exportRow) int {
		switch {
		case r.kind == gpuRow:
			return 0
		case r.kind == hostRow:
			return 1
		case r.deviceName() == timeline.JobDevice:
			return 2
		}
		return 3
	}
	c := cmp.Compare(rank(a), rank(b))
	if c == 0 && a.kind != gpuRow {
		c = cmp.Compare(a.hostRank, b.hostRank)
	}
	return cmp.Or(c, cmp.Compare(a.num[colGPU], b.num[colGPU]))
}
