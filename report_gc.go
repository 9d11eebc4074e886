package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// reportGCSmall is the live heap under which a report lets the heap grow to
// twice what is live before collecting (GOGC 100), and past which to a
// quarter more (GOGC 25). The store and the analysis of a day of 8 GPUs
// hold about 260 MB, built up as it is read; they hold no pointers in their
// series, so marking is cheap and collecting often is what costs: at 25 %
// a day took 30 collections. A bigger recording's heap stays within a
// quarter of what it holds, as before.
const reportGCSmall = 256 << 20

// paceReportGC sets the collector's pace for a report from what is live
// after each collection (reportGCSmall), until stop is called, which puts
// back the pace there was.
func paceReportGC() (stop func()) {
	var mu sync.Mutex
	stopped := false
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	percent := -2 // none set yet
	before := debug.SetGCPercent(100)
	pace := func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		metrics.Read(sample)
		want := 100
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() >= reportGCSmall {
			want = 25
		}
		if want != percent {
			debug.SetGCPercent(want)
			percent = want
		}
	}
	pace()
	// A finalizer runs after each collection that frees its object: it
	// paces, then sets itself up again for the next one.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
			pace()
			mu.Lock()
			again := !stopped
			mu.Unlock()
			if again {
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
