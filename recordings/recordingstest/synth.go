package recordingstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// T0 is the time tests start their recordings at.
var T0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// Samples returns n synthetic samples of a small node (gpus GPUs, 4
// cores) at 1 Hz from T0, with trouble (see Synth.Trouble).
func Samples(n, gpus int) []timeline.Sample {
	g := NewSynth(1, T0, time.Second, gpus, 4)
	g.Trouble = true
	out := make([]timeline.Sample, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// Synth makes samples like the live sampler's on an 8-GPU training node:
// the raw metrics an NVML probe and a host probe write, with the noise real
// readings have (NVML integers, milliwatts, 1/100 s CPU ticks), probe
// statuses, a process list every few ticks and a marker now and then.
type Synth struct {
	rng      *rand.Rand
	at       time.Time
	interval time.Duration
	tick     int
	gpus     []synthGPU
	cores    []synthCore
	host     synthCore // all cores: busy, iowait and total ticks
	// ms are the sample's readings as Next gathers them, and cols the
	// last sample's columns, handed on again.
	ms       []timeline.Metric
	cols     *timeline.Columns
	hostWait int64
	diskR    int64
	diskW    int64
	memUsed  int64
	selfCPU  int64
	selfRSS  int64
	// RawGPM writes GPM metrics at full float64 precision, as NVML returns
	// them, instead of rounded to 0.01 %.
	RawGPM bool
	// Trouble makes GPU 3 late, then failed, for a few ticks now and then,
	// so statuses, NaN values and error texts are exercised.
	Trouble bool
}

type synthGPU struct {
	energyMJ   int64
	pcieTx     int64
	pcieRx     int64
	memUsed    int64
	temp       int
	busyTarget float64
}

type synthCore struct{ busy, total int64 }

// NewSynth starts a node of gpus GPUs and cores cores at start.
func NewSynth(seed uint64, start time.Time, interval time.Duration, gpus, cores int) *Synth {
	g := &Synth{
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		at:       start,
		interval: interval,
		gpus:     make([]synthGPU, gpus),
		cores:    make([]synthCore, cores),
		memUsed:  200 << 30,
		selfRSS:  24 << 20,
	}
	for i := range g.gpus {
		g.gpus[i] = synthGPU{energyMJ: 5e9 + int64(i)*1e8, memUsed: 60 << 30, temp: 55 + i, busyTarget: 97}
	}
	for i := range g.cores {
		g.cores[i] = synthCore{busy: 1e6 + int64(i)*1000, total: 4e7}
	}
	return g
}

func (g *Synth) noise(sd float64) float64 { return g.rng.NormFloat64() * sd }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// Next is the node's next sample, one interval after the last.
func (g *Synth) Next() timeline.Sample {
	g.tick++
	g.at = g.at.Add(g.interval)
	s := timeline.Sample{At: g.at, Columns: g.cols}
	g.ms = g.ms[:0]
	// A validation phase of 20 s every 5 minutes: GPUs mostly idle.
	validating := g.tick%300 >= 280
	for i := range g.gpus {
		g.gpuMetrics(&s, i, validating)
	}
	g.hostMetrics(&s)
	s.SetMetrics(g.ms)
	g.cols = s.Columns
	g.statuses(&s)
	if g.tick%5 == 0 {
		g.processes(&s)
	}
	if g.tick%300 == 280 {
		s.Markers = []timeline.Marker{{At: g.at.Add(-g.interval / 3), Text: fmt.Sprintf("validation %d", g.tick/300), Origin: "job"}}
	}
	return s
}

func (g *Synth) gpuMetrics(s *timeline.Sample, i int, validating bool) {
	d := &g.gpus[i]
	dev := timeline.GPUDevice(i)
	add := func(name string, kind timeline.Kind, v float64) {
		g.ms = append(g.ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v})
	}
	target := d.busyTarget
	if validating {
		target = 8
	}
	// Utilization: six integer sub-samples, kept as min, mean and max.
	lo, hi, sum := 100, 0, 0
	for range 6 {
		u := int(clamp(math.Round(target+g.noise(4)), 0, 100))
		lo, hi, sum = min(lo, u), max(hi, u), sum+u
	}
	powerMW := int64(clamp(120000+5200*target+g.noise(12000), 60000, 700000))
	d.energyMJ += powerMW * int64(g.interval/time.Millisecond) / 1000
	d.pcieTx += int64(clamp(4e7+g.noise(2e7), 0, 1e10))
	d.pcieRx += int64(clamp(2.5e8+g.noise(1e8), 0, 1e10))
	if g.rng.IntN(60) == 0 {
		d.memUsed += int64(g.rng.IntN(5)-2) << 20
	}
	if g.rng.IntN(10) == 0 {
		d.temp += g.rng.IntN(3) - 1
	}
	clock, throttle := 1980.0, 0.0
	if powerMW > 690000 {
		clock, throttle = 1755, timeline.ThrottlePowerCap
	}
	gpm := func(v float64) float64 {
		v = clamp(v, 0, 100)
		if g.RawGPM {
			return v * (1 + 1e-9*g.rng.Float64())
		}
		return math.Round(v*100) / 100
	}
	add(timeline.GPUUtil, timeline.Gauge, float64(sum)/6)
	add(timeline.GPUUtilMin, timeline.Gauge, float64(lo))
	add(timeline.GPUUtilMax, timeline.Gauge, float64(hi))
	add(timeline.GPUMemUtil, timeline.Gauge, math.Round(clamp(target*0.45+g.noise(3), 0, 100)))
	add(timeline.GPUSMActive, timeline.Gauge, gpm(target*0.8+g.noise(2)))
	add(timeline.GPUSMOccupancy, timeline.Gauge, gpm(target*0.5+g.noise(2)))
	add(timeline.GPUTensor, timeline.Gauge, gpm(target*0.6+g.noise(3)))
	add(timeline.GPUDRAMBW, timeline.Gauge, gpm(target*0.35+g.noise(2)))
	add(timeline.GPUMemUsed, timeline.Gauge, float64(d.memUsed))
	add(timeline.GPUMemTotal, timeline.Gauge, 85520809984)
	add(timeline.GPUPower, timeline.Gauge, float64(powerMW)/1000)
	add(timeline.GPUPowerLimit, timeline.Gauge, 700)
	add(timeline.GPUTemp, timeline.Gauge, float64(d.temp))
	add(timeline.GPUClockSM, timeline.Gauge, clock)
	add(timeline.GPUClockMem, timeline.Gauge, 2619)
	add(timeline.GPUThrottle, timeline.Gauge, throttle)
	add(timeline.GPUEnergy, timeline.Counter, float64(d.energyMJ)/1000)
	add(timeline.GPUPCIeTxBytes, timeline.Counter, float64(d.pcieTx))
	add(timeline.GPUPCIeRxBytes, timeline.Counter, float64(d.pcieRx))
	if g.Trouble && i == 3 && g.tick%50 >= 45 {
		for j := len(g.ms) - 19; j < len(g.ms); j++ {
			g.ms[j].Value = math.NaN() // a late probe: its layout, all NaN
		}
	}
}

func (g *Synth) hostMetrics(s *timeline.Sample) {
	add := func(name, dev string, kind timeline.Kind, v float64) {
		g.ms = append(g.ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v})
	}
	ticks := int64(g.interval / (10 * time.Millisecond)) // 1/100 s per tick, as /proc/stat counts
	var busy, total int64
	for i := range g.cores {
		c := &g.cores[i]
		b := int64(clamp(35+g.noise(20), 0, float64(ticks)))
		t := ticks + int64(g.rng.IntN(3)-1)
		c.busy += b
		c.total += t
		busy, total = busy+b, total+t
	}
	g.host.busy += busy
	g.host.total += total
	g.hostWait += int64(g.rng.IntN(4))
	g.diskR += int64(g.rng.IntN(2000)) * 4096
	g.diskW += int64(g.rng.IntN(200)) * 4096
	g.memUsed += int64(g.rng.IntN(2001)-1000) * 4096
	g.selfCPU += int64(g.rng.IntN(2))
	g.selfRSS += int64(g.rng.IntN(3)-1) * 4096
	add(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, float64(g.host.busy)/100)
	add(timeline.HostCPUWaitSecs, timeline.HostDevice, timeline.Counter, float64(g.hostWait)/100)
	add(timeline.HostCPUTotSecs, timeline.HostDevice, timeline.Counter, float64(g.host.total)/100)
	add(timeline.HostLoad1, timeline.HostDevice, timeline.Gauge, math.Round(clamp(11+g.noise(1), 0, 64)*100)/100)
	add(timeline.HostMemUsed, timeline.HostDevice, timeline.Gauge, float64(g.memUsed))
	add(timeline.HostMemTotal, timeline.HostDevice, timeline.Gauge, 1<<40)
	add(timeline.HostSwapUsed, timeline.HostDevice, timeline.Gauge, 0)
	add(timeline.HostSwapTotal, timeline.HostDevice, timeline.Gauge, 8<<30)
	add(timeline.HostDiskRBytes, timeline.HostDevice, timeline.Counter, float64(g.diskR))
	add(timeline.HostDiskWBytes, timeline.HostDevice, timeline.Counter, float64(g.diskW))
	for i := range g.cores {
		dev := timeline.CoreDevice(i)
		add(timeline.CoreBusySecs, dev, timeline.Counter, float64(g.cores[i].busy)/100)
		add(timeline.CoreTotalSecs, dev, timeline.Counter, float64(g.cores[i].total)/100)
	}
	add(timeline.ProcCPUSecs, timeline.SelfDevice, timeline.Counter, float64(g.selfCPU)/100)
	add(timeline.ProcRSS, timeline.SelfDevice, timeline.Gauge, float64(g.selfRSS))
	lag := time.Duration(50_000 + g.rng.IntN(400_000)) // the tick started late by this
	add(timeline.SampleLag, timeline.SelfDevice, timeline.Gauge, lag.Seconds())
}

