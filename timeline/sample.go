package timeline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind says how a metric's raw value is read.
type Kind uint8

const (
	// Gauge is a value that stands on its own: 97 % utilisation, 71 °C.
	Gauge Kind = iota
	// Counter only grows (energy in joules, bytes sent, CPU seconds); its
	// meaning is in the difference between two samples, taken by Derive.
	Counter
)

func (k Kind) String() string {
	if k == Counter {
		return "counter"
	}
	return "gauge"
}

// Key names one series: a metric of one device. Device is "gpu0".."gpuN",
// "host", "cpu0".."cpuN" for the host's cores, "self" for gputop itself, or
// "job" for the process tree that `gputop run` wraps.
type Key struct {
	Name   string
	Device string
}

func (k Key) String() string { return k.Device + "/" + k.Name }

// GPUDevice is the device name of the GPU with NVML index i.
func GPUDevice(i int) string {
	if i >= 0 && i < len(gpuDevices) {
		return gpuDevices[i]
	}
	return "gpu" + strconv.Itoa(i)
}

// gpuDevices are the names of the first GPUs, made once: a session of 64
// hosts names 512 GPUs every frame (the host list's figures), and each name
// made anew was an allocation.
var gpuDevices = func() (out [1024]string) {
	for i := range out {
		out[i] = "gpu" + strconv.Itoa(i)
	}
	return out
}()

// ParseGPUDevice reads the NVML index out of a device name made by
// GPUDevice ("gpu3" is 3); false for any other name.
func ParseGPUDevice(device string) (int, bool) {
	rest, ok := strings.CutPrefix(device, "gpu")
	if !ok {
		return 0, false
	}
	// Digits only, without a leading zero: "gpu03" and "gpu+3" are not GPU
	// devices. By hand: it runs for every value of every sample.
	if rest == "" || len(rest) > 9 || len(rest) > 1 && rest[0] == '0' {
		return 0, false
	}
	i := 0
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
}

// DeviceOnHost names a device that is not a GPU ("host", "cpu3", "self") of
// one host of a session of several: "host@node3". GPUs need no such name:
// each has a session-wide "gpuN" and its GPUInfo says its host.
func DeviceOnHost(device, host string) string {
	if host == "" {
		return device
	}
	return device + "@" + host
}

// SplitDeviceHost undoes DeviceOnHost: "host@node3" is ("host", "node3"),
// "host" is ("host", "").
func SplitDeviceHost(device string) (string, string) {
	if i := strings.LastIndexByte(device, '@'); i >= 0 {
		return device[:i], device[i+1:]
	}
	return device, ""
}

// CoreDevice is the device name of host CPU core i.
func CoreDevice(i int) string { return fmt.Sprintf("cpu%d", i) }

// Metric is one raw reading. NaN means the reading exists but is unknown this
// time (not supported, not yet available); a metric that a device never has is
// simply absent.
type Metric struct {
	Key   Key
	Kind  Kind
	Value float64
}

// Sample is one raw reading of every probe at one instant; its values are
// never derived values. Counters stay counters here, so that a recording keeps the exact
// numbers and replay derives them the same way live does.
type Sample struct {
	At time.Time
	// Columns name Values position by position. A source gives every
	// sample of one list of keys the same Columns (a recording's layout),
	// so a stage that has planned for them knows each value's series by
	// one pointer check. Values are the readings, NaN where unknown this
	// time.
	Columns *Columns
	Values  []float64
	// Probes says how each probe did this tick.
	Probes []ProbeStatus
	// Processes is set on the ticks where the slower process tier ran.
	Processes []Process
	// Owners are the GPUs' allocations on process-tier ticks (probes/owners); else nil.
	Owners []Owner
	// Markers that arrived since the previous sample (from the `m` key,
	// `gputop mark`, or a wrapped job's output).
	Markers []Marker
	// Progress are the readings of the job's own progress kept since the
	// previous sample, each with its own time (progress.go).
	Progress []Progress
	// Derived is what the process's one Deriver (the pipeline's
	// analysis.Judge) made of the sample, carried with it so that a store
	// further down files those values instead of deriving them again; nil
	// where nothing derived it (a replay). Never recorded.
	Derived *Derived
}

// Derived is what a Deriver made of a sample (Deriver.Next): its display
// values by series, and the Deriver's tally, so far, of the values it left
// out as out of range.
type Derived struct {
	// Schema names the series of IDs.
	Schema *Schema
	// IDs are the values' series, shared by every sample of the same keys
	// (Deriver.IDs): never written. Numbers are the values, in IDs' order.
	IDs        []SeriesID
	Numbers    []float64
	OutOfRange []OutOfRange
	// Counted are the raw counters the Deriver has derived display values
	// from so far (Deriver.CountedKeys).
	Counted []Key
}

// Value returns the value of key in s and whether s has it.
func (s *Sample) Value(key Key) (float64, bool) {
	if i := s.Columns.Index(key); i >= 0 {
		return s.Values[i], true
	}
	return 0, false
}

