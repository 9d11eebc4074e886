package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// haRun plays a script as htEngine does, with owners and processes on the
// process tier's ticks (every 5 s), and returns the hints over all of it.
func haRun(secs int, script func(t *htTick), owners func(sec int) []timeline.Owner,
	procs func(sec int) []timeline.Process) []timeline.Hint {
	e := NewEngineWith(timeline.SourceInfo{Interval: time.Second}, frame.DefaultOptions(), PhaseOptions{})
	for sec := range secs {
		t := &htTick{sec: sec}
		script(t)
		s := timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(t.m)
		if sec%5 == 0 {
			s.Owners = owners(sec)
			if s.Owners == nil {
				s.Owners = []timeline.Owner{}
			}
			s.Processes = []timeline.Process{}
			if procs != nil {
				s.Processes = procs(sec)
			}
		}
		e.Add(&s)
	}
	return e.Hints(e.Last())
}

var (
	haPod  = timeline.Owner{Pod: "notebook-bob", Namespace: "team-b", Container: "jupyter"}
	haJob  = timeline.Owner{Job: "4250", User: "carol", Partition: "gpu"}
	haPodA = timeline.Owner{Pod: "train-0", Namespace: "team-a", Container: "trainer"}
)

func haOn(gpu int, o timeline.Owner) timeline.Owner { o.GPU = gpu; return o }

func TestAllocatedIdle(t *testing.T) {
	busyIdle := func(t *htTick) {
		t.h100(0, 97, 75, 600, 60*htGiB)
		t.h100(1, 0, 0, 70, 0)
	}
	for _, c := range []struct {
		name    string
		secs    int
		script  func(t *htTick)
		owners  func(sec int) []timeline.Owner
		procs   func(sec int) []timeline.Process
		gpus    []int
		says    []string
		notSaid []string // other hints that must not name the idle GPU
	}{
		{name: "a pod's GPU idle beside a busy one", secs: 480, script: busyIdle,
			owners: func(int) []timeline.Owner { return []timeline.Owner{haOn(0, haPodA), haOn(1, haPod)} },
			gpus:   []int{1},
			says:   []string{"GPU1 allocated to pod team-b/notebook-bob (jupyter), no process on it", "0% util", "for 7m59s"},
			// NVML alone said gpu-imbalance: the owners say whose it is.
			notSaid: []string{timeline.HintGPUImbalance, timeline.HintGPUIdle}},
		{name: "a job's process that never computes", secs: 480,
			script: func(t *htTick) { t.h100(0, 0, 0, 90, 10*htGiB) },
			owners: func(int) []timeline.Owner { return []timeline.Owner{haOn(0, haJob)} },
			procs: func(int) []timeline.Process {
				return []timeline.Process{{GPU: 0, PID: 7, User: "carol", Command: "python wait.py"}}
			},
			gpus: []int{0},
			says: []string{"GPU0 allocated to Slurm job 4250 (carol, gpu), 1 process on it, not computing", "10.0GiB memory used"}},
		{name: "an idle GPU no one holds", secs: 480, script: busyIdle,
			owners: func(int) []timeline.Owner { return []timeline.Owner{haOn(0, haPodA)} }},
		{name: "a held GPU at work", secs: 480,
			script: func(t *htTick) { t.h100(0, 97, 75, 600, 60*htGiB) },
			owners: func(int) []timeline.Owner { return []timeline.Owner{haOn(0, haPod)} }},
		{name: "allocated, used, then left idle for less than 5 min", secs: 480,
			script: func(t *htTick) {
				if t.sec < 240 {
					t.h100(0, 97, 75, 600, 60*htGiB)
				} else {
					t.h100(0, 0, 0, 70, 0)
				}
			},
			owners: func(int) []timeline.Owner { return []timeline.Owner{haOn(0, haPod)} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			hints := haRun(c.secs, c.script, c.owners, c.procs)
			got := htFind(hints, timeline.HintAllocatedIdle)
			if c.gpus == nil {
				if len(got) > 0 {
					t.Fatalf("allocated-idle where it must be silent:\n%s", htDump(hints))
				}
				return
			}
			if len(got) != 1 || !slices.Equal(got[0].GPUs, c.gpus) || got[0].Severity != timeline.Warning || got[0].Provisional {
				t.Fatalf("want one firm warning on %v:\n%s", c.gpus, htDump(hints))
			}
			for _, s := range c.says {
				if !strings.Contains(got[0].Evidence, s) {
					t.Errorf("evidence %q lacks %q", got[0].Evidence, s)
				}
			}
			for _, h := range hints {
				if slices.Contains(c.notSaid, h.ID) && slices.ContainsFunc(c.gpus, func(g int) bool { return slices.Contains(h.GPUs, g) }) {
					t.Errorf("%s still names the allocated GPU:\n%s", h.ID, htDump(hints))
				}
			}
		})
	}
}

