package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// htLive is an H100 at work as live NVML reads it: utilisation, SM
// activity and power moving in their last digits every second.
func htLive(t *htTick, i int) {
	t.h100(i, 97+float64(t.sec%3), 71+float64(t.sec%5)/10, 612.31+float64(t.sec%7)*1.37, 40*htGiB+float64(t.sec%4)*(1<<20))
	t.gpu(i, timeline.GPUTemp, 66+float64(t.sec%2))
	t.gpu(i, timeline.GPUClockSM, 1980)
}

// htFrozen is GPU i repeating one second's readings from second from to
// second to, and live otherwise; at is what it repeats.
func htFrozen(from, to int, at func(t *htTick, i int)) func(t *htTick) {
	return func(t *htTick) {
		if t.sec >= from && t.sec < to {
			at(t, 0)
		} else {
			htLive(t, 0)
		}
	}
}

func TestHintFrozenTelemetry(t *testing.T) {
	busyFrozen := func(t *htTick, i int) { // 100 %, 700 W to the milliwatt
		t.h100(i, 100, 93.2, 699.731, 71*htGiB)
		t.gpu(i, timeline.GPUTemp, 71)
		t.gpu(i, timeline.GPUClockSM, 1980)
	}
	htCheck(t, timeline.HintFrozenTelemetry, []htCase{
		{
			name: "a GPU's readings freeze for 6m40s", secs: 900, script: htFrozen(300, 700, busyFrozen),
			gpus: []int{0}, severity: timeline.Warning,
			evidence:   []string{"GPU0's readings froze for 6m40s: every figure repeated to the last digit (util 100%", "699.7", "treated as no data"},
			suggestion: []string{"hung driver or exporter", "stale DCGM cache", "nvidia-smi", "restart the exporter"},
		},
		{
			name: "a freeze of 1m50s is too short to tell", secs: 900, script: htFrozen(300, 410, busyFrozen),
		},
		{
			name: "busy at 700 W and constant clocks, power moving in its last digit", secs: 900,
			script: func(t *htTick) {
				busyFrozen(t, 0)
				t.gpu(0, timeline.GPUPower, 699.73+float64(t.sec%2)/100) // replaces nothing: the last one counts
			},
		},
		{
			name: "constant from the first second (a mock)", secs: 900, script: func(t *htTick) { busyFrozen(t, 0) },
		},
		{
			name: "idle in whole watts holds still honestly", secs: 900,
			script: htFrozen(300, 700, func(t *htTick, i int) {
				t.h100(i, 0, 0, 21, 0.5*htGiB)
				t.gpu(i, timeline.GPUTemp, 34)
			}),
		},
		{
			// regad (issue 43's corpus): a V100 log of power and clocks;
			// the GPUs left unused read 135 MHz and 42.06 W for minutes.
			name: "parked at its idle clock, power to the hundredth", secs: 900,
			script: func(t *htTick) {
				if t.sec < 300 {
					t.gpu(0, timeline.GPUPower, 68.22+float64(t.sec%7)*3.1)
					t.gpu(0, timeline.GPUClockSM, 1290+float64(t.sec%5)*58)
					return
				}
				t.gpu(0, timeline.GPUPower, 42.06)
				t.gpu(0, timeline.GPUClockSM, 135)
			},
		},
		{
			// Not parked: at 0 % but at its boost clock, the draw of a
			// live GPU moves in its last digit.
			name: "idle at its boost clock, power to the hundredth", secs: 900,
			script: htFrozen(300, 700, func(t *htTick, i int) {
				t.h100(i, 0, 0, 69.35, 0.5*htGiB)
				t.gpu(i, timeline.GPUTemp, 34)
				t.gpu(i, timeline.GPUClockSM, 1980)
			}),
			gpus: []int{0}, severity: timeline.Warning,
			evidence: []string{"GPU0's readings froze for 6m40s"},
		},
		{
			name: "no power readings: nothing tells", secs: 900,
			script: htFrozen(300, 700, func(t *htTick, i int) { t.h100(i, 100, 93.2, math.NaN(), 71*htGiB) }),
		},
	})
}

// The frozen stretch is unknown to every other rule: a GPU frozen at
// 100 % and 150 W is not busy-waiting, nor one frozen at 0 % idle.
func TestFrozenStretchIsNoData(t *testing.T) {
	for _, c := range []struct {
		name string
		at   func(t *htTick, i int)
		not  string
	}{
		{"frozen at 100% and 150 W", func(t *htTick, i int) { t.h100(i, 100, math.NaN(), 150.27, 71*htGiB) }, timeline.HintBusyWait},
		{"frozen at 0% and 61 W", func(t *htTick, i int) { t.h100(i, 0, 0, 61.37, 0.5*htGiB) }, timeline.HintGPUIdle},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The same readings, live (jittering), do give the other hint:
			// the freeze is what keeps it out.
			jittered := func(tk *htTick) {
				c.at(tk, 0)
				if tk.sec >= 300 {
					tk.gpu(0, timeline.GPUClockSM, 1000+float64(tk.sec%3))
				}
			}
			if got := htFind(htRun(1200, func(tk *htTick) {
				if tk.sec < 300 {
					htLive(tk, 0)
					return
				}
				jittered(tk)
			}), c.not); len(got) == 0 {
				t.Fatalf("the live readings give no %s: the test proves nothing", c.not)
			}
			hints := htRun(1200, htFrozen(300, 1200, c.at))
			if got := htFind(hints, c.not); len(got) > 0 {
				t.Errorf("%s over the frozen stretch:\n%s", c.not, htDump(got))
			}
			if got := htFind(hints, timeline.HintFrozenTelemetry); len(got) != 1 {
				t.Errorf("no frozen-telemetry:\n%s", htDump(hints))
			}
		})
	}
}

// Recognised live, two minutes in, the freeze's whole stretch is unknown
// from then on; before that, what the GPU showed stands.
func TestFrozenTelemetryLive(t *testing.T) {
	e := htEngine(300, func(t *htTick) { htLive(t, 0) })
	at := func(sec int) time.Time { return htT0.Add(time.Duration(sec) * time.Second) }
	for sec := 300; sec < 600; sec++ {
		tk := &htTick{sec: sec}
		tk.h100(0, 100, 93.2, 699.731, 71*htGiB)
		e.Add(new(timeline.Sample{At: at(sec)}.WithMetrics(tk.m)))
		hints := htFind(e.Hints(at(sec)), timeline.HintFrozenTelemetry)
		switch {
		case sec < 419 && len(hints) > 0:
			t.Fatalf("frozen-telemetry %ds into the freeze", sec-300)
		case sec >= 421 && len(hints) != 1:
			t.Fatalf("no frozen-telemetry %ds into the freeze", sec-300)
		case sec == 599:
			if h := hints[0]; !h.Ongoing || h.Start.Before(at(299)) || h.Start.After(at(301)) {
				t.Errorf("hint %+v, want it ongoing from 300 s", h)
			}
		}
	}
	f := e.viewAt(at(599))
	for i := 301; i < 598; i++ {
		if f.GPUs[0].State.At(i) != frame.Unknown {
			t.Fatalf("column %d is %v, want unknown", i, f.GPUs[0].State.At(i))
		}
	}
}
