package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// htCapScript runs 8 busy H100s; GPUs listed in capped draw 695W with the
// power-cap reason (if reasons) and a lower clock, the rest 600W; hot
// GPUs carry the software thermal reason at 87°C.
func htCapScript(reasons bool, capped, hot []int) func(t *htTick) {
	in := func(i int, set []int) bool {
		for _, j := range set {
			if i == j {
				return true
			}
		}
		return false
	}
	return func(t *htTick) {
		htEvery8(func(i int) {
			power, clock, bits, temp := 600.0, 1980.0, 0.0, 65.0
			if in(i, capped) {
				power, clock, bits = 695, 1605, timeline.ThrottlePowerCap
			}
			if in(i, hot) {
				power, clock, bits, temp = 640, 1440, timeline.ThrottleSWThermal, 87
			}
			t.h100(i, 99, 90, power, 70*htGiB)
			t.gpu(i, timeline.GPUClockSM, clock)
			t.gpu(i, timeline.GPUTemp, temp)
			if reasons {
				t.gpu(i, timeline.GPUThrottle, bits)
			}
		})
	}
}

func TestHintPowerCapped(t *testing.T) {
	htCheck(t, timeline.HintPowerCapped, []htCase{
		{
			name: "the power-cap reason on six GPUs",
			secs: 300, script: htCapScript(true, []int{0, 1, 2, 3, 5, 7}, []int{4, 6}),
			gpus: []int{0, 1, 2, 3, 5, 7}, severity: timeline.Warning,
			evidence: []string{"GPU0-3,5,7 at 695W (99% of the 700W limit), SM clock 1605MHz, power-cap reason " +
				"100% of the time, for 4m59s"},
			suggestion: []string{"nvidia-smi -pl"},
		},
		{
			// A Prometheus history: serve exports dcgm-exporter's violation
			// counters, not the bitmask; the power counter held the clocks
			// the whole time, as the reason would have said.
			name: "the power violation counter in place of the reasons",
			secs: 300,
			script: func(t *htTick) {
				htCapScript(false, []int{0, 1}, nil)(t)
				for i := range 8 {
					t.m = append(t.m, timeline.Metric{Key: timeline.Key{Name: timeline.GPUViolPowerSecs, Device: timeline.GPUDevice(i)},
						Kind: timeline.Counter, Value: float64(t.sec) * float64(map[bool]int{true: 1}[i < 2])})
				}
			},
			gpus: []int{0, 1}, severity: timeline.Warning,
			evidence: []string{"power-cap reason 100% of the time"},
		},
		{
			name: "no reasons recorded: power at the known limit, the clock pulled down",
			secs: 300, script: htCapScript(false, []int{0}, nil),
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"SM clock 1605MHz (81% of the node's 1980MHz peak) (clock-event reasons not recorded)"},
			maxConfidence: 0.75,
		},
		{
			// A real log: 660W flat below a 700W limit, the clock steady
			// at its boost. A steady workload, however high its draw.
			name: "no reasons: flat below the limit, the clock at its boost",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 99, 90, 660, 60*htGiB)
				t.gpu(0, timeline.GPUClockSM, 1980-float64(t.sec%3)*15)
			},
		},
		{
			name: "no reasons: at the limit, the clock at its boost",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 99, 90, 695, 60*htGiB)
				t.gpu(0, timeline.GPUClockSM, 1980)
			},
		},
		{
			// Where the limit is unknown the clock decides: pulled down
			// while the power holds at the highest this GPU draws.
			name: "no limit, no reasons: the clock pulled down at the peak draw",
			secs: 600,
			script: func(t *htTick) {
				p, c := 400.0+float64(t.sec%7)*5, 1980.0 // lighter work, full clock
				if t.sec >= 200 {
					p, c = 689+float64(t.sec%3), 1530
				}
				t.gpu(0, timeline.GPUUtil, 100)
				t.gpu(0, timeline.GPUPower, p)
				t.gpu(0, timeline.GPUClockSM, c)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"at 689-691W", "SM clock 1530MHz (77% of the node's 1980MHz peak)", "power held at its highest while the clock is pulled down"},
			maxConfidence: 0.55,
		},
		{
			// h100pcie allzero (issue 43's corpus): a GEMM that no cap
			// holds, its clock 1755MHz before the load and ~1485MHz (85%)
			// under it, power flat at its highest. Without a limit a cap
			// must pull the clock further than a boost settles.
			name: "no limit, no reasons: the clock settled 15% under its idle peak",
			secs: 300,
			script: func(t *htTick) {
				p, c := 60.0, 1755.0
				if t.sec >= 3 {
					p, c = 278+float64(t.sec%5)*2, 1485-float64(t.sec%4)*5
				}
				t.gpu(0, timeline.GPUUtil, 100)
				t.gpu(0, timeline.GPUPower, p)
				t.gpu(0, timeline.GPUClockSM, c)
			},
		},
		{
			// nanogpt: no limit, no reasons, no clock, 690W held flat at
			// 100%. A cap, or a steady workload: nothing tells them apart.
			name: "no limit, no reasons, no clock: silent",
			secs: 600,
			script: func(t *htTick) {
				p := 400.0 + float64(t.sec%7)*5
				if t.sec >= 200 {
					p = 689 + float64(t.sec%3)
				}
				t.gpu(0, timeline.GPUUtil, 100)
				t.gpu(0, timeline.GPUPower, p)
			},
		},
		{
			// The training demo peaks near 686W, over 97% of 700W, but
			// the reasons say the cap never held it: they win.
			name: "reasons recorded and clear, power near the limit",
			secs: 300,
			script: func(t *htTick) {
				t.h100(0, 97, 80, 686, 60*htGiB)
				t.gpu(0, timeline.GPUThrottle, 0)
			},
		},
		{
			// vlm_llava: busy at 280-320W, varying by several percent.
			name: "no limit, power varying with the work",
			secs: 600,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 96)
				t.gpu(0, timeline.GPUPower, 280+float64(t.sec*37%41))
			},
		},
		{
			name: "the cap reason on an idle GPU",
			secs: 300,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 70, 0)
				t.gpu(0, timeline.GPUThrottle, timeline.ThrottlePowerCap)
			},
		},
	})
}

