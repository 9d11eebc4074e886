package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Number is a float that is null in JSON when unknown (NaN), because an
// unknown must never read as zero.
type Number float64

// MarshalJSON writes null for NaN and infinities. Whole numbers (bytes,
// MHz) are exact; others keep nine significant digits, so a rate computed
// from two counters reads 400000000, not 399999999.99999994.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	if f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 9, 64), 64)
	}
	return strconv.AppendFloat(nil, f, 'f', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Number(f)
	return err
}

// SnapshotVersion is the version of the snapshot JSON (docs/snapshot.md).
const SnapshotVersion = 1

// Snapshot is one reading of every GPU and the host: what `gputop snapshot`
// prints. Its JSON field names are a contract, documented in docs/snapshot.md.
type Snapshot struct {
	Version int            `json:"version"`
	Time    time.Time      `json:"time"`
	Source  SnapshotSource `json:"source"`
	// Hosts are the hosts of a session of several, each with its GPUs
	// together; absent in a session of one.
	Hosts     []SnapshotHostSummary `json:"hosts,omitempty"`
	GPUs      []SnapshotGPU         `json:"gpus"`
	Host      SnapshotHost          `json:"host"`
	Processes []SnapshotProcess     `json:"processes"`
	Notes     []string              `json:"notes"`
}

// SnapshotSource says where the reading came from.
type SnapshotSource struct {
	Kind     string `json:"kind"` // live, demo
	Scenario string `json:"scenario,omitempty"`
	Host     string `json:"host"`
	Driver   string `json:"driver"`
	CUDA     string `json:"cuda"`
}

// SnapshotGPU is one GPU's reading. Percentages are 0-100.
type SnapshotGPU struct {
	Index int `json:"index"`
	// Host and HostIndex: the GPU's host and its number there, in a
	// session of several hosts; absent in a session of one.
	Host      string `json:"host,omitempty"`
	HostIndex *int   `json:"host_index,omitempty"`
	// MIGProfile and MIGParent, on a MIG instance: its profile and the
	// index of the physical GPU it is a slice of.
	MIGProfile     string   `json:"mig_profile,omitempty"`
	MIGParent      *int     `json:"mig_parent,omitempty"`
	Name           string   `json:"name"`
	UUID           string   `json:"uuid"`
	Lost           bool     `json:"lost"`
	Util           Number   `json:"util"`
	UtilMin        Number   `json:"util_min"`
	UtilMax        Number   `json:"util_max"`
	MemUtil        Number   `json:"mem_util"`
	SMActive       Number   `json:"sm_active"`
	SMOccupancy    Number   `json:"sm_occupancy"`
	Tensor         Number   `json:"tensor"`
	DRAMBandwidth  Number   `json:"dram_bw"`
	MemUsedBytes   Number   `json:"mem_used_bytes"`
	MemTotalBytes  Number   `json:"mem_total_bytes"`
	PowerW         Number   `json:"power_w"`
	PowerLimitW    Number   `json:"power_limit_w"`
	TempC          Number   `json:"temp_c"`
	ClockSMMHz     Number   `json:"clock_sm_mhz"`
	ClockMemMHz    Number   `json:"clock_mem_mhz"`
	Throttle       []string `json:"throttle"`
	PCIeRxBytesSec Number   `json:"pcie_rx_bytes_per_s"`
	PCIeTxBytesSec Number   `json:"pcie_tx_bytes_per_s"`
	// Health is the link, errors and clocks held back; absent where the
	// GPU reports none of it.
	Health *GPUHealth `json:"health,omitempty"`
}

// SnapshotHost is the host's reading.
type SnapshotHost struct {
	CPU              Number   `json:"cpu"`
	IOWait           Number   `json:"iowait"`
	Load1            Number   `json:"load1"`
	Cores            []Number `json:"cores"`
	MemUsedBytes     Number   `json:"mem_used_bytes"`
	MemTotalBytes    Number   `json:"mem_total_bytes"`
	SwapUsedBytes    Number   `json:"swap_used_bytes"`
	SwapTotalBytes   Number   `json:"swap_total_bytes"`
	DiskReadBytesSec Number   `json:"disk_read_bytes_per_s"`
	DiskWriteByteSec Number   `json:"disk_write_bytes_per_s"`
}

