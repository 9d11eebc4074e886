package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

func TestHintMemoryHeadroom(t *testing.T) {
	light := func(mem float64) func(t *htTick) {
		return func(t *htTick) {
			t.h100(0, 75, 28, 230, mem)
			t.cores(htCoreSet(32, 3)...)
		}
	}
	htCheck(t, timeline.HintMemoryHeadroom, []htCase{
		{
			name: "28% of SMs busy using 5 of 80GiB",
			secs: 600, script: light(5 * htGiB),
			gpus: []int{0}, severity: timeline.Info,
			evidence:   []string{"GPU0 uses 5.00GiB of 80.0GiB (6%) while SM activity averages 28%, for 9m59s"},
			suggestion: []string{"About 75.0GiB free", "batch size"},
		},
		{name: "under-used but 70 of 80GiB in use", secs: 600, script: light(70 * htGiB)},
		{
			name: "no memory total",
			secs: 600,
			script: func(t *htTick) {
				t.gpu(0, timeline.GPUUtil, 20)
				t.gpu(0, timeline.GPUMemUsed, 2*htGiB)
			},
		},
		{name: "a busy GPU with memory free", secs: 600, script: func(t *htTick) { t.h100(0, 95, 80, 600, 10*htGiB) }},
		{
			// A bigger batch does not feed a starved GPU faster.
			name: "starved by the host",
			secs: 600, script: htStarved(htLoaders, nil),
		},
	})
}

func TestHintMemoryPressure(t *testing.T) {
	host := func(used, swap func(sec int) float64) func(t *htTick) {
		return func(t *htTick) {
			htHealthy(t)
			t.put(timeline.HostMemUsed, timeline.HostDevice, used(t.sec))
			t.put(timeline.HostMemTotal, timeline.HostDevice, 512*htGiB)
			t.put(timeline.HostSwapUsed, timeline.HostDevice, swap(t.sec))
		}
	}
	flat := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	htCheck(t, timeline.HintMemoryPressure, []htCase{
		{
			name: "GPU memory at 79.5 of 80GiB",
			secs: 300,
			script: func(t *htTick) {
				t.h100(0, 95, 80, 600, 79.5*htGiB)
			},
			gpus: []int{0}, severity: timeline.Info,
			evidence:   []string{"GPU0 uses 79.5GiB of 80.0GiB (99%), for 4m59s"},
			suggestion: []string{"activation checkpointing"},
		},
		{
			name: "host RAM at 500 of 512GiB",
			secs: 300, script: host(flat(500*htGiB), flat(12<<20)),
			gpus: []int{}, severity: timeline.Warning,
			evidence:   []string{"host RAM 500GiB of 512GiB used (98%), for 4m59s"},
			suggestion: []string{"DataLoader workers"},
		},
		{
			name: "swap growing 1GiB a minute",
			secs: 300,
			script: host(flat(470*htGiB), func(sec int) float64 {
				if sec < 120 {
					return 12 << 20
				}
				return 12<<20 + float64(sec-120)*htGiB/60
			}),
			gpus: []int{}, severity: timeline.Warning,
			evidence: []string{"swap grew by"},
		},
		{name: "GPU memory at 70 of 80GiB", secs: 300, script: htHealthy},
		{name: "host RAM at 60%, a little swap that does not grow", secs: 300, script: host(flat(300*htGiB), flat(12<<20))},
		{
			name: "GPU memory full for 10s",
			secs: 300,
			script: func(t *htTick) {
				mem := 60.0 * htGiB
				if t.sec >= 100 && t.sec < 110 {
					mem = 79.8 * htGiB
				}
				t.h100(0, 95, 80, 600, mem)
			},
		},
	})
}
