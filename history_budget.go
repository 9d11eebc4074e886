package main

import (
	"fmt"
	"syscall"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The screen's history budget (--memory): what the live store may hold
// before it lets go of its oldest fine history. A profiler left open over
// SSH on a login node for a weekend must not grow without bound, nor take
// a share of a small machine's memory that its users would notice.
const minHistoryBudget, maxHistoryBudget = 16 << 20, 64 << 30

// defaultHistoryBudget is a 64th of the machine's memory, from 32 MiB up
// to timeline.DefaultHistoryBudget (a machine of 8 GiB or more).
func defaultHistoryBudget() int {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return timeline.DefaultHistoryBudget
	}
	return int(min(max(uint64(si.Totalram)*uint64(si.Unit)/64, 32<<20), timeline.DefaultHistoryBudget))
}

// judgeBudget is what the judge keeps of its columns beside a screen's
// history of history bytes: half of it. Beside the default of a machine
// of 8 GiB or more that is 64 MiB, about two days of 8 GPUs or 50 minutes
// of 64 hosts of 8; what it lets go of was judged (Engine.SetBudget).
func judgeBudget(history int) int { return history / 2 }

// parseHistoryBudget reads --memory (units.ParseBytes); "" is the default.
func parseHistoryBudget(s string) (int, error) {
	if s == "" {
		return defaultHistoryBudget(), nil
	}
	n, err := units.ParseBytes(s)
	if err != nil {
		return 0, usageError{fmt.Sprintf("--memory %q: want a size such as 256MiB or 1GiB", s)}
	}
	if n < minHistoryBudget || n > maxHistoryBudget {
		return 0, usageError{fmt.Sprintf("--memory %q: want 16MiB to 64GiB", s)}
	}
	return int(n), nil
}

// newLiveStore is the screen's store of a live session within budget
// bytes, reading what it lets go of back from the session's recording
// (liveRecording.recall) where recall is not nil.
func newLiveStore(budget int, recall timeline.Recall) *timeline.Store {
	return timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.DefaultRawSamples, Budget: budget, Recall: recall})
}
