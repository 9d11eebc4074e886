package probe

import (
	"context"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Probe reads one source of metrics: one GPU, the host, gputop itself.
// A GPU is a probe of its own so that one hung GPU is marked late while the
// other seven are read on time.
type Probe interface {
	// Name is the probe's name in statuses and logs: "nvml", "host", "procs".
	Name() string
	// Device is the one device the probe reads ("gpu3"), or "".
	Device() string
	// Collect reads once. The sampler never calls it again while an earlier
	// call is still running, and gives up waiting when ctx is done. A
	// Reading may come with an error: the metrics that could be read are
	// kept, and the error is shown.
	Collect(ctx context.Context) (Reading, error)
}

// Reading is what one probe found on one tick.
type Reading struct {
	Metrics   []timeline.Metric
	Processes []timeline.Process
	// Owners are the GPUs' allocations an ownership probe found; they
	// become Sample.Owners.
	Owners []timeline.Owner
	// Lost says the device is gone for good (a GPU that fell off the bus):
	// the sampler reports it lost on every later tick and never asks again.
	Lost bool
}

// ProcessInfo is what the host knows of one process.
type ProcessInfo struct {
	User    string
	Command string
	CPU     float64 // % of one core since the previous lookup of this PID; NaN at first
	RSS     float64 // bytes
	// Started is when the process started; zero if unknown.
	Started time.Time
	// Workload is the container, pod, Slurm job or session its cgroup
	// names.
	Workload *timeline.Workload
}

// ProcessLookup finds the host's view of a process by PID. The real one
// reads /proc; the demo's answers from its script.
type ProcessLookup interface {
	Lookup(pid int) (ProcessInfo, bool)
}
