package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// A report's pace is GOGC 100 while little is live, and stopping it puts
// back the pace there was, through collections before and after.
func TestPaceReportGCPutsBackThePace(t *testing.T) {
	was := debug.SetGCPercent(37)
	defer debug.SetGCPercent(was)
	stop := paceReportGC()
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d while a report holds little, want 100", got)
	}
	stop()
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(37); got != 37 {
		t.Errorf("GOGC %d after the report, want the 37 there was", got)
	}
}
