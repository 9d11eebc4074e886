package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

var htNaN = math.NaN()

func TestHintGPUIdle(t *testing.T) {
	htCheck(t, timeline.HintGPUIdle, []htCase{
		{
			name: "util near 50% with SM activity near 1% is not idle",
			secs: 900,
			script: func(t *htTick) {
				t.h100(0, float64(45+t.sec%10), 1, 120, 0)
			},
		},
		{
			// A log of power and clocks alone (no utilisation column):
			// the clock at its idle floor and idle power, all run.
			name: "clock and power alone: at the idle floor",
			secs: 900,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUClockSM, 345)
				t.gpu(0, timeline.GPUPower, 62)
			},
			gpus: []int{0}, severity: timeline.Info,
			evidence: []string{"GPU0 SM clock 345MHz at 62W, utilisation not recorded"},
		},
		{
			name: "eight GPUs with nothing on them for 10m",
			secs: 600,
			script: func(t *htTick) {
				htEvery8(func(i int) { t.h100(i, 0, 0, 68, 0.3*htGiB) })
			},
			gpus: []int{0, 1, 2, 3, 4, 5, 6, 7}, severity: timeline.Info,
			evidence:   []string{"GPU0-7 0% util, SM activity 0%", "307MiB memory used", "at 68W", "for 9m59s"},
			suggestion: []string{"job ended or never started"},
		},
		{
			// vgg16's dmon log: no memory column; the idle tail says so.
			name: "a monitor that outlived its job, memory not logged",
			secs: 1800,
			script: func(t *htTick) {
				if t.sec < 60 {
					t.gpu(0, timeline.GPUUtil, 99)
					t.gpu(0, timeline.GPUPower, 240)
					return
				}
				t.gpu(0, timeline.GPUUtil, 0)
				t.gpu(0, timeline.GPUPower, 21)
			},
			gpus: []int{0}, severity: timeline.Info,
			evidence:      []string{"GPU0 0% util, at 21W, for 29m", "memory use not recorded"},
			maxConfidence: 0.6,
		},
		{
			name: "four minutes idle is not a long stretch, only a provisional reading",
			secs: 240, provisional: true,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 68, 0)
			},
		},
		{
			name: "idle with 20GiB held is idle-memory-held, not gpu-idle",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 72, 20*htGiB)
			},
		},
		{
			// unet_optuna: a 2s sample at 17% every 20s. Little work,
			// but work: low-utilization, not a GPU with nothing on it.
			name: "a little work every 20s is not idle",
			secs: 1800,
			script: func(t *htTick) {
				u := 0.0
				if t.sec%20 < 2 {
					u = 17
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
		},
		{
			name: "an idle GPU beside busy ones is gpu-imbalance's",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 95, 80, 600, 60*htGiB)
				t.h100(1, 0, 0, 68, 0.3*htGiB)
			},
		},
	})
}

func TestHintIdleMemoryHeld(t *testing.T) {
	fallback := func(t *htTick) {
		t.h100(0, 1, 0.3, 75, 20.5*htGiB)
		t.cores(htCoreSet(32, 2, 99, 25, 25, 25)...)
	}
	htCheck(t, timeline.HintIdleMemoryHeld, []htCase{
		{
			// Seed report 000: the model on cuda, the batches on the CPU.
			name: "memory held, SMs idle, one core pegged: critical",
			secs: 600, script: fallback,
			gpus: []int{0}, severity: timeline.Critical,
			evidence:   []string{"GPU0 holds 20.5GiB at 1% util, SM activity 0.3% and 75W, for 9m59s", "one host core runs at 99%"},
			suggestion: []string{"computes on the CPU", ".to(device"},
		},
		{
			name: "memory held, host idle: an idle server, info",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 75, 20*htGiB)
				t.cores(htCoreSet(32, 2)...)
			},
			gpus: []int{0}, severity: timeline.Info,
			evidence:   []string{"host CPU 2%"},
			suggestion: []string{"inference server waiting for requests"},
		},
		{
			name: "memory held, no host data: a warning naming the causes",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 75, 20*htGiB)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"no host CPU data"},
			maxConfidence: 0.6,
		},
		{
			name: "90s is not sustained, only a provisional reading",
			secs: 90, script: fallback, provisional: true,
		},
		{
			name: "a CUDA context alone (500MiB) is not held memory",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 70, 500<<20)
			},
		},
		{
			name: "no memory data: silent",
			secs: 600,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 0)
				t.cores(htCoreSet(32, 2, 99)...)
			},
		},
		{
			name: "busy GPU with memory held",
			secs: 600,
			script: func(t *htTick) {
				htHealthy(t)
			},
		},
	})
}

