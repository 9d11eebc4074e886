package reporttest

import (
	"fmt"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// At0 is the fixed start of every report fixture.
var At0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// T is sec seconds after At0.
func T(sec float64) time.Time { return At0.Add(time.Duration(sec * float64(time.Second))) }

// CheckpointInfo describes the demo's eight H100s running a wrapped job.
func CheckpointInfo() timeline.SourceInfo {
	info := timeline.SourceInfo{Kind: timeline.Demo, Scenario: "checkpoint", Host: "node-a", Driver: "550.54.15", CUDA: "12.4",
		Interval: time.Second, Command: []string{"python", "train_gpt.py", "--save_steps", "100"}}
	for i := range 8 {
		info.GPUs = append(info.GPUs, timeline.GPUInfo{Index: i, Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-fixture-%d", i),
			MemTotal: 80 << 30, PowerLimit: 700, GPM: i != 7})
	}
	return info
}

// CheckpointStore is five minutes of a checkpointing job, every number
// raw as the probes write it (energy and CPU time as counters):
//
//	0-60 s     busy: util 90-96 %, SM 70-74 %, ~550 W
//	60-105 s   rank 0 saves: GPU0 0 %, GPUs 1-7 spin at 99 % on 2 % of SMs
//	105-240 s  busy again; no samples at all from 170 to 185 s
//	240-300 s  the job has ended: GPUs idle, memory freed, host quiet
//
// GPU3 falls off the bus at 200 s; GPU7 has no SM activity (N/A). Markers
// name the job's own phases; one of them carries markdown's specials.
func CheckpointStore() *timeline.Store { return Store(CheckpointSamples()) }

// Store is a store of samples.
func Store(samples []timeline.Sample) *timeline.Store {
	s := timeline.NewStore(timeline.StoreOptions{})
	for i := range samples {
		s.Add(&samples[i])
	}
	return s
}

// Engine is an Engine of info fed samples: report.Analyse(Engine(...)) is
// what it says of them.
func Engine(samples []timeline.Sample, info timeline.SourceInfo) *analysis.Engine {
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
	}
	return e
}

// CheckpointSamples are CheckpointStore's samples.
func CheckpointSamples() []timeline.Sample {
	var out []timeline.Sample
	energy := make([]float64, 8)
	var busy, total, wait, jobCPU float64
	coreBusy := make([]float64, 16)
	// The markers, text and origin, by the second they come at.
	markers := map[int][2]string{0: {"epoch 1", "job"}, 60: {"saving checkpoint step_100", "job"}, 105: {"epoch 2", "job"},
		150: {"eval | acc=0.91 *best* <ok>", "mark"}, 240: {"done", "job"}}
	for sec := 0; sec <= 300; sec++ {
		// No samples from 170 to 185 s, but the counters go on counting.
		skip := sec > 170 && sec < 185
		smp := &timeline.Sample{At: T(float64(sec))}
		var ms []timeline.Metric
		add := func(name, dev string, kind timeline.Kind, v float64) {
			ms = append(ms, timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: kind, Value: v})
		}
		saving := sec > 60 && sec <= 105
		ended := sec > 240
		for gi := range 8 {
			dev := timeline.GPUDevice(gi)
			if gi == 3 && sec >= 200 {
				smp.Probes = append(smp.Probes, timeline.ProbeStatus{Probe: "nvml", Device: dev, State: timeline.ProbeLost, Err: "GPU is lost"})
				continue
			}
			util, sm, power, mem := 90+float64((sec+gi)%7), 70+float64((sec+gi)%5), 550.0, 40.0
			switch {
			case ended:
				util, sm, power, mem = 0, 0, 70, 0.5
			case saving && gi == 0:
				util, sm, power = 0, 1, 145
			case saving:
				util, sm, power = 99, 2, 150
			}
			energy[gi] += power
			add(timeline.GPUUtil, dev, timeline.Gauge, util)
			if gi != 7 {
				add(timeline.GPUSMActive, dev, timeline.Gauge, sm)
			}
			add(timeline.GPUMemUsed, dev, timeline.Gauge, mem*(1<<30))
			add(timeline.GPUMemTotal, dev, timeline.Gauge, 80<<30)
			add(timeline.GPUEnergy, dev, timeline.Counter, energy[gi])
			add(timeline.GPUPowerLimit, dev, timeline.Gauge, 700)
		}
		for c := range coreBusy {
			b := 0.35
			switch {
			case ended:
				b = 0.01
			case c == 0 && saving:
				b = 0.98
			case c < 8:
				b = 0.7
			}
			coreBusy[c] += b
			busy += b
			add(timeline.CoreBusySecs, timeline.CoreDevice(c), timeline.Counter, coreBusy[c])
			add(timeline.CoreTotalSecs, timeline.CoreDevice(c), timeline.Counter, float64(sec+1))
		}
		total += 16
		wait += 0.1
		if !ended {
			jobCPU += 6.2
		}
		add(timeline.HostCPUBusySecs, timeline.HostDevice, timeline.Counter, busy)
		add(timeline.HostCPUWaitSecs, timeline.HostDevice, timeline.Counter, wait)
		add(timeline.HostCPUTotSecs, timeline.HostDevice, timeline.Counter, total)
		add(timeline.HostMemUsed, timeline.HostDevice, timeline.Gauge, 140*(1<<30)+math.Min(float64(sec), 60)*(1<<28))
		add(timeline.HostMemTotal, timeline.HostDevice, timeline.Gauge, 1024*(1<<30))
		add(timeline.HostSwapUsed, timeline.HostDevice, timeline.Gauge, 0)
		add(timeline.ProcCPUSecs, timeline.JobDevice, timeline.Counter, jobCPU)
		add(timeline.ProcRSS, timeline.JobDevice, timeline.Gauge, 18*(1<<30))
		if m, ok := markers[sec]; ok {
			smp.Markers = []timeline.Marker{{At: T(float64(sec)), Text: m[0], Origin: m[1]}}
		}
		if !skip {
			smp.SetMetrics(ms)
			out = append(out, *smp)
		}
	}
	return out
}

