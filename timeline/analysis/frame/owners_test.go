package frame

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

var otT0 = time.Date(2025, 7, 27, 12, 0, 0, 0, time.UTC)

// A GPU's owners and processes as known at each moment: from the sample
// that said them on, a repeat changing nothing, an empty answer letting
// every GPU go, a nil one (not read) leaving them as they were.
func TestOwnerTrackSteps(t *testing.T) {
	pod := timeline.Owner{GPU: 0, Pod: "p", Namespace: "n"}
	job := timeline.Owner{GPU: 1, Job: "7", User: "u"}
	var o OwnerTrack
	at := func(s int) time.Time { return otT0.Add(time.Duration(s) * time.Second) }
	o.Add(&timeline.Sample{At: at(0), Owners: []timeline.Owner{pod, job},
		Processes: []timeline.Process{{GPU: 0, PID: 1}, {GPU: 0, PID: 2}, {GPU: 3, PID: 4}}})
	o.Add(&timeline.Sample{At: at(5), Owners: []timeline.Owner{pod, job}, Processes: []timeline.Process{{GPU: 0, PID: 1}, {GPU: 0, PID: 2}}})
	o.Add(&timeline.Sample{At: at(7)})
	o.Add(&timeline.Sample{At: at(10), Owners: []timeline.Owner{pod}, Processes: []timeline.Process{}})
	o.Add(&timeline.Sample{At: at(20), Owners: []timeline.Owner{}})
	o.Add(&timeline.Sample{At: at(25), Owners: []timeline.Owner{{GPU: -1, Pod: "x"}, {GPU: timeline.MaxGPUs, Pod: "x"}}})
	for _, c := range []struct {
		gpu, sec    int
		holder      string
		procs       int
		stepsOfGPU0 int
	}{
		{0, 0, "", -1, 0},           // before the first answer
		{0, 1, "pod n/p", 2, 0},     // from it on
		{1, 6, "Slurm job 7", 0, 0}, //
		{0, 11, "pod n/p", 0, 0},    // its processes gone
		{1, 11, "", 0, 0},           // the job let GPU1 go
		{0, 30, "", 0, 0},           // every GPU let go
		{3, 1, "", -1, 0},           // never allocated: its processes not counted
	} {
		st := o.At(c.gpu, at(c.sec))
		holder := ""
		if len(st.Owners) > 0 {
			holder = Holder(st.Owners[0])
		}
		if holder != c.holder || st.Procs != c.procs {
			t.Errorf("GPU%d at %ds: %q with %d processes, want %q with %d", c.gpu, c.sec, holder, st.Procs, c.holder, c.procs)
		}
	}
	if got := len(o.Steps(0)); got != 3 {
		t.Errorf("GPU0 has %d steps, want 3 (owned with 2 processes, none, let go): %+v", got, o.Steps(0))
	}
	if g := o.GPUs(); len(g) != 2 {
		t.Errorf("GPUs %v, want 0 and 1: those out of range are left out", g)
	}
}

// Owners that change every tick, on many GPUs, with the longest names, are
// held under maxOwnerBytes: the older steps go, the latest stay.
func TestOwnerTrackBounded(t *testing.T) {
	var o OwnerTrack
	long := strings.Repeat("x", 253)
	for i := range 3000 {
		var ws []timeline.Owner
		for g := range 64 {
			ws = append(ws, timeline.Owner{GPU: g, Pod: fmt.Sprint(long, i), Namespace: long, Container: long})
		}
		o.Add(&timeline.Sample{At: otT0.Add(time.Duration(i) * time.Second), Owners: ws})
		if o.bytes > maxOwnerBytes+64*2000 {
			t.Fatalf("after %d samples the steps hold %d bytes", i, o.bytes)
		}
	}
	if st := o.At(5, otT0.Add(time.Hour)); o.over || len(st.Owners) != 1 || !strings.HasSuffix(st.Owners[0].Pod, "2999") {
		t.Errorf("the latest owners lost: over %v, %+v", o.over, st)
	}
}

func TestHolder(t *testing.T) {
	for _, c := range []struct {
		o              timeline.Owner
		holder, detail string
	}{
		{timeline.Owner{Pod: "train-0", Namespace: "team-a", Container: "trainer"}, "pod team-a/train-0", " (trainer)"},
		{timeline.Owner{Pod: "train-0"}, "pod train-0", ""},
		{timeline.Owner{Job: "4242", User: "alice", Partition: "gpu"}, "Slurm job 4242", " (alice, gpu)"},
		{timeline.Owner{Job: "4242", Partition: "gpu"}, "Slurm job 4242", " (gpu)"},
		{timeline.Owner{User: "alice"}, "", " (alice)"},
		// A name from outside cannot reach a terminal with its escapes.
		{timeline.Owner{Pod: "x\x1b[2Jy", Namespace: "n"}, "pod n/x" + timeline.CleanText("\x1b[2J") + "y", ""},
	} {
		if h, d := Holder(c.o), HolderDetail(c.o); h != c.holder || d != c.detail {
			t.Errorf("%+v: %q %q, want %q %q", c.o, h, d, c.holder, c.detail)
		}
	}
}
