package accuracy

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A family is one finding, or a healthy control, played in n variants.
type family struct {
	name string
	hint string // the hint it labels; "" for a healthy control
	// why says what gputop is known to get wrong in the family, and why:
	// printed with its misses.
	why     string
	n       int
	formats []Format
	periods []time.Duration
	gpus    []int
	length  time.Duration
	// play fills run i's readings, labels and what it may also raise.
	play func(i int, run *Run) (labels []Label, may []string, shape string)
}

// all is every GPU of a run.
func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// everyFormat is every file format and the recorder.
var everyFormat = []Format{QueryCSV, Dmon, DcgmiText, QueryCSVNoUnits, DcgmiCSV, QueryCSVNoHeader, Recorded, QueryCSVNoIndex}

// duty is the share of [sec, sec+width) that falls in the first on seconds
// of every cycle: what utilisation averages over a sample of a GPU that
// works in bursts.
func duty(sec, width, on, cycle float64) float64 {
	const steps = 20
	in := 0
	for k := range steps {
		t := sec + width*(float64(k)+0.5)/steps
		if t-cycle*float64(int(t/cycle)) < on {
			in++
		}
	}
	return float64(in) / steps
}

// starved is a GPU that works in bursts: share f of the time busy.
func starved(r *rand.Rand, f float64) gpuRead {
	g := busy(r)
	g.util, g.sm = 95*f, 72*f
	g.power = 90 + (g.power-90)*f
	return g
}

