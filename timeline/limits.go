package timeline

import (
	"fmt"
	"time"
)

// The bounds of a source's description: what gputop records, reads and
// sizes anything by. A description from outside (a recording's header, a
// stream's) is checked against them where it enters, so that nothing is
// sized by 20,000 hosts or an interval of a nanosecond.
const (
	// MaxHosts is the most hosts a session may have: what one gputop
	// --hosts viewer follows at most.
	MaxHosts = 1024
	// MaxGPUs is the most GPUs a session may list, MIG slices included
	// (16 a host for MaxHosts hosts), and bounds every GPU number in it.
	MaxGPUs = 16 * MaxHosts
	// MinInterval is the shortest sampling interval taken as known: the
	// sampler's shortest is 100ms; logs with millisecond times import at
	// down to 1ms.
	MinInterval = time.Millisecond
	// MaxInterval is the longest: the longest gputop import takes for a log
	// (Prometheus steps run to minutes).
	MaxInterval = 24 * time.Hour
)

// IntervalKnown says whether d is a sampling interval gputop takes as
// known: from MinInterval to MaxInterval. Anything else (zero, negative, a
// nanosecond, a century) is an unknown interval.
func IntervalKnown(d time.Duration) bool { return d >= MinInterval && d <= MaxInterval }

// CheckLimits says, in one line, why a description is beyond what gputop
// holds: more than MaxHosts hosts or MaxGPUs GPUs, or a GPU numbered
// outside 0 to MaxGPUs-1 (its index, its index on its host, its MIG
// parent). The interval is not checked: see IntervalKnown.
func (in SourceInfo) CheckLimits() error {
	if err := CheckCounts(len(in.Hosts), len(in.GPUs)); err != nil {
		return err
	}
	for _, g := range in.GPUs {
		for _, n := range [...]int{g.Index, g.HostIndex, g.MIGParent} {
			if n < 0 || n >= MaxGPUs {
				return fmt.Errorf("a GPU numbered %d, outside 0 to %d", n, MaxGPUs-1)
			}
		}
	}
	return nil
}

// CheckCounts is CheckLimits' first check, for a reader to make before it
// makes anything of so many hosts and GPUs.
func CheckCounts(hosts, gpus int) error {
	switch {
	case hosts > MaxHosts:
		return fmt.Errorf("%d hosts, more than the %d gputop holds", hosts, MaxHosts)
	case gpus > MaxGPUs:
		return fmt.Errorf("%d GPUs, more than the %d gputop holds", gpus, MaxGPUs)
	}
	return nil
}
