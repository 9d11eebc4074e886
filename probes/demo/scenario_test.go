package demo

import (
	"fmt"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// Each scenario, recorded for ten simulated minutes at 1 s through the real
// NVML probe, must show its signature in the numbers gputop derives: what a
// user would see on the screen, and what the hints work from.

const signatureTicks = 600

// signatureSeeds are the seeds every signature must hold for: the default
// and a couple of others, since the seed moves phases and picks hot GPUs.
var signatureSeeds = []int64{1, 7, 2025}

func forEachSeed(t *testing.T, scenario string, check func(t *testing.T, r *demoRun)) {
	for _, seed := range signatureSeeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			check(t, recordDemo(t, scenario, seed, signatureTicks))
		})
	}
}

func TestScenarioTraining(t *testing.T) {
	forEachSeed(t, "training", func(t *testing.T, r *demoRun) {
		for g := range demoGPUs {
			if s := summarize(r.gpu(timeline.GPUUtil, g)); s.mean <= 85 {
				t.Errorf("gpu%d: mean util %.1f %%, want > 85 for healthy training", g, s.mean)
			}
			if s := summarize(r.gpu(timeline.GPUThrottle, g)); s.max != 0 {
				t.Errorf("gpu%d: throttle bits %v, want none", g, s.max)
			}
		}
		util := r.gpu(timeline.GPUUtil, 0)
		// The validation phase: one stretch of 40-60 s well below training.
		val := runs(util, func(v float64) bool { return v < 60 })
		if long := filterRuns(val, 40, 60); len(long) != 1 {
			t.Errorf("validation phases (40-60 s under 60 %%): %v, want exactly one in 10 min", val)
		}
		// Step-boundary dips: short, visible in the tick's minimum, and harmless
		// (the tick's mean stays high around them).
		dips := runs(r.gpu(timeline.GPUUtilMin, 0), func(v float64) bool { return v < 45 })
		if short := filterRuns(dips, 1, 3); len(short) < 8 {
			t.Errorf("step-boundary dips (1-3 s with util.min < 45): %d, want one every ~45 s", len(short))
		}
		if s := summarize(r.series(timeline.HostCPU, timeline.HostDevice)); s.mean < 35 || s.mean > 65 {
			t.Errorf("host CPU mean %.1f %%, want moderate (35-65)", s.mean)
		}
	})
}

func TestScenarioInputBound(t *testing.T) {
	forEachSeed(t, "input-bound", func(t *testing.T, r *demoRun) {
		for g := range demoGPUs {
			if s := summarize(r.gpu(timeline.GPUUtil, g)); s.mean < 20 || s.mean > 40 {
				t.Errorf("gpu%d: mean util %.1f %%, want 20-40", g, s.mean)
			}
		}
		// The sawtooth: a burst every 4.5-6.5 s (1-2 s busy, 3-5 s idle).
		bursts := runs(r.gpu(timeline.GPUUtilMax, 0), func(v float64) bool { return v > 90 })
		if n := len(bursts); n < signatureTicks/7 || n > signatureTicks/4 {
			t.Errorf("%d bursts in %d s, want one every 4.5-6.5 s", n, signatureTicks)
		}
		if idle := runs(r.gpu(timeline.GPUUtil, 0), func(v float64) bool { return v < 1 }); len(filterRuns(idle, 2, 5)) < len(bursts)/2 {
			t.Errorf("idle gaps of 2-5 whole seconds: %d, want most gaps between %d bursts", len(idle), len(bursts))
		}
		if s := summarize(r.series(timeline.CoreBusy, timeline.CoreDevice(0))); s.mean <= 95 {
			t.Errorf("cpu0 (the main process) mean %.1f %%, want pegged > 95", s.mean)
		}
		busyCores := 0
		for c := 1; c < demoCores; c++ {
			if s := summarize(r.series(timeline.CoreBusy, timeline.CoreDevice(c))); s.mean >= 70 && s.mean <= 90 {
				busyCores++
			}
		}
		if busyCores < 16 {
			t.Errorf("%d loader cores at 70-90 %%, want many (>= 16)", busyCores)
		}
		if s := summarize(r.series(timeline.HostIOWait, timeline.HostDevice)); s.mean < 2 || s.mean > 8 {
			t.Errorf("iowait mean %.1f %%, want a few %%", s.mean)
		}
	})
}