// Two holders idle at once are two episodes of the one hint, each naming
// its own; a holder that lets the GPU go ends its episode there.
func TestAllocatedIdleNamesEachHolder(t *testing.T) {
	hints := haRun(900, func(t *htTick) {
		t.h100(0, 0, 0, 70, 0)
		t.h100(1, 0, 0, 70, 0)
	}, func(sec int) []timeline.Owner {
		if sec < 600 {
			return []timeline.Owner{haOn(0, haPod), haOn(1, haJob)}
		}
		return []timeline.Owner{haOn(0, haPod)} // the job ended at 10 min
	}, nil)
	got := htFind(hints, timeline.HintAllocatedIdle)
	if len(got) != 1 || len(got[0].Episodes) != 2 || !slices.Equal(got[0].GPUs, []int{0, 1}) {
		t.Fatalf("want one hint of two episodes:\n%s", htDump(hints))
	}
	for _, ep := range got[0].Episodes {
		switch {
		case slices.Equal(ep.GPUs, []int{0}):
			if !strings.Contains(ep.Evidence, "pod team-b/notebook-bob") || !ep.End.Equal(htT0.Add(899*time.Second)) {
				t.Errorf("the pod's episode: %v-%v %s", ep.Start, ep.End, ep.Evidence)
			}
		case slices.Equal(ep.GPUs, []int{1}):
			if !strings.Contains(ep.Evidence, "Slurm job 4250 (carol, gpu)") ||
				ep.End.Before(htT0.Add(595*time.Second)) || ep.End.After(htT0.Add(610*time.Second)) {
				t.Errorf("the job's episode: %v-%v %s", ep.Start.Sub(htT0), ep.End.Sub(htT0), ep.Evidence)
			}
		default:
			t.Errorf("an episode of GPUs %v", ep.GPUs)
		}
	}
}

// OwnerSpans: a GPU's stretches under the same owners, cut where they
// change (not where its processes do), the last up to the last sample;
// a GPU let go has none after.
func TestOwnerSpans(t *testing.T) {
	e := NewEngineWith(timeline.SourceInfo{Interval: time.Second}, frame.DefaultOptions(), PhaseOptions{})
	at := func(s int) time.Time { return htT0.Add(time.Duration(s) * time.Second) }
	for sec := 0; sec <= 300; sec += 5 {
		s := timeline.Sample{At: at(sec), Processes: []timeline.Process{}}
		switch {
		case sec < 100:
			s.Owners = []timeline.Owner{haOn(0, haPod), haOn(1, haPodA), haOn(1, haJob)}
		case sec < 200:
			s.Owners = []timeline.Owner{haOn(0, haJob), haOn(1, haPodA), haOn(1, haJob)}
		default:
			s.Owners = []timeline.Owner{haOn(0, haJob)}
		}
		if sec == 50 {
			s.Processes = []timeline.Process{{GPU: 0, PID: 9}}
		}
		e.Add(&s)
	}
	got := e.OwnerSpans()
	want := []struct {
		gpu      int
		from, to int
		holders  string
	}{
		{0, 0, 100, "pod team-b/notebook-bob"},
		{0, 100, 300, "Slurm job 4250"},
		{1, 0, 200, "pod team-a/train-0 and Slurm job 4250"},
	}
	if len(got) != len(want) {
		t.Fatalf("spans %+v", got)
	}
	for i, w := range want {
		g := got[i]
		var names []string
		for _, o := range g.Owners {
			names = append(names, frame.Holder(o))
		}
		if g.GPU != w.gpu || !g.From.Equal(at(w.from)) || !g.To.Equal(at(w.to)) || strings.Join(names, " and ") != w.holders {
			t.Errorf("span %d: GPU%d %v-%v %v; want GPU%d %ds-%ds %s", i, g.GPU, g.From.Sub(htT0), g.To.Sub(htT0), names,
				w.gpu, w.from, w.to, w.holders)
		}
	}
	if NewEngine(timeline.SourceInfo{}).OwnerSpans() != nil {
		t.Error("a session without owners has spans")
	}
}