// Len is how many values s has.
func (s *Sample) Len() int { return len(s.Values) }

// Metric is s's value at i with its key and kind.
func (s *Sample) Metric(i int) Metric {
	return Metric{Key: s.Columns.keys[i], Kind: s.Columns.kinds[i], Value: s.Values[i]}
}

// Metrics are s's values with their keys and kinds, made anew: for a
// report or a test, not for every tick.
func (s *Sample) Metrics() []Metric {
	out := make([]Metric, len(s.Values))
	for i := range out {
		out[i] = s.Metric(i)
	}
	return out
}

// SetMetrics gives s the values of ms, new ones, in s's columns where ms
// have their keys, else in columns made for them.
func (s *Sample) SetMetrics(ms []Metric) {
	s.Values = nil
	s.Fill(ms)
}

// Fill is SetMetrics into s's own values, written over: for a source that
// hands on the same sample again and again. Its columns stay where ms have
// their keys and kinds in their order: a source that reads the same keys
// tick after tick hands on the same columns.
func (s *Sample) Fill(ms []Metric) {
	if !s.Columns.Match(ms) {
		s.Columns = ColumnsOf(ms)
	}
	s.Values = slices.Grow(s.Values[:0], len(ms))[:len(ms)]
	for i := range ms {
		s.Values[i] = ms[i].Value
	}
}

// WithMetrics is s with the values of ms (SetMetrics).
func (s Sample) WithMetrics(ms []Metric) Sample {
	s.SetMetrics(ms)
	return s
}

// ProbeState is how one probe (or one device of a probe) did on one tick.
type ProbeState uint8

const (
	// ProbeOK means the probe answered within its timeout.
	ProbeOK ProbeState = iota
	// ProbeLate means the probe was still busy from an earlier tick, or
	// overran its timeout, so this tick has no data from it.
	ProbeLate
	// ProbeFailed means the probe returned an error this tick.
	ProbeFailed
	// ProbeLost means a device is gone (a GPU that fell off the bus). It is
	// not asked again.
	ProbeLost
)

var probeStateNames = [...]string{"ok", "late", "failed", "lost"}

