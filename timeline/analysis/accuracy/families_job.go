package accuracy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// The families that need what only gputop's own recordings hold: the job's
// progress (from its output), Xid markers and PCIe link state (from NVML),
// and sessions of several hosts.

// progressAt is the job's progress as the recorder keeps it: a point every
// 5 s of a job that has started, done(sec) units done by then.
func progressAt(s *timeline.Sample, sec float64, started bool, done func(sec float64) float64) {
	if !started || sec != math.Trunc(sec) || int(sec)%5 != 0 {
		return
	}
	s.Progress = append(s.Progress, timeline.Progress{At: s.At, Done: done(sec), Rate: math.NaN(), Unit: "it", Origin: "job"})
}

// hostsOf names n hosts.
func hostsOf(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("node%d", i+1)
	}
	return out
}

// gpusOfHost are host k's GPUs, session-wide: every family of several
// hosts gives each two.
func gpusOfHost(k int) []int { return []int{2 * k, 2*k + 1} }

var oneOrTwo = []time.Duration{time.Second, 2 * time.Second}

var jobFamilies = []family{
	{name: "throughput-drop", hint: timeline.HintThroughputDrop, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 10 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			at, after := []float64{180, 240, 300}[i%3], []float64{30, 20, 12}[i/3%3]
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead { return busy(r) }
			run.more = func(sec float64, s *timeline.Sample) {
				progressAt(s, sec, true, func(t float64) float64 { return 50*min(t, at) + after*max(0, t-at) })
			}
			return []Label{{ID: timeline.HintThroughputDrop, From: time.Duration(at) * time.Second, To: run.Length}}, nil,
				fmt.Sprintf("50 it/s, then %.0f it/s from %.0fs in while every GPU stays busy", after, at)
		}},
	{name: "progress-stalled", hint: timeline.HintProgressStalled, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			at, long := []float64{180, 240, 300}[i%3], []float64{60, 120, 240}[i/3%3]
			stalled := func(t float64) bool { return t >= at && t < at+long }
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				if stalled(sec) {
					return idle(r, 48*1024)
				}
				return busy(r)
			}
			run.more = func(sec float64, s *timeline.Sample) {
				progressAt(s, sec, true, func(t float64) float64 { return 50 * (t - max(0, min(t, at+long)-at)) })
			}
			return []Label{{ID: timeline.HintProgressStalled, From: time.Duration(at) * time.Second, To: time.Duration(at+long) * time.Second}},
				[]string{timeline.HintIdleMemoryHeld},
				fmt.Sprintf("50 it/s; from %.0fs in no progress for %.0fs while the GPUs idle holding their memory", at, long)
		}},
	{name: "warm-up", hint: timeline.HintWarmUp, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			ready := []float64{75, 120, 180, 240}[i%4]
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				if sec < ready {
					return idle(r, 500)
				}
				return busy(r)
			}
			run.more = func(sec float64, s *timeline.Sample) {
				progressAt(s, sec, sec >= ready, func(t float64) float64 { return 50 * (t - ready) })
			}
			return []Label{{ID: timeline.HintWarmUp, From: 0, To: time.Duration(ready) * time.Second}}, nil,
				fmt.Sprintf("start-up for %.0fs (GPUs idle, no progress), then 50 it/s", ready)
		}},
	{name: "gpu-error", hint: timeline.HintGPUError, n: 22, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 8 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			code := []int{13, 31, 43, 48, 63, 64, 74, 79, 92, 94, 95}[i%11]
			bad, at := i%run.GPUs, []float64{100, 200, 300}[i%3]
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead { return busy(r) }
			run.more = func(sec float64, s *timeline.Sample) {
				if sec == at {
					s.Markers = append(s.Markers, timeline.Marker{At: s.At, Text: xid.MarkerText(bad, code), Origin: timeline.XidOrigin})
				}
			}
			return []Label{{ID: timeline.HintGPUError, GPUs: []int{bad}, From: time.Duration(at) * time.Second, To: run.Length}}, nil,
				fmt.Sprintf("training; the driver reports Xid %d on GPU%d at %.0fs", code, bad, at)
		}},
	{name: "link-degraded", hint: timeline.HintLinkDegraded, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 8 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			narrow, gen := i%run.GPUs, i%2 == 1
			n := run.GPUs
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead { return busy(r) }
			run.more = func(_ float64, s *timeline.Sample) {
				ms := s.Metrics()
				for g := range n {
					dev := timeline.GPUDevice(g)
					cur, width := 5.0, 16.0
					if g == narrow && gen {
						cur = 3
					} else if g == narrow {
						width = 8
					}
					ms = append(ms, gauge(timeline.GPUPCIeGen, dev, cur), gauge(timeline.GPUPCIeGenMax, dev, 5),
						gauge(timeline.GPUPCIeWidth, dev, width), gauge(timeline.GPUPCIeWidthMax, dev, 16))
				}
				s.SetMetrics(ms)
			}
			what := "x8 of x16"
			if gen {
				what = "Gen3 of Gen5"
			}
			return []Label{{ID: timeline.HintLinkDegraded, GPUs: []int{narrow}, From: 0, To: run.Length}}, nil,
				fmt.Sprintf("training; GPU%d's PCIe link at %s", narrow, what)
		}},
	{name: "host-idle", hint: timeline.HintHostIdle, n: 20, formats: []Format{Recorded}, gpus: []int{4, 6, 8},
		length: 10 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.hosts = hostsOf(run.GPUs / 2)
			k := i % len(run.hosts)
			run.gpu = func(r *rand.Rand, _ float64, g int) gpuRead {
				if g/2 == k {
					return idle(r, 500)
				}
				return busy(r)
			}
			return []Label{{ID: timeline.HintHostIdle, GPUs: gpusOfHost(k), From: 0, To: run.Length}}, nil,
				fmt.Sprintf("%d hosts of 2 GPUs training; node%d's GPUs never start", len(run.hosts), k+1)
		}},
	{name: "host-late", hint: timeline.HintHostLate, n: 20, formats: []Format{Recorded}, gpus: []int{4, 6, 8},
		length: 12 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.hosts = hostsOf(run.GPUs / 2)
			k, late := i%len(run.hosts), []float64{150, 240, 330}[i%3]
			run.gpu = func(r *rand.Rand, sec float64, g int) gpuRead {
				if g/2 == k && sec < late {
					return idle(r, 500)
				}
				return busy(r)
			}
			return []Label{{ID: timeline.HintHostLate, GPUs: gpusOfHost(k), From: 0, To: time.Duration(late) * time.Second}},
				[]string{timeline.HintHostIdle},
				fmt.Sprintf("%d hosts of 2 GPUs training; node%d starts %.0fs after the others", len(run.hosts), k+1, late)
		}},
	{name: "straggler-host", hint: timeline.HintStragglerHost, n: 20, formats: []Format{Recorded}, gpus: []int{6, 8},
		length: 10 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.hosts = hostsOf(run.GPUs / 2)
			k := i % len(run.hosts)
			run.gpu = func(r *rand.Rand, _ float64, g int) gpuRead {
				x := busy(r)
				x.util = noise(r, 99, 0.6, 97, 100)
				if g/2 == k {
					x.sm, x.power = noise(r, 82, 2, 70, 95), noise(r, 680, 8, 640, 700)
				} else {
					x.sm, x.power = noise(r, 52, 2, 40, 65), noise(r, 430, 10, 380, 480)
				}
				return x
			}
			return []Label{{ID: timeline.HintStragglerHost, GPUs: gpusOfHost(k), From: 0, To: run.Length}}, nil,
				fmt.Sprintf("%d hosts of 2 GPUs all at 99%% util; node%d's at SM 82%% and 680W, the others' at SM 52%% and 430W",
					len(run.hosts), k+1)
		}},
	{name: "uneven-memory", hint: timeline.HintUnevenMemory, n: 20, formats: []Format{Recorded}, gpus: []int{4, 6, 8},
		length: 10 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.hosts = hostsOf(run.GPUs / 2)
			k := i % len(run.hosts)
			held := []float64{62, 70, 76}[i%3] * 1024
			run.gpu = func(r *rand.Rand, _ float64, g int) gpuRead {
				x := busy(r)
				x.mem = 40 * 1024
				if g/2 == k {
					x.mem = held
				}
				return x
			}
			return []Label{{ID: timeline.HintUnevenMemory, GPUs: gpusOfHost(k), From: 0, To: run.Length}},
				[]string{timeline.HintMemoryPressure},
				fmt.Sprintf("%d hosts of 2 GPUs training; node%d's hold %.0fGiB each, the others' 40GiB", len(run.hosts), k+1, held/1024)
		}},
}

