package accuracy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The generator: synthetic runs whose truth is known second by second.
// Each family is one finding (or a healthy control) in the shape the real
// logs show it, played in many variants: the file formats users keep, one to
// eight GPUs, sampling from 100 ms to 30 s, noise, columns the tool did not
// log. A run is made in memory when asked for and is the same bytes on
// every machine: its noise comes from a generator seeded by its name.

// Format is how a synthetic run reaches gputop.
type Format string

// The formats of synthetic runs.
const (
	// Recorded is samples as gputop's own probes record them, host
	// included: the only way host-side findings reach it.
	Recorded Format = "recorded"
	// QueryCSV is `nvidia-smi --query-gpu=... --format=csv`: a header and
	// units in the values ("96 %", "17959 MiB").
	QueryCSV Format = "query-gpu csv"
	// QueryCSVNoUnits is `--format=csv,nounits`.
	QueryCSVNoUnits Format = "query-gpu csv,nounits"
	// QueryCSVNoHeader is `--format=csv,noheader`: the columns are given
	// to the import (--columns).
	QueryCSVNoHeader Format = "query-gpu csv,noheader"
	// QueryCSVNoIndex is a multi-GPU query without the index column: one
	// row per GPU per burst, the GPU its place in the burst.
	QueryCSVNoIndex Format = "query-gpu csv without index"
	// Dmon is `nvidia-smi dmon`: no times, its header pair repeated.
	Dmon Format = "dmon"
	// DcgmiText is the text of `dcgmi dmon -e ...`: no times, N/A cells.
	DcgmiText Format = "dcgmi dmon"
	// DcgmiCSV is DCGM fields as CSV with epoch-second times.
	DcgmiCSV Format = "dcgmi csv"
)

// Encoding is how a run's text is stored.
type Encoding string

// The encodings of synthetic files.
const (
	UTF8    Encoding = "utf-8"
	CRLF    Encoding = "crlf"
	UTF16LE Encoding = "utf-16"
)

// gpuRead is what one GPU reads at one tick; NaN is not logged.
type gpuRead struct {
	util, sm, power, limit, mem, memTotal, temp, clock, pcie float64
	reasons                                                  uint64 // NVML's clocks_event_reasons mask
}

// hostRead is what the host reads at one tick.
type hostRead struct {
	cores                []float64
	iowait, diskR, diskW float64
}

// NVML's clocks_event_reasons bits the generator sets.
const (
	nvmlPowerCap  = 0x4
	nvmlSWThermal = 0x20
)

// h100 is the card most families play: its limit, memory and clocks.
const (
	h100Limit = 700.0
	h100Mem   = 80 * 1024 // MiB
	h100Boost = 1980.0
	h100Idle  = 345.0
)

// Run is one synthetic run: its case and how to make it.
type Run struct {
	Case     Case
	Format   Format
	Encoding Encoding
	Interval time.Duration
	Length   time.Duration
	GPUs     int
	seed     uint64
	gpu      func(r *rand.Rand, sec float64, g int) gpuRead
	host     func(r *rand.Rand, sec float64) *hostRead
	// more adds what a recorded sample holds beyond readings: the job's
	// progress, Xid markers, PCIe link state (Recorded runs only).
	more func(sec float64, s *timeline.Sample)
	// hosts, for a session of several hosts, names them; the GPUs are
	// split evenly among them in order.
	hosts []string
}

// SynthStart is the first sample's time of every synthetic run.
var SynthStart = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

// ticks plays the run: every interval's readings.
func (run Run) ticks(visit func(at time.Duration, gpus []gpuRead, host *hostRead)) {
	r := rand.New(rand.NewPCG(run.seed, 43))
	gpus := make([]gpuRead, run.GPUs)
	for at := time.Duration(0); at < run.Length; at += run.Interval {
		sec := at.Seconds()
		for g := range gpus {
			gpus[g] = run.gpu(r, sec, g)
		}
		var h *hostRead
		if run.host != nil {
			h = run.host(r, sec)
		}
		visit(at, gpus, h)
	}
}