func TestHintThermalThrottle(t *testing.T) {
	htCheck(t, timeline.HintThermalThrottle, []htCase{
		{
			name: "thermal reasons on two hot GPUs",
			secs: 300, script: htCapScript(true, []int{0, 1, 2, 3, 5, 7}, []int{4, 6}),
			gpus: []int{4, 6}, severity: timeline.Warning,
			evidence: []string{"GPU4,6 at 87°C with thermal slowdown 100% of the time, SM clock 1440MHz " +
				"(1605MHz on the other GPUs), for 4m59s"},
			suggestion: []string{"airflow"},
		},
		{
			name: "no reasons, 90°C while busy",
			secs: 300,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 99)
				t.gpu(0, timeline.GPUTemp, 90)
			},
			gpus: []int{0}, severity: timeline.Warning,
			evidence:      []string{"clock-event reasons not recorded"},
			maxConfidence: 0.4,
		},
		{
			// nanogpt's GPU1: 73°C beside neighbours at 55°C.
			name: "a hot outlier that is not throttling",
			secs: 300,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 100)
				t.gpu(0, timeline.GPUTemp, 73)
				t.gpu(1, timeline.GPUUtil, 100)
				t.gpu(1, timeline.GPUTemp, 55)
			},
		},
		{
			name: "hot but idle",
			secs: 300,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 0)
				t.gpu(0, timeline.GPUTemp, 90)
			},
		},
		{
			name: "a 10s thermal blip",
			secs: 300,
			script: func(t *htTick) {
				bits := 0.0
				if t.sec >= 100 && t.sec < 110 {
					bits = timeline.ThrottleHWThermal
				}
				t.h100(0, 99, 90, 650, 60*htGiB)
				t.gpu(0, timeline.GPUThrottle, bits)
			},
		},
	})
}