// SnapshotProcess is one process holding a GPU.
type SnapshotProcess struct {
	// GPU is the index of its GPU, that of the MIG instance it runs in on
	// a MIG-enabled GPU, whose profile and parent MIGProfile and MIGParent
	// repeat.
	GPU        int    `json:"gpu"`
	MIGProfile string `json:"mig_profile,omitempty"`
	MIGParent  *int   `json:"mig_parent,omitempty"`
	PID        int    `json:"pid"`
	User       string `json:"user"`
	Command    string `json:"command"`
	GPUMem     Number `json:"gpu_mem_bytes"`
	// Util is NVML's per-process utilisation (timeline.Process.Util).
	Util Number `json:"util"`
	// SM is Util under the name earlier versions gave it, kept for the
	// scripts that read it; it was never SM activity.
	SM       Number `json:"sm"`
	CPU      Number `json:"cpu"`
	RSSBytes Number `json:"rss_bytes"`
	// Started is when the process started, in UTC; null if unknown.
	Started *time.Time `json:"started"`
	// Workload is its container, pod, Slurm job or session; null when its
	// cgroup named none.
	Workload *ReportWorkload `json:"workload"`
}

// NewSnapshot is the reading of cur, with rates (power from the energy
// counter, CPU shares) taken against prev. It reads the samples, not a
// Store, so every number is exactly what the probes said.
func NewSnapshot(cur, prev *timeline.Sample, info timeline.SourceInfo) Snapshot {
	values := map[timeline.Key]float64{}
	for _, v := range timeline.Derive(cur, prev) {
		values[v.Key] = v.Value
	}
	get := func(name, dev string) Number {
		if v, ok := values[timeline.Key{Name: name, Device: dev}]; ok {
			return Number(v)
		}
		return Number(math.NaN())
	}
	s := Snapshot{
		Version: SnapshotVersion,
		Time:    cur.At,
		Source: SnapshotSource{Kind: info.Kind.String(), Host: info.Host, Driver: info.Driver, CUDA: info.CUDA,
			Scenario: info.Scenario},
		Notes: append([]string{}, info.Notes...),
		// Empty lists, not null, as docs/snapshot.md promises: a script
		// iterates them without a check.
		GPUs:      []SnapshotGPU{},
		Processes: []SnapshotProcess{},
	}
	lost := map[string]bool{}
	for _, p := range cur.Probes {
		if p.State == timeline.ProbeLost {
			lost[p.Device] = true
		}
	}
	for _, g := range info.GPUs {
		dev := timeline.GPUDevice(g.Index)
		v := func(name string) Number { return get(name, dev) }
		var at *int
		if g.Host != "" {
			i := g.HostIndex
			at = &i
		}
		var parent *int
		if g.IsMIGInstance() {
			p := g.MIGParent
			parent = &p
		}
		s.GPUs = append(s.GPUs, SnapshotGPU{
			Index: g.Index, Host: g.Host, HostIndex: at, MIGProfile: g.MIGProfile, MIGParent: parent,
			Name: g.Name, UUID: g.UUID, Lost: lost[dev],
			Util: v(timeline.GPUUtil), UtilMin: v(timeline.GPUUtilMin), UtilMax: v(timeline.GPUUtilMax), MemUtil: v(timeline.GPUMemUtil),
			SMActive: v(timeline.GPUSMActive), SMOccupancy: v(timeline.GPUSMOccupancy), Tensor: v(timeline.GPUTensor), DRAMBandwidth: v(timeline.GPUDRAMBW),
			MemUsedBytes: v(timeline.GPUMemUsed), MemTotalBytes: v(timeline.GPUMemTotal), PowerW: v(timeline.GPUPower), PowerLimitW: v(timeline.GPUPowerLimit),
			TempC: v(timeline.GPUTemp), ClockSMMHz: v(timeline.GPUClockSM), ClockMemMHz: v(timeline.GPUClockMem),
			Throttle:       timeline.ThrottleList(float64(v(timeline.GPUThrottle))),
			PCIeRxBytesSec: v(timeline.GPUPCIeRx), PCIeTxBytesSec: v(timeline.GPUPCIeTx),
			Health: snapshotHealth(v),
		})
	}
	h := func(name string) Number { return get(name, timeline.HostDevice) }
	s.Host = SnapshotHost{CPU: h(timeline.HostCPU), IOWait: h(timeline.HostIOWait), Load1: h(timeline.HostLoad1),
		MemUsedBytes: h(timeline.HostMemUsed), MemTotalBytes: h(timeline.HostMemTotal), SwapUsedBytes: h(timeline.HostSwapUsed),
		SwapTotalBytes: h(timeline.HostSwapTotal), DiskReadBytesSec: h(timeline.HostDiskRead), DiskWriteByteSec: h(timeline.HostDiskWrite),
		Cores: []Number{}}
	for i := 0; ; i++ {
		v, ok := values[timeline.Key{Name: timeline.CoreBusy, Device: timeline.CoreDevice(i)}]
		if !ok {
			break
		}
		s.Host.Cores = append(s.Host.Cores, Number(v))
	}
	s.Hosts = snapshotHosts(cur, info, s.GPUs, get)
	procs := cur.Processes
	if procs == nil && prev != nil {
		procs = prev.Processes
	}
	for _, p := range procs {
		sp := SnapshotProcess{GPU: p.GPU, PID: p.PID, User: p.User, Command: p.Command,
			GPUMem: Number(p.GPUMem), Util: Number(p.Util), SM: Number(p.Util), CPU: Number(p.CPU), RSSBytes: Number(p.RSS),
			Workload: reportWorkload(p.Workload)}
		sp.MIGProfile, sp.MIGParent = migOf(info, p.GPU)
		if !p.Started.IsZero() {
			started := p.Started.UTC()
			sp.Started = &started
		}
		s.Processes = append(s.Processes, sp)
	}
	return s
}