var families = []family{
	{name: "healthy", n: 24, formats: everyFormat, gpus: []int{1, 2, 4, 8}, length: 15 * time.Minute,
		periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 100 * time.Millisecond, 10 * time.Second, 30 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead { return busy(r) }
			run.host = func(r *rand.Rand, _ float64) *hostRead {
				h := quietHost(r)
				for c := range 8 {
					h.cores[c] = noise(r, 45, 8, 0, 100)
				}
				return h
			}
			return nil, nil, "training, every GPU busy (util ~94%, SM ~74%, 560W of 700W)"
		}},
	{name: "healthy-mig", n: 8, formats: []Format{DcgmiText}, gpus: []int{1, 2},
		length: 8 * time.Minute, periods: []time.Duration{100 * time.Millisecond, time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			iv := run.Interval.Seconds()
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				g := busy(r)
				g.util, g.limit = nan, nan
				if int(sec/iv)%2 == 1 { // profiling fields every other sample
					g.sm = nan
				}
				return g
			}
			return nil, nil, "MIG slices at work: utilisation N/A throughout, SM activity N/A every other sample"
		}},
	{name: "periodic-stall", hint: timeline.HintPeriodicStall, n: 24, formats: everyFormat, gpus: []int{1, 2, 4, 8},
		length: 15 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 100 * time.Millisecond, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			period := []float64{60, 90, 120, 150}[i%4]
			stall := []float64{12, 20, 30, 45}[i/4%4]
			stall = max(stall, 4*run.Interval.Seconds())
			spin := i%2 == 1 && run.GPUs > 1
			run.gpu = func(r *rand.Rand, sec float64, g int) gpuRead {
				if sec < 60 || sec-60-period*float64(int((sec-60)/period)) >= stall {
					return busy(r)
				}
				x := idle(r, 48*1024)
				if spin && g > 0 { // the others wait for rank 0 in a collective
					x.util, x.sm, x.power, x.clock = noise(r, 99.5, 0.5, 98, 100), noise(r, 2, 0.5, 0, 5), noise(r, 150, 4, 130, 170), 1980
				}
				return x
			}
			shape := fmt.Sprintf("a %.0fs stall every %.0fs from 1m in, every GPU idle", stall, period)
			if spin {
				shape = fmt.Sprintf("a %.0fs checkpoint every %.0fs from 1m in: GPU0 idle, the others spinning at 100%% util and 150W", stall, period)
			}
			return []Label{{ID: timeline.HintPeriodicStall, GPUs: all(run.GPUs), From: time.Minute, To: run.Length}},
				[]string{timeline.HintBusyWait}, shape
		}},
	{name: "input-bound", hint: timeline.HintInputBound, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 500 * time.Millisecond},
		play: func(i int, run *Run) ([]Label, []string, string) {
			on, cycle := []float64{1, 1.5, 2}[i%3], []float64{4, 5.5, 7}[i/3%3]
			iv := run.Interval.Seconds()
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead { return starved(r, duty(sec, iv, on, cycle)) }
			run.host = func(r *rand.Rand, _ float64) *hostRead {
				h := quietHost(r)
				for c := range 24 { // the data loader's workers
					h.cores[c] = noise(r, 86, 6, 0, 100)
				}
				return h
			}
			return []Label{{ID: timeline.HintInputBound, GPUs: all(run.GPUs), From: 0, To: run.Length}}, nil,
				fmt.Sprintf("GPU works %.1fs in every %.1fs while 24 of 32 host cores are busy", on, cycle)
		}},
	{name: "host-single-thread", hint: timeline.HintHostSingleThread, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 500 * time.Millisecond},
		play: func(i int, run *Run) ([]Label, []string, string) {
			on, cycle := []float64{1, 1.5, 2}[i%3], []float64{4, 5.5, 7}[i/3%3]
			iv := run.Interval.Seconds()
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead { return starved(r, duty(sec, iv, on, cycle)) }
			run.host = func(r *rand.Rand, _ float64) *hostRead {
				h := quietHost(r)
				h.cores[i%32] = noise(r, 99, 0.7, 95, 100)
				return h
			}
			return []Label{{ID: timeline.HintHostSingleThread, GPUs: all(run.GPUs), From: 0, To: run.Length}}, nil,
				fmt.Sprintf("GPU works %.1fs in every %.1fs while one host core is pegged and 31 rest", on, cycle)
		}},
	{name: "io-wait", hint: timeline.HintIOWait, n: 20, formats: []Format{Recorded}, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			iv := run.Interval.Seconds()
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead { return starved(r, duty(sec, iv, 4, 10)) }
			run.host = func(r *rand.Rand, _ float64) *hostRead {
				h := quietHost(r)
				h.iowait, h.diskR, h.diskW = noise(r, 24, 4, 10, 60), noise(r, 5e8, 5e7, 1e8, 2e9), noise(r, 1e7, 2e6, 0, 1e8)
				return h
			}
			return []Label{{ID: timeline.HintIOWait, GPUs: all(run.GPUs), From: 0, To: run.Length}}, nil,
				"GPU works 4s in every 10s while iowait is ~24% and the disks read 500MB/s"
		}},
	{name: "low-utilization", hint: timeline.HintLowUtilization, n: 24, formats: everyFormat, gpus: []int{1, 2, 4},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 5 * time.Second, 100 * time.Millisecond, 2 * time.Second, 10 * time.Second, 30 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			level := []float64{22, 30, 38}[i%3]
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead {
				g := busy(r)
				g.util, g.sm, g.power = noise(r, level, 4, 5, 60), noise(r, level*0.7, 3, 1, 60), noise(r, 220, 10, 150, 300)
				return g
			}
			run.host = func(r *rand.Rand, _ float64) *hostRead { return quietHost(r) }
			return []Label{{ID: timeline.HintLowUtilization, GPUs: all(run.GPUs), From: 0, To: run.Length}}, nil,
				fmt.Sprintf("a small batch: util ~%.0f%%, SM ~%.0f%%, memory 60%% used, the host quiet", level, level*0.7)
		}},
	{name: "launch-bound", hint: timeline.HintLowUtilization, n: 20, formats: []Format{DcgmiText, DcgmiCSV, Recorded},
		gpus: []int{1, 2}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 100 * time.Millisecond, 2 * time.Second, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead {
				g := busy(r)
				g.util, g.sm, g.power = noise(r, 52, 5, 30, 70), noise(r, 0.9, 0.3, 0.1, 3), noise(r, 45, 2, 35, 60)
				g.limit = 250
				return g
			}
			return []Label{{ID: timeline.HintLowUtilization, GPUs: all(run.GPUs), From: 0, To: run.Length}},
				[]string{timeline.HintMemoryHeadroom}, "tiny kernels: util ~52% on ~1% of the SMs, 45W of 250W"
		}},
	{name: "gpu-imbalance", hint: timeline.HintGPUImbalance, n: 24,
		formats: []Format{QueryCSVNoIndex, QueryCSV, Dmon, DcgmiText, DcgmiCSV, QueryCSVNoUnits, Recorded},
		gpus:    []int{2, 4, 8}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 100 * time.Millisecond, 10 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			low := i % run.GPUs
			held := []float64{400, 20 * 1024}[i/3%2]
			run.gpu = func(r *rand.Rand, _ float64, g int) gpuRead {
				if g == low {
					return idle(r, held)
				}
				return busy(r)
			}
			return []Label{{ID: timeline.HintGPUImbalance, GPUs: []int{low}, From: 0, To: run.Length}}, nil,
				fmt.Sprintf("GPU%d idle (%.0fMiB held) while the others train", low, held)
		}},
	{name: "busy-wait", hint: timeline.HintBusyWait, n: 20, formats: everyFormat, gpus: []int{1, 2, 4, 8},
		length: 12 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 100 * time.Millisecond, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			long := []float64{60, 90, 150, 240}[i%4]
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				g := busy(r)
				if sec >= 180 && sec < 180+long {
					g.util, g.sm, g.power = noise(r, 99.5, 0.5, 98, 100), noise(r, 2, 0.5, 0, 5), noise(r, 150, 4, 130, 170)
				}
				return g
			}
			return []Label{{ID: timeline.HintBusyWait, GPUs: all(run.GPUs), From: 3 * time.Minute, To: 3*time.Minute + time.Duration(long)*time.Second}},
				nil, fmt.Sprintf("every GPU at 100%% util and 150W (SM 2%%) for %.0fs from 3m in, busy before and after", long)
		}},
	{name: "idle-memory-held", hint: timeline.HintIdleMemoryHeld, n: 20,
		formats: []Format{QueryCSV, DcgmiText, QueryCSVNoUnits, Dmon, DcgmiCSV, QueryCSVNoHeader, Recorded},
		gpus:    []int{1, 2, 4}, length: 12 * time.Minute, periods: []time.Duration{time.Second, 5 * time.Second, 2 * time.Second, 10 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				if sec < 120 {
					return busy(r)
				}
				return idle(r, 20*1024)
			}
			return []Label{{ID: timeline.HintIdleMemoryHeld, GPUs: all(run.GPUs), From: 2 * time.Minute, To: run.Length}}, nil,
				"training, then from 2m every GPU at 0% util holding 20GiB"
		}},
	{name: "gpu-idle", hint: timeline.HintGPUIdle, n: 20, formats: everyFormat, gpus: []int{1, 2, 4},
		length: 15 * time.Minute, periods: []time.Duration{time.Second, 5 * time.Second, 2 * time.Second, 10 * time.Second, 30 * time.Second, 100 * time.Millisecond},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				if sec < 90 {
					return busy(r)
				}
				return idle(r, 300)
			}
			return []Label{{ID: timeline.HintGPUIdle, GPUs: all(run.GPUs), From: 90 * time.Second, To: run.Length}}, nil,
				"training for 90s, then nothing: 0% util, 300MiB, idle clocks"
		}},
	{name: "power-capped", hint: timeline.HintPowerCapped, n: 21,
		formats: []Format{QueryCSV, DcgmiText, Recorded, QueryCSVNoUnits, DcgmiCSV, Dmon, QueryCSVNoHeader},
		gpus:    []int{1, 2, 4}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 100 * time.Millisecond, 2 * time.Second, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			// Where the format records the reasons (NVML, dmon's pviol), a
			// cap sets them; a query-gpu log has the column only sometimes.
			reasons := i%3 == 0 || run.Format == Recorded || run.Format == Dmon
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				g := busy(r)
				if sec >= 120 {
					g.power, g.clock = noise(r, 696, 2, 688, 700), noise(r, 1500, 25, 1400, 1600)
					if reasons {
						g.reasons = nvmlPowerCap
					}
				}
				return g
			}
			shape := "boost clocks for 2m, then 696W of 700W with the SM clock pulled to ~1500MHz"
			if reasons {
				shape += ", the power-cap reason set"
			}
			return []Label{{ID: timeline.HintPowerCapped, GPUs: all(run.GPUs), From: 2 * time.Minute, To: run.Length}}, nil, shape
		}},
	{name: "thermal-throttle", hint: timeline.HintThermalThrottle, n: 20, formats: []Format{QueryCSV, Dmon, DcgmiText, Recorded, QueryCSVNoUnits},
		gpus: []int{2, 4}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			hot := run.GPUs - 1
			reasons := i%2 == 0 || run.Format == Recorded || run.Format == Dmon
			run.gpu = func(r *rand.Rand, sec float64, g int) gpuRead {
				x := busy(r)
				if g == hot && sec >= 120 {
					x.temp, x.clock = noise(r, 91, 0.8, 88.5, 95), noise(r, 1450, 25, 1350, 1550)
					if reasons {
						x.reasons = nvmlSWThermal
					}
				}
				return x
			}
			shape := fmt.Sprintf("GPU%d at ~91°C from 2m with its clock at ~1450MHz", hot)
			if reasons {
				shape += ", the thermal reason set"
			}
			return []Label{{ID: timeline.HintThermalThrottle, GPUs: []int{hot}, From: 2 * time.Minute, To: run.Length}}, nil, shape
		}},
	{name: "memory-pressure", hint: timeline.HintMemoryPressure, n: 20,
		formats: []Format{QueryCSV, DcgmiText, QueryCSVNoUnits, DcgmiCSV, Recorded, QueryCSVNoHeader},
		gpus:    []int{1, 2, 4}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 5 * time.Second, 2 * time.Second, 10 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, sec float64, _ int) gpuRead {
				g := busy(r)
				if sec >= 120 {
					g.mem = 79.4 * 1024
				}
				return g
			}
			return []Label{{ID: timeline.HintMemoryPressure, GPUs: all(run.GPUs), From: 2 * time.Minute, To: run.Length}}, nil,
				"training, its memory at 79.4 of 80GiB from 2m"
		}},
	{name: "memory-headroom", hint: timeline.HintMemoryHeadroom, n: 20,
		formats: []Format{QueryCSV, DcgmiText, QueryCSVNoUnits, DcgmiCSV, Recorded, QueryCSVNoHeader},
		gpus:    []int{1, 2}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 5 * time.Second, 2 * time.Second, 10 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead {
				g := busy(r)
				g.util, g.sm, g.power, g.mem = noise(r, 38, 4, 10, 60), noise(r, 27, 3, 5, 50), noise(r, 230, 10, 150, 300), 6*1024
				return g
			}
			return []Label{
					{ID: timeline.HintMemoryHeadroom, GPUs: all(run.GPUs), From: 0, To: run.Length},
					{ID: timeline.HintLowUtilization, GPUs: all(run.GPUs), From: 0, To: run.Length}}, nil,
				"a small batch: util ~38%, 6 of 80GiB used"
		}},
	{name: "frozen-telemetry", hint: timeline.HintFrozenTelemetry, n: 20,
		formats: []Format{QueryCSV, DcgmiText, Recorded, DcgmiCSV, QueryCSVNoUnits, Dmon},
		gpus:    []int{1, 2, 4}, length: 15 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second},
		play: func(i int, run *Run) ([]Label, []string, string) {
			long := []float64{180, 300, 420}[i%3]
			stuck := map[int]gpuRead{}
			run.gpu = func(r *rand.Rand, sec float64, g int) gpuRead {
				x := busy(r)
				switch {
				case sec < 240 || sec >= 240+long:
					return x
				case sec < 240+run.Interval.Seconds():
					stuck[g] = x
				}
				return stuck[g]
			}
			return []Label{{ID: timeline.HintFrozenTelemetry, GPUs: all(run.GPUs), From: 4 * time.Minute, To: 4*time.Minute + time.Duration(long)*time.Second}},
				nil, fmt.Sprintf("training, then every figure repeated to the last digit for %.0fs from 4m in", long)
		}},
	{name: "pcie-bound", hint: timeline.HintPCIeBound, n: 20, formats: []Format{DcgmiText, DcgmiCSV, Recorded},
		gpus: []int{1, 2, 4}, length: 10 * time.Minute, periods: []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 100 * time.Millisecond},
		play: func(i int, run *Run) ([]Label, []string, string) {
			run.gpu = func(r *rand.Rand, _ float64, _ int) gpuRead {
				g := busy(r)
				g.util, g.sm, g.pcie, g.power = noise(r, 30, 4, 10, 50), noise(r, 9, 2, 2, 20), noise(r, 1.4e10, 1e9, 1.1e10, 1.6e10), 200
				return g
			}
			return []Label{{ID: timeline.HintPCIeBound, GPUs: all(run.GPUs), From: 0, To: run.Length}},
				[]string{timeline.HintLowUtilization}, "14GB/s host-to-device while SM activity is ~9%"
		}},
}