// healthyFamilies are controls in the shapes that look most like a finding
// without being one.
var healthyFamilies = []family{
	{name: "healthy-inference", n: 12,
		why: "these pauses' spacing varies by ~27% (CV of bursts of 5-20s plus pauses of 2-10s), within the 30% " +
			"(StallJitter) periodic-stall allows a period, where a checkpoint's varies by a few percent; tightening " +
			"StallJitter to 0.15 still left 4 of 12 and found a 3-stall run in random dips, so it needs a better test of rhythm",
		formats: []Format{Recorded, QueryCSV, Dmon, DcgmiText}, gpus: []int{1, 2},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 100 * time.Millisecond},
		play: func(i int, run *Run) ([]Label, []string, string) {
			// Requests come when clients send them: a burst at full speed,
			// then a pause of the client's, never at a steady rhythm.
			var bursts [][2]float64
			rr := rand.New(rand.NewPCG(uint64(i), 7))
			for t := 5.0; t < run.Length.Seconds(); {
				on := 5 + 15*rr.Float64()
				bursts = append(bursts, [2]float64{t, t + on})
				t += on + 2 + 8*rr.Float64()
			}
			iv := run.Interval.Seconds()
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				in := 0.0
				for _, b := range bursts {
					in += max(0, min(sec+iv, b[1])-max(sec, b[0]))
				}
				f := min(1, in/iv)
				g := starved(r, f)
				// A request saturates the GPU (ollama's bursts: 93-97%), and
				// its clocks stay up between requests.
				g.util, g.sm, g.clock = 97*f, 84*f, 1965
				return g
			}
			run.host = func(r *rand.Rand, _ float64) *hostRead { return quietHost(r) }
			return nil, nil, "request-driven inference: bursts of 5-20s at full speed, 2-10s pauses between requests"
		}},
	{name: "healthy-eval", n: 12, formats: []Format{Recorded, QueryCSV, DcgmiText, QueryCSVNoIndex}, gpus: []int{2, 4, 8},
		length: 20 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			every, long := []float64{240, 300, 360}[i%3], []float64{30, 45, 60}[i/3%3]
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				g := busy(r)
				if sec-every*float64(int(sec/every)) >= every-long { // validation: lighter kernels, no backward
					g.util, g.sm, g.power = noise(r, 72, 5, 55, 90), noise(r, 50, 4, 35, 65), noise(r, 420, 15, 350, 500)
				}
				return g
			}
			run.host = func(r *rand.Rand, _ float64) *hostRead { return quietHost(r) }
			return nil, nil, fmt.Sprintf("training with a %.0fs validation pass (util ~72%%) every %.0fs", long, every)
		}},
	{name: "healthy-hosts", n: 12, formats: []Format{Recorded}, gpus: []int{4, 6, 8}, length: 10 * time.Minute, periods: oneOrTwo,
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.hosts = hostsOf(run.GPUs / 2)
			run.gpu = func(r *rand.Rand, _ float64, g int) gpuRead {
				x := busy(r)
				x.sm += float64(g/2) * 1.5 // hosts alike within a few points
				return x
			}
			run.more = func(sec float64, s *timeline.Sample) {
				progressAt(s, sec, true, func(t float64) float64 { return 50 * t })
			}
			return nil, nil, fmt.Sprintf("%d hosts of 2 GPUs training alike, the job at a steady 50 it/s", len(run.hosts))
		}},
}

func gauge(name, dev string, v float64) timeline.Metric {
	return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Gauge, Value: v}
}
