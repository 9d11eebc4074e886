package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Rules that compare GPUs with each other or with themselves over time:
// gpu-imbalance and periodic-stall.

// A log of power and clocks alone: one GPU of four at its idle clock and
// power while the others work is imbalance.
func TestHintGPUImbalanceFromClocks(t *testing.T) {
	htCheck(t, timeline.HintGPUImbalance, []htCase{{
		name: "one GPU of four at its idle floor",
		secs: 600,
		script: func(t *htTick) {
			for i := range 4 {
				clock, power := 1980.0, 540.0
				if i == 2 {
					clock, power = 345, 62
				}
				t.gpu(i, timeline.GPUClockSM, clock)
				t.gpu(i, timeline.GPUPower, power)
			}
		},
		gpus: []int{2}, severity: timeline.Warning,
		evidence: []string{"GPU0-1,3 busy (SM clock 1980MHz at 540W, utilisation not recorded) while GPU2"},
	}})
}

func TestHintGPUImbalance(t *testing.T) {
	htCheck(t, timeline.HintGPUImbalance, []htCase{
		{
			// Seed report 002 as the imbalance demo plays it.
			name: "GPU1 does all the work, seven idle with a context each",
			secs: 600,
			script: func(t *htTick) {
				htEvery8(func(i int) {
					if i == 1 {
						t.h100(i, 75, 28, 230, 5.3*htGiB)
					} else {
						t.h100(i, 0, 0, 70, 500<<20)
					}
				})
			},
			gpus: []int{0, 2, 3, 4, 5, 6, 7}, severity: timeline.Critical,
			evidence: []string{"GPU1 busy (75% util, SM activity 28%) while GPU0,2-7 idle (0% util, SM activity 0%, " +
				"500MiB memory held each), for 9m59s"},
			suggestion: []string{"CUDA_VISIBLE_DEVICES"},
		},
		{
			name: "one of two GPUs idle, utilisation only: a warning",
			secs: 300,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 0)
				t.gpu(0, timeline.GPUMemUsed, 18<<20)
				t.gpu(1, timeline.GPUUtil, 60)
				t.gpu(1, timeline.GPUMemUsed, 700<<20)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"they may not belong to this job"},
			maxConfidence: 0.5,
		},
		{
			// nanogpt: GPUs 0-3 stop 80s before 4-7 (staggered shutdown).
			name: "half the GPUs stop early",
			secs: 400,
			script: func(t *htTick) {
				htEvery8(func(i int) {
					u := 100.0
					if (i < 4 && t.sec >= 200) || t.sec >= 280 {
						u = 0
					}
					t.gpu(i, timeline.GPUUtil, u)
				})
			},
			gpus: []int{0, 1, 2, 3}, severity: timeline.Warning,
			evidence: []string{"GPU4-7 busy (100% util) while GPU0-3 idle (0% util), for 1m20s"},
		},
		{
			name: "every GPU equally busy-waiting",
			secs: 600,
			script: func(t *htTick) {
				htEvery8(func(i int) { t.h100(i, 100, 2, 150, 40*htGiB) })
			},
		},
		{
			// The checkpoint demo: util says GPU1-7 work while GPU0 idles,
			// SM activity says all eight wait. A stall, not an imbalance.
			name: "rank 0 idle while the others spin in a collective",
			secs: 600,
			script: func(t *htTick) {
				htEvery8(func(i int) { t.h100(i, 100, 2, 150, 40*htGiB) })
				t.h100(0, 1, 0.2, 145, 41*htGiB)
			},
		},
		{name: "a healthy 8-GPU run at 95%", secs: 600, script: htHealthy},
		{
			name: "one GPU at 75% beside seven at 95%",
			secs: 600,
			script: func(t *htTick) {
				htHealthy(t)
				t.h100(3, 75, 60, 500, 60*htGiB)
			},
		},
		{
			name: "a single GPU",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 70, 0)
			},
		},
		{
			name: "a 20s lag at startup",
			secs: 300,
			script: func(t *htTick) {
				htEvery8(func(i int) {
					u := 95.0
					if i > 0 && t.sec < 20 {
						u = 0
					}
					t.gpu(i, timeline.GPUUtil, u)
				})
			},
		},
	})
}

