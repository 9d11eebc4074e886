package snapshot

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Version is the version of the snapshot JSON (docs/snapshot.md).
const Version = 1

// Snapshot is one reading of every GPU and the host: what `gputop snapshot`
// prints. Its JSON field names are a contract, documented in docs/snapshot.md.
type Snapshot struct {
	Version int       `json:"version"`
	Time    time.Time `json:"time"`
	Source  Source    `json:"source"`
	// Hosts are the hosts of a session of several, each with its GPUs
	// together; absent in a session of one.
	Hosts     []HostSummary `json:"hosts,omitempty"`
	GPUs      []GPU         `json:"gpus"`
	Host      Host          `json:"host"`
	Processes []Process     `json:"processes"`
	Notes     []string      `json:"notes"`
}

// Source says where the reading came from.
type Source struct {
	Kind     string `json:"kind"` // live, demo
	Scenario string `json:"scenario,omitempty"`
	Host     string `json:"host"`
	Driver   string `json:"driver"`
	CUDA     string `json:"cuda"`
}

// GPU is one GPU's reading. Percentages are 0-100.
type GPU struct {
	Index int `json:"index"`
	// Host and HostIndex: the GPU's host and its number there, in a
	// session of several hosts; absent in a session of one.
	Host      string `json:"host,omitempty"`
	HostIndex *int   `json:"host_index,omitempty"`
	// MIGProfile and MIGParent, on a MIG instance: its profile and the
	// index of the physical GPU it is a slice of.
	MIGProfile     string        `json:"mig_profile,omitempty"`
	MIGParent      *int          `json:"mig_parent,omitempty"`
	Name           string        `json:"name"`
	UUID           string        `json:"uuid"`
	Lost           bool          `json:"lost"`
	Util           report.Number `json:"util"`
	UtilMin        report.Number `json:"util_min"`
	UtilMax        report.Number `json:"util_max"`
	MemUtil        report.Number `json:"mem_util"`
	SMActive       report.Number `json:"sm_active"`
	SMOccupancy    report.Number `json:"sm_occupancy"`
	Tensor         report.Number `json:"tensor"`
	DRAMBandwidth  report.Number `json:"dram_bw"`
	MemUsedBytes   report.Number `json:"mem_used_bytes"`
	MemTotalBytes  report.Number `json:"mem_total_bytes"`
	PowerW         report.Number `json:"power_w"`
	PowerLimitW    report.Number `json:"power_limit_w"`
	TempC          report.Number `json:"temp_c"`
	ClockSMMHz     report.Number `json:"clock_sm_mhz"`
	ClockMemMHz    report.Number `json:"clock_mem_mhz"`
	Throttle       []string      `json:"throttle"`
	PCIeRxBytesSec report.Number `json:"pcie_rx_bytes_per_s"`
	PCIeTxBytesSec report.Number `json:"pcie_tx_bytes_per_s"`
	// Health is the link, errors and clocks held back; absent where the
	// GPU reports none of it.
	Health *report.GPUHealth `json:"health,omitempty"`
	// Owners are who a scheduler allocated the GPU to, process or not;
	// absent where no allocation is known (no Kubernetes or Slurm here).
	Owners []Owner `json:"owners,omitempty"`
}

