package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/gputop-dev/gputop/timeline"
)

// The screen's history budget (--memory): what the live store may hold
// before it lets go of its oldest fine history. A profiler left open over
// SSH on a login node for a weekend must not grow without bound, nor take
// a share of a small machine's memory that its users would notice.
const (
	minHistoryBudget = 16 << 20
	maxHistoryBudget = 64 << 30
	// defaultHistoryBudgetCap is the default on any machine of 8 GiB or
	// more.
	defaultHistoryBudgetCap = timeline.DefaultHistoryBudget
)

// defaultHistoryBudget is a 64th of the machine's memory, from 32 MiB up
// to defaultHistoryBudgetCap.
func defaultHistoryBudget() int {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return defaultHistoryBudgetCap
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	return int(min(max(total/64, 32<<20), defaultHistoryBudgetCap))
}

// parseHistoryBudget reads a size such as 256MiB, 1GiB, 512M or 2G (M and
// G are MiB and GiB, as top and sort read them; MB and GB are decimal);
// "" is the default.
func parseHistoryBudget(s string) (int, error) {
	if s == "" {
		return defaultHistoryBudget(), nil
	}
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}}
	num, mult := s, 0.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = rest, u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if mult == 0 || err != nil || v != v {
		return 0, usageError{fmt.Sprintf("--memory %q: want a size such as 256MiB or 1GiB", s)}
	}
	n := v * mult
	if n < minHistoryBudget || n > maxHistoryBudget {
		return 0, usageError{fmt.Sprintf("--memory %q: want 16MiB to 64GiB", s)}
	}
	return int(n), nil
}

// newLiveStore is the screen's store of a live session within budget
// bytes.
func newLiveStore(budget int) *timeline.Store {
	return timeline.NewStore(timeline.StoreOptions{RawSamples: timeline.DefaultRawSamples, Budget: budget})
}