func TestScenarioImbalance(t *testing.T) {
	forEachSeed(t, "imbalance", func(t *testing.T, r *demoRun) {
		if s := summarize(r.gpu(timeline.GPUUtil, imbalanceBusyGPU)); s.mean <= 60 {
			t.Errorf("gpu1: mean util %.1f %%, want > 60", s.mean)
		}
		if s := summarize(r.gpu(timeline.GPUSMActive, imbalanceBusyGPU)); s.mean < 20 || s.mean > 35 {
			t.Errorf("gpu1: mean SM activity %.1f %%, want ~28", s.mean)
		}
		for g := range demoGPUs {
			if g == imbalanceBusyGPU {
				continue
			}
			if s := summarize(r.gpu(timeline.GPUUtil, g)); s.mean >= 5 {
				t.Errorf("gpu%d: mean util %.1f %%, want < 5 (idle)", g, s.mean)
			}
			if s := summarize(r.gpu(timeline.GPUMemUsed, g)); s.mean < 400e6 || s.mean > 600e6 {
				t.Errorf("gpu%d: memory %.0f MB, want ~500 MB held", g, s.mean/1e6)
			}
			if s := summarize(r.gpu(timeline.GPUPower, g)); s.max > 80 {
				t.Errorf("gpu%d: power up to %.0f W, want idle", g, s.max)
			}
		}
	})
}

func TestScenarioCPUFallback(t *testing.T) {
	forEachSeed(t, "cpu-fallback", func(t *testing.T, r *demoRun) {
		if s := summarize(r.gpu(timeline.GPUMemUsed, 0)); s.min <= 10e9 {
			t.Errorf("gpu0: memory %.1f GB, want > 10 GB allocated", s.min/1e9)
		}
		if s := summarize(r.gpu(timeline.GPUUtil, 0)); s.mean >= 3 || s.max > 10 {
			t.Errorf("gpu0: util mean %.2f max %.1f %%, want < 3 (SM near 0)", s.mean, s.max)
		}
		if s := summarize(r.gpu(timeline.GPUSMActive, 0)); s.mean >= 1 {
			t.Errorf("gpu0: SM activity %.2f %%, want near 0", s.mean)
		}
		for g := 1; g < demoGPUs; g++ {
			if s := summarize(r.gpu(timeline.GPUMemUsed, g)); s.max != 0 {
				t.Errorf("gpu%d: memory %.0f B, want empty", g, s.max)
			}
		}
		if s := summarize(r.series(timeline.CoreBusy, timeline.CoreDevice(0))); s.mean <= 95 {
			t.Errorf("cpu0 mean %.1f %%, want the job's thread pegged", s.mean)
		}
		job := processCPU(r, 4100)
		if s := summarize(job); s.min < 100 {
			t.Errorf("job process CPU %.0f-%.0f %%, want at least a whole core", s.min, s.max)
		}
	})
}

func TestScenarioThrottle(t *testing.T) {
	forEachSeed(t, "throttle", func(t *testing.T, r *demoRun) {
		hot := 0
		for g := range demoGPUs {
			if s := summarize(r.gpu(timeline.GPUUtil, g)); s.mean < 95 {
				t.Errorf("gpu%d: util %.1f %%, want ~99", g, s.mean)
			}
			throttle := summarize(r.gpu(timeline.GPUThrottle, g))
			if r.demo.sc.hot[g] {
				hot++
				if temp := summarize(r.gpu(timeline.GPUTemp, g)); temp.min < 85 || temp.max > 90 {
					t.Errorf("gpu%d (hot): %.0f-%.0f °C, want 85-90", g, temp.min, temp.max)
				}
				if !allBits(r.gpu(timeline.GPUThrottle, g), timeline.ThrottleSWThermal) {
					t.Errorf("gpu%d (hot): thermal slowdown not set on every tick (max bits %v)", g, throttle.max)
				}
				if clk := summarize(r.gpu(timeline.GPUClockSM, g)); clk.max >= 1500 {
					t.Errorf("gpu%d (hot): SM clock up to %.0f MHz, want below the capped GPUs'", g, clk.max)
				}
				continue
			}
			if !allBits(r.gpu(timeline.GPUThrottle, g), timeline.ThrottlePowerCap) {
				t.Errorf("gpu%d: power cap bit not set on every tick", g)
			}
			if p := summarize(r.gpu(timeline.GPUPower, g)); p.min < 0.98*h100PowerLimit || p.max > h100PowerLimit {
				t.Errorf("gpu%d: power %.1f-%.1f W, want within 2 %% under the 700 W limit", g, p.min, p.max)
			}
			if clk := summarize(r.gpu(timeline.GPUClockSM, g)); clk.min < 1500 || clk.max > 1700 {
				t.Errorf("gpu%d: SM clock %.0f-%.0f MHz, want pulled down to 1500-1700", g, clk.min, clk.max)
			}
		}
		if hot != 2 {
			t.Errorf("%d hot GPUs, want 2", hot)
		}
	})
}

