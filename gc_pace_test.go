package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gputop-dev/gputop/ui"
)

// The pace is set at once and after collections, and stopping puts back
// the pace there was.
func TestPaceCollectorSetsThePaceAndPutsItBack(t *testing.T) {
	was := debug.SetGCPercent(37)
	defer debug.SetGCPercent(was)
	stop := paceCollector(func(uint64) int { return 60 })
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(60); got != 60 {
		t.Errorf("GOGC %d while paced, want 60", got)
	}
	stop()
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(37); got != 37 {
		t.Errorf("GOGC %d after stop, want the 37 there was", got)
	}
}

// A GOGC below the screens' 25 (or off) from the environment is kept.
func TestPaceCollectorLeavesALowerGOGCAlone(t *testing.T) {
	for _, asked := range []int{10, -1} {
		was := debug.SetGCPercent(asked)
		stop := paceCollector(func(uint64) int { return 100 })
		runtime.GC()
		if got := debug.SetGCPercent(asked); got != asked {
			t.Errorf("GOGC=%d asked for: paced to %d", asked, got)
		}
		stop()
		debug.SetGCPercent(was)
	}
}

func TestReportGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {24 << 20, 100}, {48 << 20, 50}, {70 << 20, 34}, {96 << 20, 25}, {1 << 30, 25}} {
		if got := reportGCPercent(c.live); got != c.want {
			t.Errorf("%d MB live: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// A session of fewer than ui.BigSession keeps the screen's 25; a big
// one's heap may grow by bigSessionHeadroom.
func TestHostsGCPercent(t *testing.T) {
	for _, c := range []struct {
		gpus int
		live uint64
		want int
	}{
		{16, 64 << 20, 25}, {ui.BigSession - 1, 0, 25},
		{ui.BigSession, 0, 100}, {512, 64 << 20, 100}, {512, 128 << 20, 100},
		{512, 256 << 20, 50}, {512, 400 << 20, 32}, {512, 2 << 30, 25},
	} {
		if got := hostsGCPercent(c.gpus, c.live); got != c.want {
			t.Errorf("%d GPUs, %d MB live: GOGC %d, want %d", c.gpus, c.live>>20, got, c.want)
		}
	}
}