func TestHintLowUtilization(t *testing.T) {
	htCheck(t, timeline.HintLowUtilization, []htCase{
		{
			// Seed report 004: 11% busy, small batches, no host data.
			name: "steady 11% with no host data",
			secs: 600,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, float64(10+t.sec%5))
				t.gpu(0, timeline.GPUMemUsed, 8*htGiB)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"GPU0 util averages 12%", "ranging 10-14%", "no host CPU data"},
			suggestion:    []string{"raise the batch size", "cannot be ruled out"},
			maxConfidence: 0.5,
		},
		{
			// unet_optuna: a short burst every 20s on an H200.
			name: "sparse bursts, under 10% on average: critical",
			secs: 1800,
			script: func(t *htTick) {
				u := 0.0
				if t.sec%20 < 2 {
					u = 17
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
			gpus: []int{0}, severity: timeline.Critical,
			evidence: []string{"util averages 1.7%", "idle 90% of the time, in bursts of 17%"},
		},
		{
			// Launch-bound: a kernel half the time, on 1% of the SMs. A GPU
			// barely used, not an idle one: both numbers, and never gpu-idle.
			name: "util near 50% with SM activity near 1%",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, float64(45+t.sec%10), 1, 120, 6*htGiB)
				t.cores(htCoreSet(16, 5)...)
			},
			gpus: []int{0}, severity: timeline.Critical,
			evidence:   []string{"GPU0 SM activity averages 1% (util 50%)"},
			suggestion: []string{"keep few SMs busy"},
		},
		{
			// The imbalance demo's GPU1: a kernel always running, few SMs.
			name: "util 75% but 28% of SMs busy, host quiet",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 75, 28, 230, 5*htGiB)
				t.cores(htCoreSet(32, 3, 40)...)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:   []string{"SM activity averages 28% (util 75%)", "host CPU 4.2% (busiest core 40%): no host cause visible"},
			suggestion: []string{"few SMs busy"},
		},
		{
			name:   "a healthy 8-GPU run at 95%",
			secs:   1200,
			script: htHealthy,
		},
		{
			// Seed report 001: a validation phase at 30-40% is normal.
			name: "a 50s validation phase at 40% every 7m",
			secs: 1800,
			script: func(t *htTick) {
				if t.sec%420 >= 180 && t.sec%420 < 230 {
					htEvery8(func(i int) { t.h100(i, 40, 25, 300, 60*htGiB) })
					return
				}
				htHealthy(t)
			},
		},
		{
			// ollama dmon: request-driven inference. Whenever a prompt
			// comes the GPU saturates; between prompts it waits for the
			// client. Not a bottleneck of this machine: silent.
			name: "request-driven bursts at 95% with think time between",
			secs: 900,
			script: func(t *htTick) {
				u := 2.0
				if t.sec%11 < 6 {
					u = 95
				}
				t.gpu(0, timeline.GPUUtil, u)
				t.gpu(0, timeline.GPUPower, 20+u)
			},
		},
		{
			name: "the job only starting at the end of the window",
			secs: 150,
			script: func(t *htTick) {
				u := 0.0
				if t.sec > 110 {
					u = 45
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
		},
		{
			name: "a sawtooth with the host busy is input-bound's",
			secs: 600,
			script: func(t *htTick) {
				u := 0.0
				if htSawtooth(t.sec, 2, 6) {
					u = 40
				}
				t.h100(0, u, u, 300, 20*htGiB)
				t.cores(htCoreSet(32, 80)...)
			},
		},
	})
}

