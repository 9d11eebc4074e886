package timeline

import (
	"fmt"
	"math"
	"time"
)

// repAt0 is the fixed start of every report fixture.
var repAt0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func repT(sec float64) time.Time { return repAt0.Add(time.Duration(sec * float64(time.Second))) }

// repCheckpointInfo describes the demo's eight H100s running a wrapped job.
func repCheckpointInfo() SourceInfo {
	info := SourceInfo{Kind: Demo, Scenario: "checkpoint", Host: "node-a", Driver: "550.54.15", CUDA: "12.4",
		Interval: time.Second, Command: []string{"python", "train_gpt.py", "--save_steps", "100"}}
	for i := range 8 {
		info.GPUs = append(info.GPUs, GPUInfo{Index: i, Name: "NVIDIA H100 80GB HBM3", UUID: fmt.Sprintf("GPU-fixture-%d", i),
			MemTotal: 80 << 30, PowerLimit: 700, GPM: i != 7})
	}
	return info
}

// repCheckpointStore is five minutes of a checkpointing job, every number
// raw as the probes write it (energy and CPU time as counters):
//
//	0-60 s     busy: util 90-96 %, SM 70-74 %, ~550 W
//	60-105 s   rank 0 saves: GPU0 0 %, GPUs 1-7 spin at 99 % on 2 % of SMs
//	105-240 s  busy again; no samples at all from 170 to 185 s
//	240-300 s  the job has ended: GPUs idle, memory freed, host quiet
//
// GPU3 falls off the bus at 200 s; GPU7 has no SM activity (N/A). Markers
// name the job's own phases; one of them carries markdown's specials.
func repCheckpointStore() *Store {
	s := NewStore(StoreOptions{})
	energy := make([]float64, 8)
	var busy, total, wait, jobCPU float64
	coreBusy := make([]float64, 16)
	for sec := 0; sec <= 300; sec++ {
		// No samples from 170 to 185 s, but the counters go on counting.
		skip := sec > 170 && sec < 185
		smp := &Sample{At: repT(float64(sec))}
		add := func(name, dev string, kind Kind, v float64) {
			smp.Metrics = append(smp.Metrics, Metric{Key: Key{name, dev}, Kind: kind, Value: v})
		}
		saving := sec > 60 && sec <= 105
		ended := sec > 240
		for gi := range 8 {
			dev := GPUDevice(gi)
			if gi == 3 && sec >= 200 {
				smp.Probes = append(smp.Probes, ProbeStatus{Probe: "nvml", Device: dev, State: ProbeLost, Err: "GPU is lost"})
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
			add(GPUUtil, dev, Gauge, util)
			if gi != 7 {
				add(GPUSMActive, dev, Gauge, sm)
			}
			add(GPUMemUsed, dev, Gauge, mem*(1<<30))
			add(GPUMemTotal, dev, Gauge, 80<<30)
			add(GPUEnergy, dev, Counter, energy[gi])
			add(GPUPowerLimit, dev, Gauge, 700)
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
			add(CoreBusySecs, CoreDevice(c), Counter, coreBusy[c])
			add(CoreTotalSecs, CoreDevice(c), Counter, float64(sec+1))
		}
		total += 16
		wait += 0.1
		if !ended {
			jobCPU += 6.2
		}
		add(HostCPUBusySecs, HostDevice, Counter, busy)
		add(HostCPUWaitSecs, HostDevice, Counter, wait)
		add(HostCPUTotSecs, HostDevice, Counter, total)
		add(HostMemUsed, HostDevice, Gauge, 140*(1<<30)+math.Min(float64(sec), 60)*(1<<28))
		add(HostMemTotal, HostDevice, Gauge, 1024*(1<<30))
		add(HostSwapUsed, HostDevice, Gauge, 0)
		add(ProcCPUSecs, JobDevice, Counter, jobCPU)
		add(ProcRSS, JobDevice, Gauge, 18*(1<<30))
		switch sec {
		case 0:
			smp.Markers = []Marker{{At: repT(0), Text: "epoch 1", Origin: "job"}}
		case 60:
			smp.Markers = []Marker{{At: repT(60), Text: "saving checkpoint step_100", Origin: "job"}}
		case 105:
			smp.Markers = []Marker{{At: repT(105), Text: "epoch 2", Origin: "job"}}
		case 150:
			smp.Markers = []Marker{{At: repT(150), Text: "eval | acc=0.91 *best* <ok>", Origin: "mark"}}
		case 240:
			smp.Markers = []Marker{{At: repT(240), Text: "done", Origin: "job"}}
		}
		if !skip {
			s.Add(smp)
		}
	}
	return s
}

// repCheckpointHints are hints as the rules might give them, in no order.
func repCheckpointHints() []Hint {
	return []Hint{
		{ID: HintBusyWait, Severity: Info, GPUs: []int{1, 2, 3, 4, 5, 6, 7}, Start: repT(60), End: repT(105),
			Evidence:   "GPU1-7 at 99 % utilisation on 2 % of their SMs and 150 W of 700 W for 45 s",
			Suggestion: "they wait in a collective for rank 0; see periodic-stall", Confidence: 0.8},
		{ID: HintPeriodicStall, Severity: Warning, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Start: repT(60), End: repT(105),
			Evidence:   "GPU0 0 % for 45 s while one core was 98 % busy writing the checkpoint",
			Suggestion: "save asynchronously (`torch.distributed.checkpoint.async_save`) or less often", Confidence: 0.7},
		{ID: HintGPUIdle, Severity: Warning, GPUs: []int{0, 1, 2, 4, 5, 6, 7}, Start: repT(240), End: repT(300),
			Evidence:   "GPU0-2 and GPU4-7 at 0 % with 0.5 GiB held for 60 s",
			Suggestion: "the job has ended: release the reservation", Confidence: 0.9},
	}
}

// repImportStore is an nvidia-smi log as the importer gives it: utilisation
// and memory of two GPUs every 2 s, nothing else. Two minutes of work, then
// a minute idle.
func repImportStore() (*Store, SourceInfo) {
	info := SourceInfo{Kind: Imported, Origin: "gpu_log.csv (nvidia-smi query CSV)", Interval: 2 * time.Second,
		GPUs: []GPUInfo{{Index: 0, Name: "NVIDIA GeForce RTX 4090", MemTotal: math.NaN(), PowerLimit: math.NaN()},
			{Index: 1, Name: "NVIDIA GeForce RTX 4090", MemTotal: math.NaN(), PowerLimit: math.NaN()}},
		Notes: []string{"times start at the log's first timestamp"}}
	s := NewStore(StoreOptions{})
	for sec := 0; sec <= 180; sec += 2 {
		util := []float64{96, 11}
		if sec > 120 {
			util = []float64{0, 0}
		}
		smp := &Sample{At: repT(float64(sec))}
		for gi, u := range util {
			smp.Metrics = append(smp.Metrics, g(GPUUtil, GPUDevice(gi), u), g(GPUMemUsed, GPUDevice(gi), 17.5*(1<<30)))
		}
		s.Add(smp)
	}
	return s, info
}