// Samples is the run as gputop's recorder would hold it.
func (run Run) Samples() []timeline.Sample {
	var out []timeline.Sample
	run.ticks(func(at time.Duration, gpus []gpuRead, h *hostRead) {
		var m []timeline.Metric
		put := func(name, dev string, v float64) {
			if !math.IsNaN(v) {
				m = append(m, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: v})
			}
		}
		for g, x := range gpus {
			dev := timeline.GPUDevice(g)
			put(timeline.GPUUtil, dev, x.util)
			put(timeline.GPUSMActive, dev, x.sm)
			put(timeline.GPUPower, dev, x.power)
			put(timeline.GPUPowerLimit, dev, x.limit)
			put(timeline.GPUMemUsed, dev, x.mem*(1<<20))
			put(timeline.GPUMemTotal, dev, x.memTotal*(1<<20))
			put(timeline.GPUTemp, dev, x.temp)
			put(timeline.GPUClockSM, dev, x.clock)
			put(timeline.GPUPCIeRx, dev, x.pcie)
			if !math.IsNaN(x.util) {
				put(timeline.GPUThrottle, dev, float64(timelineReasons(x.reasons)))
			}
		}
		if h != nil {
			sum := 0.0
			for i, c := range h.cores {
				put(timeline.CoreBusy, timeline.CoreDevice(i), c)
				sum += c
			}
			put(timeline.HostCPU, timeline.HostDevice, sum/float64(len(h.cores)))
			put(timeline.HostIOWait, timeline.HostDevice, h.iowait)
			put(timeline.HostDiskRead, timeline.HostDevice, h.diskR)
			put(timeline.HostDiskWrite, timeline.HostDevice, h.diskW)
		}
		s := timeline.Sample{At: SynthStart.Add(at)}.WithMetrics(m)
		if run.more != nil {
			run.more(at.Seconds(), &s)
		}
		out = append(out, s)
	})
	return out
}

// timelineReasons turns NVML's mask into the timeline's bits.
func timelineReasons(nvml uint64) uint64 {
	var b uint64
	if nvml&nvmlPowerCap != 0 {
		b |= timeline.ThrottlePowerCap
	}
	if nvml&nvmlSWThermal != 0 {
		b |= timeline.ThrottleSWThermal
	}
	return b
}

// Info is the run's source, as a recording of it would say.
func (run Run) Info() timeline.SourceInfo {
	info := timeline.SourceInfo{Interval: run.Interval}
	if len(run.hosts) == 0 {
		return info
	}
	per := run.GPUs / len(run.hosts)
	for k, h := range run.hosts {
		info.Hosts = append(info.Hosts, timeline.HostInfo{Name: h})
		for j := range per {
			info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: k*per + j, Name: "NVIDIA H100 80GB HBM3", Host: h,
				HostIndex: j, MemTotal: h100Mem * (1 << 20), PowerLimit: h100Limit, GPM: true})
		}
	}
	return info
}

// noise is v plus gaussian noise of sd, kept within lo..hi.
func noise(r *rand.Rand, v, sd, lo, hi float64) float64 {
	return min(hi, max(lo, v+r.NormFloat64()*sd))
}

// nan is a reading not logged.
var nan = math.NaN()

// busy is a healthy training GPU: util in the 90s, SM activity in the 70s,
// 80 % of its power limit, 60 % of its memory, clocks at boost.
func busy(r *rand.Rand) gpuRead {
	return gpuRead{util: noise(r, 94, 3, 80, 100), sm: noise(r, 74, 4, 50, 100), power: noise(r, 560, 20, 400, 690),
		limit: h100Limit, mem: 48 * 1024, memTotal: h100Mem, temp: noise(r, 64, 1.5, 50, 80),
		clock: noise(r, 1965, 10, 1900, h100Boost), pcie: noise(r, 2e9, 3e8, 0, 5e9)}
}

// idle is a GPU with nothing running: memory mem MiB.
func idle(r *rand.Rand, mem float64) gpuRead {
	return gpuRead{util: 0, sm: 0, power: noise(r, 70, 1.5, 60, 80), limit: h100Limit, mem: mem, memTotal: h100Mem,
		temp: noise(r, 34, 0.8, 25, 40), clock: h100Idle, pcie: noise(r, 1e6, 2e5, 0, 1e7)}
}

// quietHost is a host whose cores are mostly at rest.
func quietHost(r *rand.Rand) *hostRead {
	h := &hostRead{cores: make([]float64, 32), iowait: noise(r, 0.5, 0.3, 0, 5), diskR: noise(r, 2e6, 1e6, 0, 1e8),
		diskW: noise(r, 1e6, 5e5, 0, 1e8)}
	for i := range h.cores {
		h.cores[i] = noise(r, 12, 4, 0, 100)
	}
	return h
}

// String says what a run is, for its case's shape.
func (run Run) String() string {
	enc := ""
	if run.Encoding != "" {
		enc = string(run.Encoding) + ", "
	}
	return fmt.Sprintf("%s, %s%d GPU, every %v, %v", run.Format, enc, run.GPUs, run.Interval, run.Length)
}