func TestHintBusyWait(t *testing.T) {
	// ckpt runs 8 GPUs at 90%; from 120s for wait seconds GPU0 idles
	// and GPUs 1-7 spin at util, sm, power.
	ckpt := func(wait int, util, sm, power float64, withLimit bool) func(t *htTick) {
		return func(t *htTick) {
			waiting := t.sec >= 120 && t.sec < 120+wait
			htEvery8(func(i int) {
				u, m, p := 90.0, 70.0, 550.0
				switch {
				case waiting && i == 0:
					u, m, p = 2, 0.5, 145
				case waiting:
					u, m, p = util, sm, power
				}
				t.gpu(i, timeline.GPUUtil, u)
				t.gpu(i, timeline.GPUSMActive, m)
				t.gpu(i, timeline.GPUPower, p)
				if withLimit {
					t.gpu(i, timeline.GPUPowerLimit, 700)
				}
			})
		}
	}
	gpus17 := []int{1, 2, 3, 4, 5, 6, 7}
	htCheck(t, timeline.HintBusyWait, []htCase{
		{
			name: "GPU1-7 at 100% util, 2% SM, 150W for 60s",
			secs: 600, script: ckpt(60, 100, 2, 150, true),
			gpus: gpus17, severity: timeline.Warning,
			evidence:   []string{"GPU1-7 100% util at 150W (21% of the 700W limit), SM activity 2%, for 1m"},
			suggestion: []string{"waiting in a collective"},
		},
		{
			// llama8b's log: util and power only, no limit. Power against
			// the 550W these GPUs draw when working gives it away.
			name: "util and power only, no limit",
			secs: 600, script: ckpt(60, 100, htNaN, 150, false),
			gpus: gpus17, severity: timeline.Warning,
			evidence:      []string{"at 150W (27% of the 550W they draw when working)"},
			maxConfidence: 0.65,
		},
		{
			name: "six minutes spinning: a hung collective, critical",
			secs: 900, script: ckpt(360, 100, 2, 150, true),
			gpus: gpus17, severity: timeline.Critical,
		},
		{
			// vlm_llava: memory-bound decode at 96% draws 300 of 450W.
			name: "busy at 96% util and two thirds of the limit",
			secs: 600,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 96)
				t.gpu(0, timeline.GPUPower, 300)
				t.gpu(0, timeline.GPUPowerLimit, 450)
			},
		},
		{
			name: "utilisation alone cannot tell",
			secs: 600, script: ckpt(60, 100, htNaN, htNaN, false),
		},
		{
			name: "a 10s wait is not a hint",
			secs: 600, script: ckpt(10, 100, 2, 150, true),
		},
		{
			name: "every GPU spinning at once",
			secs: 600,
			script: func(t *htTick) {
				htEvery8(func(i int) { t.h100(i, 100, 2, 150, 40*htGiB) })
			},
			gpus: []int{0, 1, 2, 3, 4, 5, 6, 7}, severity: timeline.Critical,
		},
	})
}

func TestHintPCIeBound(t *testing.T) {
	copying := func(bytes, sm float64) func(t *htTick) {
		return func(t *htTick) {
			t.h100(0, 60, sm, 250, 30*htGiB)
			t.gpu(0, timeline.GPUPCIeRx, bytes)
			t.gpu(0, timeline.GPUPCIeTx, bytes/10)
		}
	}
	htCheck(t, timeline.HintPCIeBound, []htCase{
		{
			name: "12GB/s while 8% of SMs work",
			secs: 300, script: copying(12e9, 8),
			gpus: []int{0}, severity: timeline.Warning,
			evidence:   []string{"GPU0 moves 13.2GB/s over PCIe", "SM activity 8%"},
			suggestion: []string{"pinned memory"},
		},
		{name: "12GB/s while the SMs are busy", secs: 300, script: copying(12e9, 80)},
		{name: "3GB/s", secs: 300, script: copying(3e9, 8)},
		{name: "no PCIe counters", secs: 300, script: copying(htNaN, 8)},
	})
}

// Advice about collectives (NCCL, gloo, ranks) is for a job of more than
// one GPU: a single GPU has nothing to all-reduce or wait for.
func TestCollectiveAdviceNeedsGPUs(t *testing.T) {
	for _, c := range []struct {
		id   string
		gpus int
		gpu  func(t *htTick, i int)
		want bool // the advice names NCCL
	}{
		{timeline.HintLowUtilization, 1, func(t *htTick, i int) { t.h100(i, 30, 25, 250, 40*htGiB) }, false},
		{timeline.HintLowUtilization, 2, func(t *htTick, i int) { t.h100(i, 30, 25, 250, 40*htGiB) }, true},
		{timeline.HintBusyWait, 1, func(t *htTick, i int) { t.h100(i, 100, 2, 150, 40*htGiB) }, false},
		{timeline.HintBusyWait, 2, func(t *htTick, i int) { t.h100(i, 100, 2, 150, 40*htGiB) }, true},
	} {
		got := htFind(htRun(600, func(t *htTick) {
			for i := range c.gpus {
				c.gpu(t, i)
			}
		}), c.id)
		if len(got) == 0 {
			t.Errorf("%s on %d GPUs: no hint", c.id, c.gpus)
			continue
		}
		if has := strings.Contains(got[0].Suggestion, "NCCL"); has != c.want {
			t.Errorf("%s on %d GPUs: names NCCL %v, want %v: %q", c.id, c.gpus, has, c.want, got[0].Suggestion)
		}
	}
}
