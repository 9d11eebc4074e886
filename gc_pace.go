package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/gputop-dev/gputop/ui"
)

// A report of a day and a session of many hosts hold hundreds of MB of
// columns without pointers, built up as they go: marking them is cheap, and
// collecting often is what costs. At the screen's GOGC of 25 a day's report
// collected 30 times, and the 64-host viewer spent 14-18 % of its CPU in
// the collector and 12 % more faulting in again the pages it had given
// back (docs/performance.md). So both set the collector's pace from what
// is live, after every collection, each by its own rule.

// paceCollector sets GOGC after every collection to percent(live), live
// being the heap's live bytes, until stop puts back the pace there was. A
// GOGC below the screens' 25, or off, asked for in the environment is
// left alone: someone wants less memory used than gputop would.
func paceCollector(percent func(live uint64) int) (stop func()) {
	before := debug.SetGCPercent(100)
	if before < 25 {
		debug.SetGCPercent(before)
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := -2 // none set yet
	pace := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return false
		}
		metrics.Read(sample)
		var live uint64
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = sample[0].Value.Uint64()
		}
		if want := percent(live); want != set {
			debug.SetGCPercent(want)
			set = want
		}
		return true
	}
	pace()
	// A finalizer runs after each collection that frees its object: it
	// paces, then sets itself up again for the next one.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
			if pace() {
				arm()
			}
		})
	}
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetGCPercent(before)
	}
}

// gcSentinel is an object whose finalizer tells of a collection: with a
// pointer in it, so that it is never one of the tiny objects the
// allocator packs together (which are freed with their neighbours).
type gcSentinel struct {
	_ *int
	_ int
}

// reportHeadroom is how much a report's heap grows between collections,
// at most, at a GOGC between 25 and 100. A report's live heap is mostly
// pointer-free blocks of numbers, cheap to mark: a day of 8 GPUs holds
// about 70 MB at its end and collects about 30 times, 1 % of its CPU,
// peaking at 136-139 MB of RSS where letting its heap double peaked at
// 170-180 MB (docs/performance.md, round 5).
const reportHeadroom = 24 << 20

// reportGCPercent is a report's pace.
func reportGCPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, max(25, 100*reportHeadroom/live)))
}

// bigSessionHeadroom is how much the heap of a big session (ui.BigSession
// GPUs or more, which the screen judges every few seconds too) grows
// between collections, at least.
const bigSessionHeadroom = 128 << 20

// hostsGCPercent is the pace of a session of gpus GPUs: the screen's
// quarter of what is live for one of fewer than ui.BigSession; a big one
// lets the heap grow by bigSessionHeadroom, between GOGC 25 and 100, so
// that it holds at most 128 MB more than at a quarter.
func hostsGCPercent(gpus int, live uint64) int {
	switch {
	case gpus < ui.BigSession:
		return 25
	case live == 0:
		return 100
	}
	return int(min(100, max(25, 100*bigSessionHeadroom/live)))
}
