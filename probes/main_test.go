package probes

import (
	"os"
	"testing"
)

// TestMain lets this test binary be the guard of the jobs its tests
// start: StartJob runs the binary it is in again as the guard.
func TestMain(m *testing.M) {
	JobGuardMain()
	// A guard built with -race sleeps a second before it exits (GORACE's
	// atexit_sleep_ms), and Close waits for it: nothing here needs that.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}