// migOf is GPU idx's MIG profile and parent where it is a MIG instance.
func migOf(info timeline.SourceInfo, idx int) (string, *int) {
	for _, g := range info.GPUs {
		if g.Index == idx && g.IsMIGInstance() {
			parent := g.MIGParent
			return g.MIGProfile, &parent
		}
	}
	return "", nil
}

// WriteText prints the snapshot for a person: a table of GPUs, the host,
// the processes.
func (s Snapshot) WriteText(w io.Writer) error {
	var b bytes.Buffer
	src := s.Source.Kind
	if s.Source.Kind == timeline.Demo.String() {
		src = "DEMO " + s.Source.Scenario
	}
	fmt.Fprintf(&b, "gputop snapshot  %s  %s  %s", s.Source.Host, s.Time.Format("2006-01-02 15:04:05"), strings.ToUpper(src))
	if s.Source.Driver != "" {
		fmt.Fprintf(&b, "  driver %s  CUDA %s", s.Source.Driver, s.Source.CUDA)
	}
	b.WriteString("\n")
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	names, number := s.gpuNames()
	if len(s.GPUs) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		hostCol := ""
		if len(s.Hosts) > 0 {
			hostCol = "HOST\t"
		}
		fmt.Fprintln(tw, hostCol+"GPU\tNAME\tUTIL\tSM\tMEMORY\tPOWER\tTEMP\tSM CLOCK\tTHROTTLE\t")
		for _, g := range s.GPUs {
			name := strings.TrimPrefix(g.Name, "NVIDIA ")
			index := names.Column(g.Index, number)
			if len(s.Hosts) > 0 {
				fmt.Fprintf(tw, "%s\t", g.Host)
			}
			if g.Lost {
				fmt.Fprintf(tw, "%s\t%s\tlost: fell off the bus\t\t\t\t\t\t\t\n", index, name)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", index, name,
				repPct(g.Util), repPct(g.SMActive), repBytesOf(g.MemUsedBytes, g.MemTotalBytes),
				repWattsOf(g.PowerW, g.PowerLimitW), units.Celsius(float64(g.TempC), false),
				units.MHz(float64(g.ClockSMMHz)), textThrottle(g.Throttle))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Hosts) > 0 {
		writeSnapshotHosts(&b, s.Hosts)
	} else {
		writeSnapshotHost(&b, s.Host)
	}
	if len(s.Processes) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "GPU\tPID\tUSER\tGPU MEM\tUTIL\tCPU\tWHERE\tCOMMAND")
		for _, p := range s.Processes {
			where := "-"
			if p.Workload != nil {
				where = p.Workload.workload().Short()
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", names.Column(p.GPU, number), p.PID, p.User, repBytes(p.GPUMem), repPct(p.Util), repPct(p.CPU), where, p.Command)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// gpuNames names the snapshot's MIG instances, and number is a GPU's
// number in its tables: on its host in a session of several, else its
// index.
func (s Snapshot) gpuNames() (units.GPUNames, func(int) int) {
	mig := map[int]units.MIGSlice{}
	onHost := map[int]int{}
	for _, g := range s.GPUs {
		if g.MIGProfile != "" && g.MIGParent != nil {
			mig[g.Index] = units.MIGSlice{Parent: *g.MIGParent, Profile: g.MIGProfile}
		}
		if len(s.Hosts) > 0 && g.HostIndex != nil {
			onHost[g.Index] = *g.HostIndex
		}
	}
	number := func(i int) int {
		if at, ok := onHost[i]; ok {
			return at
		}
		return i
	}
	return units.GPUNames{}.WithMIG(mig), number
}

func textThrottle(t []string) string {
	if t == nil {
		return "N/A"
	}
	if len(t) == 0 {
		return "none"
	}
	return strings.Join(t, ", ")
}

// writeSnapshotHost is the one host's line.
func writeSnapshotHost(b *bytes.Buffer, h SnapshotHost) {
	busiest := math.NaN()
	for _, c := range h.Cores {
		if !math.IsNaN(float64(c)) && (math.IsNaN(busiest) || float64(c) > busiest) {
			busiest = float64(c)
		}
	}
	fmt.Fprintf(b, "host  CPU %s (%s, busiest %s)  iowait %s  load %s  RAM %s  swap %s\n",
		repPct(h.CPU), units.Count(len(h.Cores), "core"), repPct(Number(busiest)), repPct(h.IOWait),
		units.Number(float64(h.Load1)), repBytesOf(h.MemUsedBytes, h.MemTotalBytes), repBytes(h.SwapUsedBytes))
}

// SnapshotHostSummary is one host of a session of several in one reading:
// whether it answered, and its GPUs together.
type SnapshotHostSummary struct {
	Name string `json:"name"`
	// State is the host's connection: ok, failed (not answering; Err says
	// why) or lost; "" where the reading does not say.
	State string `json:"state"`
	Err   string `json:"error,omitempty"`
	// GPUs are the session-wide indexes of its GPUs.
	GPUs []int `json:"gpus"`
	// UtilMean is the mean utilisation of its GPUs with a reading,
	// UtilLowest the lowest, that of LowestGPU (session-wide; null with
	// none).
	UtilMean   Number `json:"util_mean"`
	UtilLowest Number `json:"util_lowest"`
	LowestGPU  *int   `json:"lowest_gpu"`
	// PowerW, MemUsedBytes and MemTotalBytes are its GPUs' together.
	PowerW        Number `json:"power_w"`
	MemUsedBytes  Number `json:"mem_used_bytes"`
	MemTotalBytes Number `json:"mem_total_bytes"`
	// CPU is the host's CPU (% of all cores), where it is sampled.
	CPU Number `json:"cpu"`
}

// snapshotHosts sums each host's GPUs of a session of several; nil in a
// session of one.
func snapshotHosts(cur *timeline.Sample, info timeline.SourceInfo, gpus []SnapshotGPU,
	get func(name, dev string) Number) []SnapshotHostSummary {
	if !info.MultiHost() {
		return nil
	}
	state := map[string]timeline.ProbeStatus{}
	for _, p := range cur.Probes {
		if p.Probe == timeline.RemoteProbe {
			state[p.Device] = p
		}
	}
	var out []SnapshotHostSummary
	for _, name := range timeline.GroupByHost(info).Names {
		sum := SnapshotHostSummary{Name: name, GPUs: []int{},
			CPU: get(timeline.HostCPU, timeline.DeviceOnHost(timeline.HostDevice, name))}
		if p, ok := state[name]; ok {
			sum.State, sum.Err = p.State.String(), p.Err
		}
		var figs []timeline.GPUFigures
		for _, g := range gpus {
			if g.Host != name {
				continue
			}
			sum.GPUs = append(sum.GPUs, g.Index)
			figs = append(figs, timeline.GPUFigures{Index: g.Index, Util: float64(g.Util), SMActive: math.NaN(),
				Power: float64(g.PowerW), Energy: math.NaN(), MemUsed: float64(g.MemUsedBytes),
				MemTotal: float64(g.MemTotalBytes)})
		}
		fig := timeline.SumHost(figs)
		sum.UtilMean, sum.UtilLowest = Number(fig.UtilMean), Number(fig.UtilLowest)
		if fig.LowestGPU >= 0 {
			sum.LowestGPU = &fig.LowestGPU
		}
		sum.PowerW, sum.MemUsedBytes, sum.MemTotalBytes = Number(fig.Power), Number(fig.MemUsed), Number(fig.MemTotal)
		out = append(out, sum)
	}
	return out
}

// writeSnapshotHosts is a line per host of a session of several.
func writeSnapshotHosts(b *bytes.Buffer, hosts []SnapshotHostSummary) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tGPUS\tUTIL\tLOWEST\tPOWER\tMEMORY\tCPU\tSTATE")
	for _, h := range hosts {
		st := h.State
		if st == "" {
			st = repNA
		}
		if h.Err != "" {
			st += ": " + repClean(h.Err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", repClean(h.Name), len(h.GPUs), repPct(h.UtilMean),
			repPct(h.UtilLowest), repHostPower(h.PowerW), repBytesOf(h.MemUsedBytes, h.MemTotalBytes), repPct(h.CPU), st)
	}
	_ = tw.Flush()
}