// SyntheticRuns is every synthetic run of the corpus, in a fixed order.
func SyntheticRuns() []Run {
	var out []Run
	for _, f := range slices.Concat(families, jobFamilies, healthyFamilies) {
		for i := range f.n {
			run := Run{Format: f.formats[i%len(f.formats)], Interval: f.periods[i%len(f.periods)], Length: f.length,
				GPUs: f.gpus[i/len(f.formats)%len(f.gpus)]}
			if run.Format != Recorded {
				run.Encoding = []Encoding{UTF8, CRLF, UTF16LE}[i%3]
			}
			if run.Interval < time.Second {
				run.GPUs = min(run.GPUs, 2) // a 100 ms log of eight GPUs is 40x the rows for the same finding
			}
			run.Length = max(run.Length, 60*run.Interval)
			name := fmt.Sprintf("synthetic/%s/%02d", f.name, i+1)
			h := fnv.New64a()
			h.Write([]byte(name))
			run.seed = h.Sum64()
			labels, may, shape := f.play(i, &run)
			run.Case = Case{Name: name, Part: Synthetic, Family: f.name, Labels: labels, May: may, Healthy: f.hint == "",
				Shape: run.String(), Reading: shape, Why: f.why}
			out = append(out, run)
		}
	}
	return out
}