func TestHintPeriodicStall(t *testing.T) {
	// stalling runs 8 GPUs at 95% and stalls them for stall seconds every
	// period, from 30s in; rank0 makes GPU0 idle and GPU1-7 spin.
	stalling := func(stall, period int, rank0 bool) func(t *htTick) {
		return func(t *htTick) {
			in := t.sec >= 30 && (t.sec-30)%period < stall
			htEvery8(func(i int) {
				switch {
				case !in:
					t.gpu(i, timeline.GPUUtil, 95)
					t.gpu(i, timeline.GPUPower, 550)
				case rank0 && i > 0:
					t.gpu(i, timeline.GPUUtil, 100)
					t.gpu(i, timeline.GPUPower, 150)
				default:
					t.gpu(i, timeline.GPUUtil, 2)
					t.gpu(i, timeline.GPUPower, 145)
				}
			})
			if in {
				t.put(timeline.HostDiskWrite, timeline.HostDevice, 1.6e9)
			} else {
				t.put(timeline.HostDiskWrite, timeline.HostDevice, 2e6)
			}
		}
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	// 30 dips of 5s at random moments of 20m: on average one every
	// 40s, but with no period (their spacing varies as much as it is long).
	rng := rand.New(rand.NewPCG(1, 2))
	dips := make([]int, 30)
	for k := range dips {
		dips[k] = rng.IntN(1190)
	}
	htCheck(t, timeline.HintPeriodicStall, []htCase{
		{
			name: "every GPU stops 30s every 2m",
			secs: 600, script: stalling(30, 120, false),
			gpus: all, severity: timeline.Warning,
			evidence:   []string{"GPU0-7 stall for 30s every 2m, 25% of the time (5 stalls over", "the host writes 1.60GB/s to disk during them"},
			suggestion: []string{"every 2m", "asynchronous"},
		},
		{
			// llama8b and the checkpoint demo: rank 0 saves, the rest spin.
			name: "GPU0 idle while GPU1-7 spin, 45s every 2m",
			secs: 600, script: stalling(45, 120, true),
			gpus: all, severity: timeline.Warning,
			evidence:   []string{"GPU0 idle (2% util) while GPU1-7 wait at 100% util, 150W (spinning in a collective)"},
			suggestion: []string{"GPU0 stops every 2m and the others wait for it", "rank 0"},
		},
		{
			name: "stalls that take most of the time: critical",
			secs: 600, script: stalling(70, 120, false),
			gpus: all, severity: timeline.Critical,
		},
		{
			name: "a 2s dip every minute",
			secs: 900, script: stalling(2, 60, false),
		},
		{
			name: "a 4s dip every minute (7%)",
			secs: 900, script: stalling(4, 60, false),
		},
		{
			name: "5s dips at random moments",
			secs: 1200,
			script: func(t *htTick) {
				u := 95.0
				for _, d := range dips {
					if t.sec >= d && t.sec < d+5 {
						u = 0
					}
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
		},
		{
			name: "three stalls within a minute, then none",
			secs: 600, script: func(t *htTick) {
				u := 95.0
				if t.sec >= 100 && t.sec < 160 && t.sec%20 < 6 {
					u = 0
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
		},
		{
			name: "a 4s stall every 6s is a per-step sawtooth",
			secs: 600, script: stalling(4, 6, false),
		},
		{
			name: "a blip of light work every 20s on an idle GPU",
			secs: 900,
			script: func(t *htTick) {
				u := 0.0
				if t.sec%20 < 2 {
					u = 17
				}
				t.gpu(0, timeline.GPUUtil, u)
			},
		},
	})
}

// TestHintPeriodicNearMisses: what looks like a period and is not. A
// period needs at least three stalls, at a steady spacing (or after steady
// work), alike in length, none outlasting the spacing.
func TestHintPeriodicNearMisses(t *testing.T) {
	// stallsAt runs one GPU at 95% with 22GiB held, at 0% in the stalls
	// (start, length in seconds).
	stallsAt := func(stalls ...[2]int) func(t *htTick) {
		return func(t *htTick) {
			u := 95.0
			for _, st := range stalls {
				if t.sec >= st[0] && t.sec < st[0]+st[1] {
					u = 0
				}
			}
			t.h100(0, u, u*0.8, 150+4*u, 22*htGiB)
		}
	}
	htCheck(t, timeline.HintPeriodicStall, []htCase{
		{
			name: "three 30s stalls 2m apart: the least that is periodic",
			secs: 600, script: stallsAt([2]int{120, 30}, [2]int{240, 30}, [2]int{360, 30}),
			gpus: []int{0}, severity: timeline.Warning,
			evidence: []string{"GPU0 stalls for 30s every 2m, 25% of the time (3 stalls over"},
		},
		{
			name: "two stalls",
			secs: 900, script: stallsAt([2]int{120, 60}, [2]int{420, 60}),
		},
		{
			name: "irregular gaps: 2m, 5m, 1m, 4m",
			secs: 1500, script: stallsAt([2]int{60, 30}, [2]int{180, 30}, [2]int{480, 30}, [2]int{540, 30}, [2]int{780, 30}),
		},
		{
			name: "a steady spacing, lengths all over: 10s, 70s, 15s, 90s",
			secs: 900, script: stallsAt([2]int{60, 10}, [2]int{180, 70}, [2]int{300, 15}, [2]int{420, 90}),
		},
		{
			// A real 6.8h log, shortened: short dips, one 26-minute stop
			// with 22GB held at 0%, then an idle tail. Once read as
			// "every 12 min, stalls 180-1620 s".
			name: "one long stall among short ones",
			secs: 7200, script: stallsAt([2]int{720, 180}, [2]int{1440, 200}, [2]int{2160, 1620}, [2]int{4500, 2700}),
		},
	})
}

// The long stop of the near miss above is its own finding: idle-memory-held
// with its start, end and size as an episode, the largest first.
func TestHintLongStallIsIdleMemoryHeld(t *testing.T) {
	hints := htRun(7200, func(t *htTick) {
		u, mem := 95.0, 22.0*htGiB
		switch {
		case t.sec >= 2160 && t.sec < 2160+1560:
			u = 0
		case t.sec >= 4500:
			u, mem = 0, 0 // the job is gone
		}
		t.h100(0, u, u*0.8, 150+4*u, mem)
		t.cores(htCoreSet(16, 2)...)
	})
	held := htFind(hints, timeline.HintIdleMemoryHeld)
	if len(held) != 1 || len(held[0].Episodes) != 1 {
		t.Fatalf("want one idle-memory-held hint of one episode:\n%s", htDump(hints))
	}
	ep := held[0].Episodes[0]
	if got, want := ep.Start.Sub(htT0), 2160*time.Second; got != want {
		t.Errorf("the episode starts %v in, want %v", got, want)
	}
	if got, want := ep.End.Sub(htT0), 3720*time.Second; got != want {
		t.Errorf("the episode ends %v in, want %v", got, want)
	}
	if !strings.Contains(ep.Evidence, "GPU0 holds 22.0GiB") || !strings.Contains(ep.Evidence, "for 26m") {
		t.Errorf("evidence %q", ep.Evidence)
	}
	if idle := htFind(hints, timeline.HintGPUIdle); len(idle) != 1 || idle[0].Start.Sub(htT0) != 4500*time.Second {
		t.Errorf("want the idle tail as gpu-idle from 1h15m:\n%s", htDump(hints))
	}
	if len(htFind(hints, timeline.HintPeriodicStall)) > 0 {
		t.Errorf("periodic-stall:\n%s", htDump(hints))
	}
}
