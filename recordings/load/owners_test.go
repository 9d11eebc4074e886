package load

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
)

// Owners written to a file reach gputop report's Engine and the report's
// section by owner: a pod holding GPU1 for the first half, a Slurm job
// after it.
func TestOwnersFromAFileReachTheReport(t *testing.T) {
	ss := recordingstest.Samples(120, 2)
	pod := timeline.Owner{GPU: 1, Pod: "nb", Namespace: "team-b"}
	job := timeline.Owner{GPU: 1, Job: "77", User: "eve"}
	for i := 0; i < len(ss); i += 5 {
		if i < 60 {
			ss[i].Owners = []timeline.Owner{pod}
		} else {
			ss[i].Owners = []timeline.Owner{job}
		}
	}
	r := recordingOf(t, ss)
	store, eng, _, err := Recording(r, "owned.gtr", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	spans := eng.OwnerSpans()
	if len(spans) != 2 || !spans[0].From.Equal(ss[0].At) || !spans[0].To.Equal(ss[60].At) || !spans[1].To.Equal(ss[119].At) ||
		spans[1].Owners[0].Job != "77" {
		t.Fatalf("spans %+v", spans)
	}
	rep := report.NewReportOf(store, eng, report.ReportOptions{PriceGPUHour: 3})
	if len(rep.Owners) != 2 || rep.Owners[0].Owner != "pod team-b/nb" || rep.Owners[1].Owner != "Slurm job 77" ||
		rep.Owners[1].User != "eve" || !(rep.Owners[0].Cost > 0) {
		t.Fatalf("report owners %+v", rep.Owners)
	}
}

// recordingOf is ss written to a file of 2 GPUs at 1 s, opened; it closes
// with the test.
func recordingOf(t *testing.T, ss []timeline.Sample) *recordings.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.gtr")
	w, err := recordings.Create(path, recordings.Header{Version: "v-test", Info: recordingstest.Info(2, time.Second),
		Start: ss[0].At}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
