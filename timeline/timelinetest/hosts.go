package timelinetest

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HostRun is one host of a session of several, as a session of one host
// gave it: its name, its description and its samples.
type HostRun struct {
	Name    string
	Info    timeline.SourceInfo
	Samples []timeline.Sample
}

// Combine makes one session of several hosts out of sessions of one, the
// way a multi-host recording holds it (docs/recording-format.md, format
// 1.4): hosts in the given order; GPUs numbered session-wide host by host
// (the first host's gpu0-7 stay gpu0-7, the second's become gpu8-15), each
// GPUInfo with its Host and HostIndex; every other device renamed
// host@NAME ("host@node2", "cpu3@node2", "job@node2"); each host's
// connection reported as a RemoteProbe status; samples of the same
// instant merged into one, in time order. Markers every host carries at
// the same instant (one `m`, sent to all) are kept once.
func Combine(hosts []HostRun) (timeline.SourceInfo, []timeline.Sample) {
	var info timeline.SourceInfo
	byTime := map[time.Time]*timeline.Sample{}
	metrics := map[time.Time][]timeline.Metric{} // each time's, gathered from every host
	var times []time.Time
	next := 0
	for k, h := range hosts {
		if k == 0 {
			info = h.Info
			info.GPUs, info.Notes, info.Checks, info.Hosts = nil, nil, nil, nil
			info.Host = ""
		}
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: h.Name, Driver: h.Info.Driver, CUDA: h.Info.CUDA,
			Notes: slices.Clone(h.Info.Notes)})
		renumber := map[int]int{}
		for _, g := range h.Info.GPUs {
			renumber[g.Index] = next
			g.Host, g.HostIndex, g.Index = h.Name, g.Index, next
			info.GPUs = append(info.GPUs, g)
			next++
		}
		device := func(dev string) string {
			if idx, ok := timeline.ParseGPUDevice(dev); ok {
				if n, ok := renumber[idx]; ok {
					return timeline.GPUDevice(n)
				}
				renumber[idx] = next // a GPU the description did not list
				next++
				return timeline.GPUDevice(renumber[idx])
			}
			return timeline.DeviceOnHost(dev, h.Name)
		}
		for _, s := range h.Samples {
			out := byTime[s.At]
			if out == nil {
				out = &timeline.Sample{At: s.At}
				byTime[s.At] = out
				times = append(times, s.At)
			}
			for _, m := range s.Metrics() {
				m.Key.Device = device(m.Key.Device)
				metrics[s.At] = append(metrics[s.At], m)
			}
			out.Probes = append(out.Probes, timeline.ProbeStatus{Probe: timeline.RemoteProbe, Device: h.Name,
				State: timeline.ProbeOK})
			for _, p := range s.Probes {
				if p.Device != "" {
					p.Device = device(p.Device)
				}
				out.Probes = append(out.Probes, p)
			}
			for _, p := range s.Processes {
				if n, ok := renumber[p.GPU]; ok {
					p.GPU = n
				}
				out.Processes = append(out.Processes, p)
			}
			for _, m := range s.Markers {
				if !slices.Contains(out.Markers, m) {
					out.Markers = append(out.Markers, m)
				}
			}
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	samples := make([]timeline.Sample, len(times))
	for i, t := range times {
		samples[i] = byTime[t].WithMetrics(metrics[t])
	}
	return info, samples
}

// GPUReading is what one synthetic GPU reads in one second. A NaN field
// is not sampled that second; a GPU whose Util is NaN is absent altogether
// (its host not answering: a gap, never a zero).
type GPUReading struct {
	Util, SM, Power, Clock, Mem float64
}

// Synthetic readings of an H100 80GB (700 W), for clusters of them.
var (
	// Training is a healthy step: utilisation pegged, SM activity 70-75 %.
	Training = GPUReading{Util: 98, SM: 72, Power: 610, Clock: 1980, Mem: 40 << 30}
	// Idle is a GPU with no job, a CUDA context at most.
	Idle = GPUReading{Util: 0, SM: 0, Power: 72, Clock: 345, Mem: 500 << 20}
	// Spinning is a GPU busy-waiting in an NCCL collective.
	Spinning = GPUReading{Util: 99, SM: 2, Power: 150, Clock: 1980, Mem: 40 << 30}
	// Absent is a GPU whose host is not answering.
	Absent = GPUReading{Util: math.NaN(), SM: math.NaN(), Power: math.NaN(), Clock: math.NaN(), Mem: math.NaN()}
)

// ClusterHost names host h (from 0) of a synthetic cluster: node1, node2, ...
func ClusterHost(h int) string { return "node" + strconv.Itoa(h+1) }

// Cluster is a synthetic session of hosts × gpus H100s, secs seconds at
// 1 Hz from T0: read says what GPU g (its host's index) of host h reads at
// second sec, with a little deterministic jitter added so that no two GPUs
// read alike. Each host also reports its CPU (30 %) as host@NAME, and each
// second its connection as a RemoteProbe status.
func Cluster(hosts, gpus, secs int, read func(h, g, sec int) GPUReading) (timeline.SourceInfo, []timeline.Sample) {
	info := timeline.SourceInfo{Kind: timeline.Replay, Recorded: timeline.Live, Interval: time.Second,
		Driver: "550.54.15", CUDA: "12.4"}
	for h := range hosts {
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: ClusterHost(h), Driver: "550.54.15", CUDA: "12.4"})
		for g := range gpus {
			info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: h*gpus + g, Name: "NVIDIA H100 80GB HBM3",
				UUID: "GPU-" + strconv.Itoa(h) + "-" + strconv.Itoa(g), MemTotal: 80 << 30, PowerLimit: 700, GPM: true,
				Host: ClusterHost(h), HostIndex: g})
		}
	}
	samples := make([]timeline.Sample, secs)
	for sec := range secs {
		metrics := make([]timeline.Metric, 0, hosts*(gpus*7+1))
		var probes []timeline.ProbeStatus
		for h := range hosts {
			answered := false
			for g := range gpus {
				r := read(h, g, sec)
				if math.IsNaN(r.Util) {
					continue
				}
				answered = true
				dev := timeline.GPUDevice(h*gpus + g)
				j := float64((sec*7+g*3+h*5)%5) - 2 // -2..2
				put := func(name string, v float64) {
					if !math.IsNaN(v) {
						metrics = append(metrics, Gauge(name, dev, v))
					}
				}
				put(timeline.GPUUtil, clamp(r.Util+j/2))
				put(timeline.GPUSMActive, clamp(r.SM+j))
				put(timeline.GPUPower, r.Power+3*j)
				put(timeline.GPUClockSM, r.Clock)
				put(timeline.GPUMemUsed, r.Mem)
				put(timeline.GPUMemTotal, 80<<30)
				put(timeline.GPUPowerLimit, 700)
			}
			state, why := timeline.ProbeOK, ""
			if answered {
				metrics = append(metrics, Gauge(timeline.HostCPU, timeline.DeviceOnHost(timeline.HostDevice, ClusterHost(h)), 30))
			} else {
				state, why = timeline.ProbeFailed, "unreachable: connection refused"
			}
			probes = append(probes, timeline.ProbeStatus{Probe: timeline.RemoteProbe, Device: ClusterHost(h), State: state, Err: why})
		}
		samples[sec] = timeline.Sample{At: T0.Add(time.Duration(sec) * time.Second), Probes: probes}.WithMetrics(metrics)
	}
	return info, samples
}

func clamp(v float64) float64 { return min(100, max(0, v)) }
