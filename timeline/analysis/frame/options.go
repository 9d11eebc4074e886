package frame

import (
	"time"
)

// Options holds the thresholds of the hint rules. Each rule's doc comment
// (analysis/rules, analysis/hosts) says which it uses and why;
// docs/report.md lists them. The Engine starts from DefaultOptions; a
// field set to zero is zero, not its default.
type Options struct {
	// Window is the shortest stretch a rule judges: 30 s by default, so a
	// two-second dip is never a hint. Rules about a sustained state (input-bound,
	// low-utilization, ...) judge windows of SustainedWindows × Window,
	// gpu-idle IdleWindows × Window. Windows step by half their length and
	// start on the clock's multiples of the step, so hints recomputed live
	// every few seconds keep their edges.
	Window time.Duration
	// SustainedWindows: windows of rules about a sustained state are this
	// many Windows long (default 4: 2 min, longer than a validation phase,
	// which a real training job shows is normal).
	SustainedWindows int
	// IdleWindows: gpu-idle judges windows this many Windows long
	// (default 10: 5 min, "a long stretch").
	IdleWindows int
	// MergeGap: stretches of one rule on the same GPUs less than this apart
	// are one hint ("in 4 stretches"), not one each. Default 2 min.
	MergeGap time.Duration

	// IdleUtil (%): without SM activity, a GPU whose utilisation is below
	// this is idle. Default 10: NVML's utilisation is coarse, and a stray
	// copy or tiny kernel reads 1-8 %.
	IdleUtil float64
	// IdleSM (%): where SM activity is known it decides instead: below this
	// the GPU is idle, unless its utilisation is at LaunchUtil or more
	// (short of busy-waiting). Default 5.
	IdleSM float64
	// LaunchUtil (%): a GPU with a kernel running this much of the time is
	// working, however few SMs it keeps busy: tiny kernels, launch-bound
	// (utilisation near 50 % at 1 % SM activity is a GPU barely used, not
	// an idle one). Default 25.
	LaunchUtil float64
	// BusyWork (%): a GPU whose work (SM activity where known, else
	// utilisation) is at or above this is busy. Default 50.
	BusyWork float64
	// LowWork (%): over a sustained window, mean work below this is
	// under-used. Default 50; 60 keeps a hint going (hysteresis).
	LowWork float64

	// WaitUtil (%), WaitSM (%), WaitPower (share): a GPU busy-waits when
	// its utilisation is at or above WaitUtil while its SM activity is
	// below WaitSM or, without SM activity, its power is at most WaitPower
	// of its power limit (or, without a limit, of the busiest draw seen on
	// this node). Defaults 80, 10, 0.35: an NCCL kernel spinning in a
	// collective reads 99 % at about a fifth of the limit; memory-bound
	// work at 96 % still draws 60 % or more (vlm_llava's decode).
	WaitUtil, WaitSM, WaitPower float64

	// HeldMemory (bytes): a GPU holding at least this much is holding
	// memory for a job, not just a CUDA context. Default 1 GiB.
	HeldMemory float64

	// HostBusyCPU (%): the host counts as busy feeding the GPUs when its
	// CPU is at least this, or at least two cores are at BusyCore or more,
	// or the wrapped job uses at least JobBusyCPU. Default 50.
	HostBusyCPU float64
	// BusyCore (%): a core at or above this is busy; PeggedCore (%) is
	// pegged. Defaults 80 and 90.
	BusyCore, PeggedCore float64
	// IdleCore (%): a core at or below this is idle. Default 20.
	IdleCore float64
	// JobBusyCPU (% of one core): see HostBusyCPU. Default 200: more than
	// one busy thread.
	JobBusyCPU float64
	// IOWait (%): host iowait at or above this, or at or above two cores'
	// worth where the core count is known, is high. Default 10.
	IOWait float64

	// CapShare: power at or above this share of the limit while busy is at
	// the cap. Default 0.97.
	CapShare float64
	// ThermalTemp (°C): without clock-event reasons, a busy GPU at or
	// above this is taken as thermally throttled. Default 88.
	ThermalTemp float64
	// PCIeBusy (bytes/s): host-device traffic at or above this is near the
	// link's limit. Default 10e9 (a PCIe 3.0 x16 link moves ~12.5 GB/s).
	PCIeBusy float64
	// MemFull (share of the total): GPU memory or host RAM used at or above
	// this is near full. Default 0.95.
	MemFull float64
	// MemHeadroom (share of the total): an under-used GPU using at most this
	// has room for a bigger batch. Default 0.4.
	MemHeadroom float64

	// StallMin: a stall is at least this long. Default 3 s.
	StallMin time.Duration
	// StallPeriod: stalls recurring faster than this are a per-step pattern
	// (input-bound, low-utilization), not a periodic stall. Default 10 s.
	StallPeriod time.Duration
	// StallShare: periodic stalls must cost at least this share of the time.
	// Default 0.10: a 2 s dip every minute (3 %) is not a hint.
	StallShare float64
	// StallJitter: the spacing of stalls (or of the work between them) must
	// vary by at most this coefficient of variation: a steady period, the
	// gaps' spread within 30 % of their mean. Default 0.3.
	StallJitter float64
	// StallLengthJitter: the stalls' own lengths may vary by at most this
	// coefficient of variation. Default 0.5.
	StallLengthJitter float64

	// FrozenMin: a GPU whose every figure repeats to the last digit for
	// this long (and 8 columns), after varying, has frozen telemetry.
	// Default 2 min: live readings jitter, and in the real logs no GPU
	// with power readings repeats them for more than 4 s.
	FrozenMin time.Duration
}

// minHintWindow is the shortest window any rule may judge.
const minHintWindow = 30 * time.Second

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		Window:            minHintWindow,
		SustainedWindows:  4,
		IdleWindows:       10,
		MergeGap:          2 * time.Minute,
		IdleUtil:          10,
		IdleSM:            5,
		LaunchUtil:        25,
		BusyWork:          50,
		LowWork:           50,
		WaitUtil:          80,
		WaitSM:            10,
		WaitPower:         0.35,
		HeldMemory:        1 << 30,
		HostBusyCPU:       50,
		BusyCore:          80,
		PeggedCore:        90,
		IdleCore:          20,
		JobBusyCPU:        200,
		IOWait:            10,
		CapShare:          0.97,
		ThermalTemp:       88,
		PCIeBusy:          10e9,
		MemFull:           0.95,
		MemHeadroom:       0.4,
		StallMin:          3 * time.Second,
		StallPeriod:       10 * time.Second,
		StallShare:        0.10,
		StallJitter:       0.3,
		StallLengthJitter: 0.5,
		FrozenMin:         2 * time.Minute,
	}
}