// CheckpointHints are hints as the rules might give them, in no order: a
// report of CheckpointStore takes them in place of the Engine's, so the
// goldens pin how hints are written, the analysis package's tests what they
// say.
func CheckpointHints() []timeline.Hint {
	return []timeline.Hint{
		{ID: timeline.HintBusyWait, Severity: timeline.Info, GPUs: []int{1, 2, 3, 4, 5, 6, 7}, Start: T(60), End: T(105),
			Evidence:   "GPU1-7 at 99 % utilisation on 2 % of their SMs and 150 W of 700 W for 45 s",
			Suggestion: "they wait in a collective for rank 0; see periodic-stall", Confidence: 0.8},
		{ID: timeline.HintPeriodicStall, Severity: timeline.Warning, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Start: T(20), End: T(105),
			Evidence:   "GPU0 0 % for 45 s while one core was 98 % busy writing the checkpoint; the largest of 2 episodes",
			Suggestion: "save asynchronously (`torch.distributed.checkpoint.async_save`) or less often", Confidence: 0.7,
			Episodes: []timeline.Episode{
				{Start: T(60), End: T(105), GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Severity: timeline.Warning,
					Evidence: "GPU0 0 % for 45 s while one core was 98 % busy writing the checkpoint"},
				{Start: T(20), End: T(40), GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Severity: timeline.Info,
					Evidence: "GPU0 0 % for 20 s"},
			}},
		{ID: timeline.HintGPUIdle, Severity: timeline.Warning, GPUs: []int{0, 1, 2, 4, 5, 6, 7}, Start: T(240), End: T(300),
			Evidence:   "GPU0-2 and GPU4-7 at 0 % with 0.5 GiB held for 60 s",
			Suggestion: "the job has ended: release the reservation", Confidence: 0.9, Provisional: true, Ongoing: true,
			Episodes: []timeline.Episode{{Start: T(240), End: T(300), GPUs: []int{0, 1, 2, 4, 5, 6, 7},
				Severity: timeline.Warning, Evidence: "GPU0-2 and GPU4-7 at 0 % with 0.5 GiB held for 60 s", Provisional: true}}},
	}
}

// ImportSamples are an nvidia-smi log as the importer gives it, and its
// description: utilisation and memory of two GPUs every 2 s, nothing else.
// Two minutes of work, then a minute idle.
func ImportSamples() ([]timeline.Sample, timeline.SourceInfo) {
	info := timeline.SourceInfo{Kind: timeline.Imported, Origin: "gpu_log.csv (nvidia-smi query CSV)", Interval: 2 * time.Second,
		GPUs: []timeline.GPUInfo{{Index: 0, Name: "NVIDIA GeForce RTX 4090", MemTotal: math.NaN(), PowerLimit: math.NaN()},
			{Index: 1, Name: "NVIDIA GeForce RTX 4090", MemTotal: math.NaN(), PowerLimit: math.NaN()}},
		Notes: []string{"times start at the log's first timestamp"}}
	var out []timeline.Sample
	for sec := 0; sec <= 180; sec += 2 {
		util := []float64{96, 11}
		if sec > 120 {
			util = []float64{0, 0}
		}
		var ms []timeline.Metric
		for gi, u := range util {
			ms = append(ms, timelinetest.Gauge(timeline.GPUUtil, timeline.GPUDevice(gi), u), timelinetest.Gauge(timeline.GPUMemUsed, timeline.GPUDevice(gi), 17.5*(1<<30)))
		}
		out = append(out, timeline.Sample{At: T(float64(sec))}.WithMetrics(ms))
	}
	return out, info
}