func TestScenarioCheckpoint(t *testing.T) {
	forEachSeed(t, "checkpoint", func(t *testing.T, r *demoRun) {
		// A stall tick: GPU0 near idle while GPUs 1-7 read ~100 % at low power.
		stalled := make([]float64, signatureTicks)
		for i := range stalled {
			stalled[i] = 1
			if !(r.gpu(timeline.GPUUtil, 0)[i] < 10) {
				stalled[i] = 0
			}
			for g := 1; g < demoGPUs; g++ {
				if !(r.gpu(timeline.GPUUtil, g)[i] >= 99 && r.gpu(timeline.GPUPower, g)[i] < 200) {
					stalled[i] = 0
				}
			}
		}
		stalls := filterRuns(runs(stalled, func(v float64) bool { return v == 1 }), 35, 55)
		if len(stalls) < 4 || len(stalls) > 5 {
			t.Fatalf("stalls of 35-55 s: %v, want one every ~2 min", stalls)
		}
		for i := 1; i < len(stalls); i++ {
			if gap := stalls[i].start - stalls[i-1].start; gap < 90 || gap > 150 {
				t.Errorf("stalls %d s apart, want ~120", gap)
			}
		}
		for _, s := range stalls {
			mid := s.start + s.length/2
			for g := 1; g < demoGPUs; g++ {
				if sm := r.gpu(timeline.GPUSMActive, g)[mid]; sm >= 5 {
					t.Errorf("gpu%d at %d s (stalled): SM activity %.1f %%, want near 0 while util reads 100", g, mid, sm)
				}
			}
			if w := r.series(timeline.HostDiskWrite, timeline.HostDevice)[mid]; w < 1e9 {
				t.Errorf("disk write at %d s (stalled) %.2f GB/s, want the checkpoint streaming out", mid, w/1e9)
			}
		}
		// Between stalls, every GPU computes.
		busy := 0
		for i := range stalled {
			if i > 0 && stalled[i] == 0 && r.gpu(timeline.GPUUtil, 0)[i] > 70 && r.gpu(timeline.GPUPower, 0)[i] > 450 {
				busy++
			}
		}
		if busy < signatureTicks/3 {
			t.Errorf("%d ticks with GPU0 computing (>70 %%, >450 W), want most of the time between stalls", busy)
		}
	})
}

// run is a stretch of consecutive ticks that meet a condition.
type run struct{ start, length int }

func runs(xs []float64, cond func(float64) bool) []run {
	var out []run
	for i, x := range xs {
		switch {
		case !cond(x):
		case len(out) > 0 && out[len(out)-1].start+out[len(out)-1].length == i:
			out[len(out)-1].length++
		default:
			out = append(out, run{start: i, length: 1})
		}
	}
	return out
}

func filterRuns(rs []run, minLen, maxLen int) []run {
	var out []run
	for _, r := range rs {
		if r.length >= minLen && r.length <= maxLen {
			out = append(out, r)
		}
	}
	return out
}

// allBits says whether every known value of a throttle series has bit set.
func allBits(xs []float64, bit uint64) bool {
	for _, x := range xs {
		if x == x && uint64(x)&bit == 0 {
			return false
		}
	}
	return true
}

// processCPU is a PID's CPU % on each slow-tier tick that knew it.
func processCPU(r *demoRun, pid int) []float64 {
	var out []float64
	for _, ps := range r.procs {
		for _, p := range ps {
			if p.PID == pid {
				out = append(out, p.CPU)
				break
			}
		}
	}
	return out
}
