package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/load"
	"github.com/gputop-dev/gputop/timeline"
)

// A day of an 8-GPU node at 1 s is reported from every sample: its
// percentiles, peaks and idle fractions are of what was recorded, not of
// minute averages. The report's store keeps that many values raw for the
// demo's node, with every series it records, and for a node of 128 cores
// (a series a core more). At 32 Mi values it kept 17.5 hours of a day
// and the first 6.5 as averages, which put GPU0's idle at 23 % of the
// demo's day where every sample says 32 %.
func TestADayOfANodeIsReportedFromEverySample(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "node.gtr")
	if code := run([]string{"record", "-o", path, "--demo", "--fast", "--duration", "5s"}, &newTestEnv().env); code != 0 {
		t.Fatal("record failed")
	}
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	store, _, _, err := load.Recording(r, path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	const day, moreCores = 86_401, 128 - 32
	series := len(store.Keys())
	if series < 500 {
		t.Fatalf("the demo's node records %d series; this test expects NVLink per link and the health fields", series)
	}
	if need := day * (series + moreCores); need > timeline.FileRawValues {
		t.Errorf("a day of %d series (and %d more cores) is %d values; a report keeps %d raw", series, moreCores, need,
			timeline.FileRawValues)
	}
}