func (s ProbeState) String() string {
	if int(s) < len(probeStateNames) {
		return probeStateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

// RemoteProbe is the probe name of a host's connection in a session of
// several hosts: its ProbeStatus has the host's name as Device, and Err says
// why the host is not answering ("unreachable: …", "dropped; retrying in 4s").
const RemoteProbe = "remote"

// ProbeStatus reports one probe, or one device of a probe, on one tick.
type ProbeStatus struct {
	Probe  string // "nvml", "host", "procs"
	Device string // "" for the probe as a whole, "gpu3" for one device
	State  ProbeState
	Took   time.Duration
	Err    string
}

// Process is one process that holds a GPU, as the slower process tier saw it.
type Process struct {
	GPU     int
	PID     int
	User    string
	Command string
	GPUMem  float64 // bytes; NaN if unknown
	// Util is NVML's per-process utilisation: the % of the last interval
	// in which one of the process's kernels ran (its share of the GPU's
	// util, as coarse), not SM activity. NaN if unknown (MIG).
	Util  float64
	CPU   float64 // % of one host core; NaN if unknown
	RSS   float64 // bytes; NaN if unknown
	InJob bool    // part of the process tree `gputop run` wraps
	// Started is when the process started, from the host's /proc; zero if
	// unknown. With the PID it names one process (a PID is reused).
	Started time.Time
	// Workload is the container, pod, Slurm job or session its cgroup
	// names; nil if none or unknown. Lists share it: a process's every
	// list points at the one the lookup read.
	Workload *Workload
}

// Owner is who a scheduler allocated GPU to, with or without a process on
// it: a Kubernetes pod's container, or a Slurm job; "" is unknown.
type Owner struct {
	GPU                       int
	Pod, Namespace, Container string
	Job, User, Partition      string
}

// Marker is a time and a short text: a phase of the job, named by the job,
// by a person (`m`, `gputop mark`), or by a line the wrapped job printed;
// or an event (Event): an Xid, an alert that fired.
type Marker struct {
	At     time.Time
	Text   string
	Origin string // "key", "mark", "job", "import", XidOrigin, AlertOrigin
}

// AlertOrigin is the Origin of a marker made from an alert that fired in
// Prometheus (`gputop import prometheus` reads ALERTS back): when the page
// went out, not the start of a phase of the job.
const AlertOrigin = "alert"

// JobOrigin is the Origin of a marker made from a line the wrapped job
// printed (gputop run's --phase-regex): the job's own phases.
const JobOrigin = "job"

// XidOrigin is the Origin of a marker made from an Xid event: the driver's
// report of a GPU error, which NVML's event set delivers as it happens
// (timeline/xid names them).
const XidOrigin = "xid"

// Event says whether m marks an event (an Xid, an alert that fired) rather
// than the start of a phase of the job.
func (m Marker) Event() bool { return m.Origin == XidOrigin || m.Origin == AlertOrigin }

// SourceKind says where samples come from.
type SourceKind uint8

const (
	// Live samples come from this machine's GPUs and host.
	Live SourceKind = iota
	// Demo samples come from the real probes driven by a scripted mock.
	Demo
	// Replay samples come from a recording.
	Replay
	// Imported samples come from a recording built from another tool's log.
	Imported
)

var sourceKindNames = [...]string{"live", "demo", "replay", "import"}

func (k SourceKind) String() string { return nameOf(sourceKindNames[:], k) }

// nameOf is the name of an enumerated value, "unknown" for one beyond
// names.
func nameOf[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "unknown"
}

// GPUInfo is what stays the same about one GPU for a whole session.
type GPUInfo struct {
	Index      int
	Name       string
	UUID       string
	MemTotal   float64 // bytes; NaN if unknown
	PowerLimit float64 // watts, the enforced limit at start; NaN if unknown
	GPM        bool    // profiling-grade metrics (SM activity) are available
	MIG        bool    // MIG mode is on: utilisation is not supported
	// PCIBusID is NVML's bus id ("00000000:17:00.0"); "" if unknown.
	PCIBusID string
	// Host is the machine the GPU is in, in a session of several hosts (an
	// import from Prometheus, `gputop --hosts`); "" in a session of one,
	// where every GPU is the source's Host's. When Host is set, Index is the
	// GPU's number within the session (its "gpuN" device) and HostIndex its
	// NVML index on its own host.
	Host      string
	HostIndex int
	// MIGProfile is set on a MIG compute instance, which a session lists as
	// a GPU of its own (Index after the physical GPUs, so its metrics are
	// "gpuN" like any GPU's): its GPU instance profile, "3g.40gb". "" on a
	// physical GPU.
	MIGProfile string
	// MIGParent is the Index of the physical GPU the instance is a slice
	// of; MIGGPUInstance and MIGComputeInstance are NVML's GPU and compute
	// instance ids within it. Meaningful only when MIGProfile is set.
	MIGParent          int
	MIGGPUInstance     int
	MIGComputeInstance int
}

// IsMIGInstance says the GPU is a MIG compute instance, not a physical GPU.
func (g GPUInfo) IsMIGInstance() bool { return g.MIGProfile != "" }

// OnHost is the GPU's index as its own host numbers it: HostIndex in a
// session of several hosts, Index in a session of one.
func (g GPUInfo) OnHost() int {
	if g.Host != "" {
		return g.HostIndex
	}
	return g.Index
}

// HostInfo describes one machine of a session of several hosts.
type HostInfo struct {
	Name   string
	Driver string
	CUDA   string
	// Notes say what could not be sampled on this host and why.
	Notes []string
}

// SourceInfo describes a Source for the header, recordings and reports.
type SourceInfo struct {
	Kind     SourceKind
	Host     string
	Driver   string
	CUDA     string
	GPUs     []GPUInfo
	Interval time.Duration
	// Scenario is the demo's scenario, for Kind == Demo (and recordings of it).
	Scenario string
	// Origin is the file replayed, or the log a recording was imported from.
	Origin string
	// Recorded is the kind of the source a replayed file was recorded from.
	Recorded SourceKind
	// Command is the job `gputop run` wrapped, if any.
	Command []string
	// Notes explain what could not be sampled and why, one line each
	// (for example "no NVIDIA driver: libnvidia-ml.so.1 not found").
	Notes []string
	// Checks lists every check made while looking for GPUs, for the help screen.
	Checks []string
	// Hosts lists the machines of a session of several hosts, in the order
	// they were named; empty in a session of one. Each GPU says its host.
	Hosts []HostInfo
}

// MultiHost says whether the session spans several hosts, so that GPUs are
// named by host ("node3 GPU2") and grouped by it.
func (in SourceInfo) MultiHost() bool { return len(in.Hosts) > 0 }

// GPUsOf returns the session-wide indexes of host's GPUs, in order.
func (in SourceInfo) GPUsOf(host string) []int {
	var out []int
	for _, g := range in.GPUs {
		if g.Host == host {
			out = append(out, g.Index)
		}
	}
	return out
}

// Source yields Samples in time order. The live Sampler, a recording's
// replay and a demo all implement it.
type Source interface {
	// Next blocks until the next sample. It returns io.EOF when a finite
	// source (a recording) has no more. The sample's Values, and what
	// was Derived of it, may be the source's again at the next call
	// (probes/remote merges each tick into the last one's; the pipeline's
	// Judge derives each into the numbers of the one before): whoever
	// keeps them past it keeps a copy.
	Next(ctx context.Context) (Sample, error)
	Info() SourceInfo
}

// MarkSink is implemented by sources that take markers made in the UI, so
// that a marker travels with the next sample into the store and any recording.
type MarkSink interface {
	Mark(text string)
}