// Owner is a GPU's allocation: a Kubernetes pod's container or a Slurm
// job, as the kubelet or the node's Slurm files say (probes/owners).
type Owner struct {
	Scheduler string `json:"scheduler"` // kubernetes, slurm
	Pod       string `json:"pod,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Container string `json:"container,omitempty"`
	Job       string `json:"job,omitempty"`
	User      string `json:"user,omitempty"`
	Partition string `json:"partition,omitempty"`
}

// ownerOf is o as the snapshot writes it.
func ownerOf(o timeline.Owner) Owner {
	sched := "slurm"
	if o.Pod != "" {
		sched = "kubernetes"
	}
	return Owner{Scheduler: sched, Pod: o.Pod, Namespace: o.Namespace, Container: o.Container,
		Job: o.Job, User: o.User, Partition: o.Partition}
}

// String is the owner in a few words: "pod team-a/train-0 (trainer)",
// "Slurm job 4242 (alice, gpu)".
func (o Owner) String() string {
	if o.Scheduler == "kubernetes" {
		s := "pod " + o.Pod
		if o.Namespace != "" {
			s = "pod " + o.Namespace + "/" + o.Pod
		}
		if o.Container != "" {
			s += " (" + o.Container + ")"
		}
		return timeline.CleanText(s)
	}
	more := slices.DeleteFunc([]string{o.User, o.Partition}, func(s string) bool { return s == "" })
	s := "Slurm job " + o.Job
	if len(more) > 0 {
		s += " (" + strings.Join(more, ", ") + ")"
	}
	return timeline.CleanText(s)
}

// Host is the host's reading.
type Host struct {
	CPU              report.Number   `json:"cpu"`
	IOWait           report.Number   `json:"iowait"`
	Load1            report.Number   `json:"load1"`
	Cores            []report.Number `json:"cores"`
	MemUsedBytes     report.Number   `json:"mem_used_bytes"`
	MemTotalBytes    report.Number   `json:"mem_total_bytes"`
	SwapUsedBytes    report.Number   `json:"swap_used_bytes"`
	SwapTotalBytes   report.Number   `json:"swap_total_bytes"`
	DiskReadBytesSec report.Number   `json:"disk_read_bytes_per_s"`
	DiskWriteByteSec report.Number   `json:"disk_write_bytes_per_s"`
}

// Process is one process holding a GPU.
type Process struct {
	// GPU is the index of its GPU, that of the MIG instance it runs in on
	// a MIG-enabled GPU, whose profile and parent MIGProfile and MIGParent
	// repeat.
	GPU        int           `json:"gpu"`
	MIGProfile string        `json:"mig_profile,omitempty"`
	MIGParent  *int          `json:"mig_parent,omitempty"`
	PID        int           `json:"pid"`
	User       string        `json:"user"`
	Command    string        `json:"command"`
	GPUMem     report.Number `json:"gpu_mem_bytes"`
	// Util is NVML's per-process utilisation (timeline.Process.Util).
	Util report.Number `json:"util"`
	// SM is Util under the name earlier versions gave it, kept for the
	// scripts that read it; it was never SM activity.
	SM       report.Number `json:"sm"`
	CPU      report.Number `json:"cpu"`
	RSSBytes report.Number `json:"rss_bytes"`
	// Started is when the process started, in UTC; null if unknown.
	Started *time.Time `json:"started"`
	// Workload is its container, pod, Slurm job or session; null when its
	// cgroup named none.
	Workload *report.ReportWorkload `json:"workload"`
}

// New is the reading of cur, with rates (power from the energy
// counter, CPU shares) taken against prev. It reads the samples, not a
// Store, so every number is exactly what the probes said.
func New(cur, prev *timeline.Sample, info timeline.SourceInfo) Snapshot {
	values := map[timeline.Key]float64{}
	for _, v := range timeline.Derive(cur, prev) {
		values[v.Key] = v.Value
	}
	get := func(name, dev string) report.Number {
		if v, ok := values[timeline.Key{Name: name, Device: dev}]; ok {
			return report.Number(v)
		}
		return report.Number(math.NaN())
	}
	s := Snapshot{
		Version: Version,
		Time:    cur.At,
		Source: Source{Kind: info.Kind.String(), Host: info.Host, Driver: info.Driver, CUDA: info.CUDA,
			Scenario: info.Scenario},
		Notes: append([]string{}, info.Notes...),
		// Empty lists, not null, as docs/snapshot.md promises: a script
		// iterates them without a check.
		GPUs:      []GPU{},
		Processes: []Process{},
	}
	lost := map[string]bool{}
	for _, p := range cur.Probes {
		if p.State == timeline.ProbeLost {
			lost[p.Device] = true
		}
	}
	for _, g := range info.GPUs {
		dev := timeline.GPUDevice(g.Index)
		v := func(name string) report.Number { return get(name, dev) }
		var at *int
		if g.Host != "" {
			i := g.HostIndex
			at = &i
		}
		profile, parent := report.MIGOfGPU(g)
		s.GPUs = append(s.GPUs, GPU{
			Index: g.Index, Host: g.Host, HostIndex: at, MIGProfile: profile, MIGParent: parent,
			Name: g.Name, UUID: g.UUID, Lost: lost[dev],
			Util: v(timeline.GPUUtil), UtilMin: v(timeline.GPUUtilMin), UtilMax: v(timeline.GPUUtilMax), MemUtil: v(timeline.GPUMemUtil),
			SMActive: v(timeline.GPUSMActive), SMOccupancy: v(timeline.GPUSMOccupancy), Tensor: v(timeline.GPUTensor), DRAMBandwidth: v(timeline.GPUDRAMBW),
			MemUsedBytes: v(timeline.GPUMemUsed), MemTotalBytes: v(timeline.GPUMemTotal), PowerW: v(timeline.GPUPower), PowerLimitW: v(timeline.GPUPowerLimit),
			TempC: v(timeline.GPUTemp), ClockSMMHz: v(timeline.GPUClockSM), ClockMemMHz: v(timeline.GPUClockMem),
			Throttle:       timeline.ThrottleList(float64(v(timeline.GPUThrottle))),
			PCIeRxBytesSec: v(timeline.GPUPCIeRx), PCIeTxBytesSec: v(timeline.GPUPCIeTx),
			Health: report.HealthAt(v),
		})
	}
	h := func(name string) report.Number { return get(name, timeline.HostDevice) }
	s.Host = Host{CPU: h(timeline.HostCPU), IOWait: h(timeline.HostIOWait), Load1: h(timeline.HostLoad1),
		MemUsedBytes: h(timeline.HostMemUsed), MemTotalBytes: h(timeline.HostMemTotal), SwapUsedBytes: h(timeline.HostSwapUsed),
		SwapTotalBytes: h(timeline.HostSwapTotal), DiskReadBytesSec: h(timeline.HostDiskRead), DiskWriteByteSec: h(timeline.HostDiskWrite),
		Cores: []report.Number{}}
	for i := 0; ; i++ {
		v, ok := values[timeline.Key{Name: timeline.CoreBusy, Device: timeline.CoreDevice(i)}]
		if !ok {
			break
		}
		s.Host.Cores = append(s.Host.Cores, report.Number(v))
	}
	s.Hosts = snapshotHosts(cur, info, s.GPUs, get)
	owners := cur.Owners
	if owners == nil && prev != nil {
		owners = prev.Owners
	}
	for _, o := range owners {
		for i := range s.GPUs {
			if s.GPUs[i].Index == o.GPU {
				s.GPUs[i].Owners = append(s.GPUs[i].Owners, ownerOf(o))
			}
		}
	}
	procs := cur.Processes
	if procs == nil && prev != nil {
		procs = prev.Processes
	}
	for _, p := range procs {
		sp := Process{GPU: p.GPU, PID: p.PID, User: p.User, Command: p.Command,
			GPUMem: report.Number(p.GPUMem), Util: report.Number(p.Util), SM: report.Number(p.Util), CPU: report.Number(p.CPU), RSSBytes: report.Number(p.RSS),
			Workload: report.WorkloadOf(p.Workload)}
		sp.MIGProfile, sp.MIGParent = report.MIGOf(info, p.GPU)
		if !p.Started.IsZero() {
			started := p.Started.UTC()
			sp.Started = &started
		}
		s.Processes = append(s.Processes, sp)
	}
	return s
}

// WriteText prints the snapshot for a person: a table of GPUs, the host,
// the processes. Its tables are laid out (tabwriter) into a buffer, which
// never fails: their Flush has no error to say.
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
				pct(g.Util), pct(g.SMActive), bytesOf(g.MemUsedBytes, g.MemTotalBytes),
				wattsOf(g.PowerW, g.PowerLimitW), units.Celsius(float64(g.TempC), false),
				units.MHz(float64(g.ClockSMMHz)), textThrottle(g.Throttle))
		}
		_ = tw.Flush()
	}
	s.writeOwners(&b, names, number)
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
				where = p.Workload.Workload().Short()
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", names.Column(p.GPU, number), p.PID, p.User, bytesText(p.GPUMem), pct(p.Util), pct(p.CPU), where, p.Command)
		}
		_ = tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeOwners is a line per allocation, saying where no process holds
// the GPU: the waste nobody sees from the process table.
func (s Snapshot) writeOwners(b *bytes.Buffer, names units.GPUNames, number func(int) int) {
	busy := map[int]bool{}
	for _, p := range s.Processes {
		busy[p.GPU] = true
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	header := false
	for _, g := range s.GPUs {
		for _, o := range g.Owners {
			if !header {
				fmt.Fprintln(tw, "GPU\tHELD BY")
				header = true
			}
			idle := ""
			if !busy[g.Index] {
				idle = ": no process on it"
			}
			fmt.Fprintf(tw, "%s\t%s%s\n", names.Column(g.Index, number), o, idle)
		}
	}
	_ = tw.Flush()
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
func writeSnapshotHost(b *bytes.Buffer, h Host) {
	busiest := math.NaN()
	for _, c := range h.Cores {
		if !math.IsNaN(float64(c)) && (math.IsNaN(busiest) || float64(c) > busiest) {
			busiest = float64(c)
		}
	}
	fmt.Fprintf(b, "host  CPU %s (%s, busiest %s)  iowait %s  load %s  RAM %s  swap %s\n",
		pct(h.CPU), units.Count(len(h.Cores), "core"), pct(report.Number(busiest)), pct(h.IOWait),
		units.Number(float64(h.Load1)), bytesOf(h.MemUsedBytes, h.MemTotalBytes), bytesText(h.SwapUsedBytes))
}

// HostSummary is one host of a session of several in one reading:
// whether it answered, and its GPUs together.
type HostSummary struct {
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
	UtilMean   report.Number `json:"util_mean"`
	UtilLowest report.Number `json:"util_lowest"`
	LowestGPU  *int          `json:"lowest_gpu"`
	// PowerW, MemUsedBytes and MemTotalBytes are its GPUs' together.
	PowerW        report.Number `json:"power_w"`
	MemUsedBytes  report.Number `json:"mem_used_bytes"`
	MemTotalBytes report.Number `json:"mem_total_bytes"`
	// CPU is the host's CPU (% of all cores), where it is sampled.
	CPU report.Number `json:"cpu"`
}

// snapshotHosts sums each host's GPUs of a session of several; nil in a
// session of one.
func snapshotHosts(cur *timeline.Sample, info timeline.SourceInfo, gpus []GPU,
	get func(name, dev string) report.Number) []HostSummary {
	if !info.MultiHost() {
		return nil
	}
	state := map[string]timeline.ProbeStatus{}
	for _, p := range cur.Probes {
		if p.Probe == timeline.RemoteProbe {
			state[p.Device] = p
		}
	}
	var out []HostSummary
	for _, name := range timeline.GroupByHost(info).Names {
		sum := HostSummary{Name: name, GPUs: []int{},
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
		sum.UtilMean, sum.UtilLowest = report.Number(fig.UtilMean), report.Number(fig.UtilLowest)
		if fig.LowestGPU >= 0 {
			sum.LowestGPU = &fig.LowestGPU
		}
		sum.PowerW, sum.MemUsedBytes, sum.MemTotalBytes = report.Number(fig.Power), report.Number(fig.MemUsed), report.Number(fig.MemTotal)
		out = append(out, sum)
	}
	return out
}

// writeSnapshotHosts is a line per host of a session of several.
func writeSnapshotHosts(b *bytes.Buffer, hosts []HostSummary) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tGPUS\tUTIL\tLOWEST\tPOWER\tMEMORY\tCPU\tSTATE")
	for _, h := range hosts {
		st := cmp.Or(h.State, units.NA)
		if h.Err != "" {
			st += ": " + timeline.CleanText(h.Err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", timeline.CleanText(h.Name), len(h.GPUs), pct(h.UtilMean),
			pct(h.UtilLowest), report.HostPower(h.PowerW), bytesOf(h.MemUsedBytes, h.MemTotalBytes), pct(h.CPU), st)
	}
	_ = tw.Flush()
}

// The snapshot's figures, written as the report writes them (units).
func pct(n report.Number) string               { return units.Percent(float64(n)) }
func bytesText(n report.Number) string         { return units.Bytes(float64(n)) }
func bytesOf(used, total report.Number) string { return units.BytesOf(float64(used), float64(total)) }
func wattsOf(used, limit report.Number) string { return units.WattsOf(float64(used), float64(limit)) }
