package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
)

// htStarved is 8 GPUs in a sawtooth (busy 2s of every 6, SM 75% while
// busy) with the host's 32 cores set by hostCores, iowait and disk rates
// by io (nil: none).
func htStarved(hostCores func(t *htTick), io func(t *htTick)) func(t *htTick) {
	return func(t *htTick) {
		u, sm, p := 0.0, 0.0, 100.0
		if htSawtooth(t.sec, 2, 6) {
			u, sm, p = 97, 75, 550
		}
		htEvery8(func(i int) { t.h100(i, u, sm, p, 18*htGiB) })
		if hostCores != nil {
			hostCores(t)
		}
		if io != nil {
			io(t)
		}
	}
}

// htLoaders is a 32-core host with the main process pegged on core 0 and
// 23 loader workers at 80%.
func htLoaders(t *htTick) {
	t.cores(htCoreSet(32, 3, append([]float64{99}, htCoreSet(23, 80)...)...)...)
}

// htOneCore is a 32-core host with one core pegged and the rest idle.
func htOneCore(t *htTick) { t.cores(htCoreSet(32, 2, 99)...) }

func TestHintInputBound(t *testing.T) {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	htCheck(t, timeline.HintInputBound, []htCase{
		{
			// The input-bound demo, seed reports 003 and 004.
			name: "sawtooth while 24 loader cores are busy",
			secs: 600, script: htStarved(htLoaders, nil),
			gpus: all, severity: timeline.Critical,
			evidence: []string{"GPU0-7 idle 67% of the time (work in bursts of 2s, then 4s idle), SM activity averages 25%",
				"the host CPU is busy (61% overall, on average 24 of 32 cores at 80% or more, the busiest at 99%)", "for 9m59s"},
			suggestion: []string{"num_workers", "One core is pegged"},
		},
		{
			name: "the wrapped job's CPU alone shows the host busy",
			secs: 600,
			script: htStarved(nil, func(t *htTick) {
				t.put(timeline.ProcCPU, timeline.JobDevice, 1400)
			}),
			gpus: all, severity: timeline.Critical,
			evidence: []string{"the job 1400% of a core"},
		},
		{
			name: "the same sawtooth, host idle: no host cause",
			secs: 600, script: htStarved(func(t *htTick) { t.cores(htCoreSet(32, 3)...) }, nil),
		},
		{
			name: "host busy but the GPUs at 95%",
			secs: 600,
			script: func(t *htTick) {
				htHealthy(t)
				htLoaders(t)
			},
		},
		{
			name: "no host data: silent (low-utilization says why)",
			secs: 600, script: htStarved(nil, nil),
		},
		{
			name: "one core pegged, the rest idle: host-single-thread's",
			secs: 600, script: htStarved(htOneCore, nil),
		},
		{
			name: "a GPU that never works beside a pegged core: idle-memory-held's",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 75, 20*htGiB)
				htLoaders(t)
			},
		},
	})
}

func TestHintHostSingleThread(t *testing.T) {
	htCheck(t, timeline.HintHostSingleThread, []htCase{
		{
			name: "sawtooth while one core is pegged and 31 idle",
			secs: 600, script: htStarved(htOneCore, nil),
			gpus: []int{0, 1, 2, 3, 4, 5, 6, 7}, severity: timeline.Critical,
			evidence:   []string{"one host core runs at 99% and on average 31 of 32 cores idle"},
			suggestion: []string{"num_workers=0"},
		},
		{
			name: "host CPU total only, no per-core data",
			secs: 600,
			script: htStarved(func(t *htTick) {
				t.put(timeline.HostCPU, timeline.HostDevice, 3)
			}, nil),
		},
		{
			name: "pegged core, GPU never works",
			secs: 600,
			script: func(t *htTick) {
				t.h100(0, 0, 0, 75, 20*htGiB)
				htOneCore(t)
			},
		},
		{
			name: "pegged core, GPUs busy",
			secs: 600,
			script: func(t *htTick) {
				htHealthy(t)
				htOneCore(t)
			},
		},
	})
}

func TestHintIOWait(t *testing.T) {
	quiet := func(t *htTick) { t.cores(htCoreSet(32, 10)...) }
	disk := func(iowait, read, write float64) func(t *htTick) {
		return func(t *htTick) {
			t.put(timeline.HostIOWait, timeline.HostDevice, iowait)
			t.put(timeline.HostDiskRead, timeline.HostDevice, read)
			t.put(timeline.HostDiskWrite, timeline.HostDevice, write)
		}
	}
	htCheck(t, timeline.HintIOWait, []htCase{
		{
			name: "GPUs starved while iowait is 25% and the disks read",
			secs: 600, script: htStarved(quiet, disk(25, 500e6, 10e6)),
			gpus: []int{0, 1, 2, 3, 4, 5, 6, 7}, severity: timeline.Critical,
			evidence:   []string{"host iowait is 25% (8 cores' worth) and the disks read 500MB/s"},
			suggestion: []string{"local NVMe"},
		},
		{
			name: "iowait from writes (a checkpoint), not reads",
			secs: 600, script: htStarved(quiet, disk(25, 10e6, 1.5e9)),
		},
		{
			name: "iowait 3% of 32 cores (one core's worth)",
			secs: 600, script: htStarved(quiet, disk(3, 500e6, 10e6)),
		},
		{
			name: "iowait high but the GPUs busy",
			secs: 600,
			script: func(t *htTick) {
				htHealthy(t)
				quiet(t)
				disk(25, 500e6, 10e6)(t)
			},
		},
	})
}