func (g *Synth) statuses(s *timeline.Sample) {
	took := func() time.Duration { return time.Duration(200_000 + g.rng.IntN(3_000_000)) }
	for i := range g.gpus {
		st := timeline.ProbeStatus{Probe: "nvml", Device: timeline.GPUDevice(i), State: timeline.ProbeOK, Took: took()}
		if g.Trouble && i == 3 && g.tick%50 >= 45 {
			st.State, st.Took, st.Err = timeline.ProbeLate, 0, "no answer within 1s"
			if g.tick%50 == 49 {
				st.State, st.Err = timeline.ProbeFailed, "nvml: Unknown Error"
			}
		}
		s.Probes = append(s.Probes, st)
	}
	s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "host", State: timeline.ProbeOK, Took: took()})
	s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "self", State: timeline.ProbeOK, Took: took()})
	if g.tick%5 == 0 {
		s.Probes = append(s.Probes, timeline.ProbeStatus{Probe: "procs", State: timeline.ProbeOK, Took: took()})
	}
}

func (g *Synth) processes(s *timeline.Sample) {
	s.Processes = []timeline.Process{}
	for i := range g.gpus {
		s.Processes = append(s.Processes, timeline.Process{
			GPU: i, PID: 41000 + i, User: "alice", Command: "python train.py --config big.yaml",
			GPUMem: float64(g.gpus[i].memUsed - 500<<20), Util: float64(g.rng.IntN(101)),
			CPU: 100 * g.rng.Float64(), RSS: float64(int64(8<<30) + int64(g.rng.IntN(1000))*4096),
			InJob: true,
		})
	}
}

// Info describes a node of gpus GPUs sampled every interval.
func Info(gpus int, interval time.Duration) timeline.SourceInfo {
	info := timeline.SourceInfo{Kind: timeline.Demo, Scenario: "training", Host: "dgx-07", Driver: "550.54.15",
		CUDA: "12.4", Interval: interval}
	for i := range gpus {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: i, Name: "NVIDIA H100 80GB HBM3",
			UUID: fmt.Sprintf("GPU-00000000-0000-0000-0000-00000000000%d", i), MemTotal: 85520809984,
			PowerLimit: 700, GPM: true})
	}
	return info
}
