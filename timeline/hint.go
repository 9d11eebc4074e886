package timeline

import "time"

// Severity ranks hints: what to look at first.
type Severity uint8

const (
	// Info is worth knowing (memory headroom, a GPU idle by design).
	Info Severity = iota
	// Warning costs throughput now (an input-bound loader, a power cap).
	Warning
	// Critical wastes most of the hardware (seven of eight GPUs idle, work
	// on the CPU with the GPU's memory held).
	Critical
)

var severityNames = [...]string{"info", "warning", "critical"}

func (s Severity) String() string { return nameOf(severityNames[:], s) }

// Hint ids: stable, documented in docs/report.md ("Hints": when each
// fires, its evidence and its next step).
const (
	HintInputBound       = "input-bound"
	HintHostSingleThread = "host-single-thread"
	HintPeriodicStall    = "periodic-stall"
	HintLowUtilization   = "low-utilization"
	HintGPUImbalance     = "gpu-imbalance"
	HintBusyWait         = "busy-wait"
	HintIdleMemoryHeld   = "idle-memory-held"
	HintGPUIdle          = "gpu-idle"
	HintPowerCapped      = "power-capped"
	HintThermalThrottle  = "thermal-throttle"
	HintMemoryHeadroom   = "memory-headroom"
	HintMemoryPressure   = "memory-pressure"
	HintIOWait           = "io-wait"
	HintPCIeBound        = "pcie-bound"
	HintGPUError         = "gpu-error"        // the driver reported an Xid; the GPU may be gone
	HintLinkDegraded     = "link-degraded"    // a PCIe link below its generation or width while working
	HintFrozenTelemetry  = "frozen-telemetry" // every figure repeated to the last digit: no data
	HintAllocatedIdle    = "allocated-idle"   // allocated to a pod or a Slurm job that does not use it

	// From the job's own progress (its output's bars, gputop mark).
	HintThroughputDrop  = "throughput-drop"  // the job's rate fell while the GPUs stayed busy
	HintProgressStalled = "progress-stalled" // no progress while the GPUs were idle
	HintWarmUp          = "warm-up"          // a long time before the job reached its working rate

	// Across the hosts of a session of several.
	HintHostIdle      = "host-idle"
	HintHostLate      = "host-late"
	HintStragglerHost = "straggler-host"
	HintUnevenMemory  = "uneven-memory"
)

// Hint names what holds the GPUs back over a stretch of time, with the
// numbers that show it and what to try.
type Hint struct {
	ID       string
	Severity Severity
	// GPUs are the NVML indexes the hint concerns; empty for the host.
	GPUs       []int
	Start, End time.Time
	// Evidence is the numbers, for example "GPU0 0-4 % for 11 s of every
	// 42 s while CPU 100 % on one core, 15 idle".
	Evidence string
	// Suggestion is a concrete next step.
	Suggestion string
	// Confidence is 0..1: how sure the rule is, given the signals it had
	// (an imported log with utilisation alone gives less than SM activity).
	Confidence float64
	// Provisional says the hint rests only on a reading of less than its
	// rule's full window so far, or on the window that ends now, not yet on
	// the grid of windows that make it firm: it may firm up or go.
	Provisional bool
	// Ongoing says it still holds at the moment asked about: its last
	// episode reaches the last two windows (a periodic stall, its last
	// period and a half). A hint that is not has ended, at End.
	Ongoing bool
	// Episodes are the stretches where the finding held, largest first
	// (by GPU-time), each with its GPUs, times, severity and numbers.
	// Start and End span them all; Severity is the worst of theirs;
	// Evidence is that of the largest of the worst, with how many more.
	Episodes []Episode
}

// Episode is one stretch of a hint: when, on which GPUs, how bad, and its
// numbers.
type Episode struct {
	Start, End time.Time
	GPUs       []int
	Severity   Severity
	Evidence   string
	// Provisional: as for Hint, for this stretch alone.
	Provisional bool
}
