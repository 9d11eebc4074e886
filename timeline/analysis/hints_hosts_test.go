package analysis_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The cross-host hints on synthetic clusters of H100s (timelinetest.Cluster):
// each case is what a person would see on a cluster, the hint they should
// get, and the one-GPU hints that must not repeat it.

// hhGPUs is the session-wide indexes of host h of a cluster of 8-GPU hosts.
func hhGPUs(h int) []int {
	out := make([]int, 8)
	for g := range out {
		out[g] = h*8 + g
	}
	return out
}

// hhCross are the cross-host hint ids.
var hhCross = []string{timeline.HintHostIdle, timeline.HintHostLate, timeline.HintStragglerHost, timeline.HintUnevenMemory}

func hhRun(hosts, secs int, read func(h, g, sec int) timelinetest.GPUReading) []timeline.Hint {
	info, samples := timelinetest.Cluster(hosts, 8, secs, read)
	e := analysis.NewEngine(info)
	for i := range samples {
		e.Add(&samples[i])
	}
	return e.Hints(e.Last())
}

func TestCrossHostHints(t *testing.T) {
	tr, idle, spin := timelinetest.Training, timelinetest.Idle, timelinetest.Spinning
	for _, tt := range []struct {
		name  string
		hosts int
		secs  int
		read  func(h, g, sec int) timelinetest.GPUReading
		// want: the hint's id, GPUs, least severity and words its evidence
		// must have; "" for no cross-host hint at all.
		want   string
		gpus   []int
		sev    timeline.Severity
		words  []string
		notOn  []string // one-GPU hints that must not name these GPUs
		noWarn bool     // nothing at warning or worse at all
		noneOf []string // hints that must not be given at all
	}{
		{name: "one host idle from the start (never starts)", hosts: 4, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if h == 2 {
					return idle
				}
				return tr
			},
			want: timeline.HintHostIdle, gpus: hhGPUs(2), sev: timeline.Warning,
			words: []string{"node3 GPU0-7 idle", "never started", "node1, node2 and node4 work",
				"for 9m59s"}, // 600 samples a second apart: the first to the last
			notOn: []string{timeline.HintGPUIdle, timeline.HintGPUImbalance, timeline.HintIdleMemoryHeld}},
		{name: "one host idle, holding memory, while the others spin waiting for it", hosts: 2, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if h == 1 {
					r := idle
					r.Mem = 30 << 30
					return r
				}
				if sec < 120 {
					return tr
				}
				return spin
			},
			want: timeline.HintHostIdle, gpus: hhGPUs(1), sev: timeline.Critical,
			words:  []string{"node2 GPU0-7 idle", "30.0GiB memory used", "node1 busy-wait"},
			notOn:  []string{timeline.HintGPUIdle, timeline.HintGPUImbalance, timeline.HintIdleMemoryHeld},
			noneOf: []string{timeline.HintBusyWait}},
		{name: "one host late by 10 min", hosts: 4, secs: 1200,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if sec < 60 || (h == 1 && sec < 660) {
					return idle
				}
				return tr
			},
			want: timeline.HintHostLate, gpus: hhGPUs(1), sev: timeline.Warning,
			words: []string{"node2 started 10m after node1, node3 and node4", "at 12:11:00, they at 12:01:00", "10m of 8 GPUs lost"},
			notOn: []string{timeline.HintHostIdle, timeline.HintGPUIdle, timeline.HintGPUImbalance}},
		{name: "a throttled straggler the others wait for", hosts: 4, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if h == 3 {
					return timelinetest.GPUReading{Util: 99, SM: 78, Power: 700, Clock: 1410, Mem: 40 << 30}
				}
				// Faster, they spin in the all-reduce a third of each step.
				return timelinetest.GPUReading{Util: 99, SM: 52, Power: 430, Clock: 1980, Mem: 40 << 30}
			},
			want: timeline.HintStragglerHost, gpus: hhGPUs(3), sev: timeline.Warning,
			words:  []string{"node4 GPU0-7 work", "1410MHz", "node1, node2 and node3 wait", "every step waits for node4"},
			noneOf: []string{timeline.HintBusyWait}},
		{name: "a straggler whose utilisation dips (its input is slow) while the others stay pegged", hosts: 2, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if h == 0 {
					return timelinetest.GPUReading{Util: 72, SM: 55, Power: 520, Clock: 1980, Mem: 40 << 30}
				}
				return timelinetest.GPUReading{Util: 99, SM: 54, Power: 450, Clock: 1980, Mem: 40 << 30}
			},
			want: timeline.HintStragglerHost, gpus: hhGPUs(0), sev: timeline.Warning,
			words: []string{"node1 GPU0-7 work", "while node2 wait"}},
		{name: "uneven memory: one host at 78 GB a GPU, the others at 40", hosts: 4, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading {
				r := tr
				if h == 2 {
					r.Mem = 78 << 30
				}
				return r
			},
			want: timeline.HintUnevenMemory, gpus: hhGPUs(2), sev: timeline.Warning,
			words: []string{"node3 GPU0-7 hold 78.0/80.0GiB per GPU", "38.0GiB more than the hosts' median of 40.0GiB"}},
		{name: "a healthy 4-host cluster", hosts: 4, secs: 900,
			read: func(h, g, sec int) timelinetest.GPUReading {
				r := tr
				r.SM += float64(h) // hosts a little apart, as real ones are
				r.Mem += float64(h << 30)
				return r
			},
			noWarn: true},
		{name: "a host not answering for 5 min is a gap, not idle", hosts: 4, secs: 900,
			read: func(h, g, sec int) timelinetest.GPUReading {
				if h == 1 && sec >= 300 && sec < 600 {
					return timelinetest.Absent
				}
				return tr
			},
			noWarn: true},
		{name: "every host idle is no cross-host hint", hosts: 4, secs: 600,
			read: func(h, g, sec int) timelinetest.GPUReading { return idle }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hints := hhRun(tt.hosts, tt.secs, tt.read)
			dump := hxDump(hints)
			for _, h := range hints {
				if slices.Contains(hhCross, h.ID) && h.ID != tt.want {
					t.Errorf("unexpected %s:\n%s", h.ID, dump)
				}
				if slices.Contains(tt.noneOf, h.ID) {
					t.Errorf("%s repeats what %s says:\n%s", h.ID, tt.want, dump)
				}
				if tt.noWarn && h.Severity >= timeline.Warning {
					t.Errorf("a warning on a healthy cluster:\n%s", dump)
				}
				for _, id := range tt.notOn {
					if h.ID == id && slices.ContainsFunc(h.GPUs, func(g int) bool { return slices.Contains(tt.gpus, g) }) {
						t.Errorf("%s repeats what %s says:\n%s", id, tt.want, dump)
					}
				}
			}
			if tt.want == "" {
				return
			}
			i := slices.IndexFunc(hints, func(h timeline.Hint) bool { return h.ID == tt.want })
			if i < 0 {
				t.Fatalf("no %s:\n%s", tt.want, dump)
			}
			h := hints[i]
			if !slices.Equal(h.GPUs, tt.gpus) || h.Severity < tt.sev {
				t.Errorf("%s on %v at %v, want %v at %v or worse:\n%s", h.ID, h.GPUs, h.Severity, tt.gpus, tt.sev, dump)
			}
			for _, w := range tt.words {
				if !strings.Contains(h.Evidence, w) {
					t.Errorf("evidence lacks %q: %s", w, h.Evidence)
				}
			}
			if h.Suggestion == "" || h.Provisional {
				t.Errorf("want a firm hint with a next step: %+v", h)
			}
		})
	}
}

// A hint of a multi-host session names GPUs by host; late, the screen
// at any moment says what the report --to that moment says (the Engine
// asked as it goes and a fresh one asked after the fact agree).
func TestCrossHostScreenAgreesWithReport(t *testing.T) {
	info, samples := timelinetest.Cluster(4, 8, 1200, func(h, g, sec int) timelinetest.GPUReading {
		switch {
		case sec < 60 || (h == 1 && sec < 660):
			return timelinetest.Idle
		case h == 3 && sec >= 900:
			return timelinetest.GPUReading{Util: 99, SM: 80, Power: 700, Clock: 1410, Mem: 78 << 30}
		case sec >= 900:
			return timelinetest.GPUReading{Util: 99, SM: 50, Power: 420, Clock: 1980, Mem: 40 << 30}
		}
		return timelinetest.Training
	})
	live := analysis.NewEngine(info)
	for i := range samples {
		live.Add(&samples[i])
		at := samples[i].At
		if i%97 != 0 && i != len(samples)-1 {
			continue
		}
		got := live.Hints(at)
		fresh := analysis.NewEngine(info)
		until := analysis.SamplesUntil(info, at)
		for k := range samples {
			if samples[k].At.Before(until) {
				fresh.Add(&samples[k])
			}
		}
		want := fresh.Hints(at)
		if hxDump(got) != hxDump(want) {
			t.Fatalf("at %v the screen says\n%s\nand the report\n%s", at.Format(time.TimeOnly), hxDump(got), hxDump(want))
		}
	}
	final := live.Hints(live.Last())
	var ids []string
	for _, h := range final {
		ids = append(ids, h.ID)
	}
	for _, id := range []string{timeline.HintHostLate, timeline.HintStragglerHost, timeline.HintUnevenMemory} {
		if !slices.Contains(ids, id) {
			t.Errorf("no %s at the end:\n%s", id, hxDump(final))
		}
	}
}

// Four demo scenarios, each standing for one host of a session (as
// `gputop --hosts` or a Prometheus import records them: GPUs gpu0-31,
// other devices host@nodeN): each host's own hint comes out on that host's
// GPUs, named by host, and the healthy host gets none.
func TestCrossHostDemoHosts(t *testing.T) {
	var runs []timelinetest.HostRun
	for k, sc := range []string{"training", "imbalance", "throttle", "checkpoint"} {
		samples, info := hxRecordDemo(t, sc, 1, 10*time.Minute)
		runs = append(runs, timelinetest.HostRun{Name: timelinetest.ClusterHost(k), Info: info, Samples: samples})
	}
	info, samples := timelinetest.Combine(runs)
	if len(info.GPUs) != 32 || !info.MultiHost() || info.GPUs[9].Host != "node2" || info.GPUs[9].HostIndex != 1 {
		t.Fatalf("combined badly: %+v", info.GPUs)
	}
	hints := hxReport(samples, info).Hints(samples[len(samples)-1].At)
	dump := hxDump(hints)
	want := func(id string, gpus []int, sev timeline.Severity, words string) {
		t.Helper()
		for _, h := range hints {
			if h.ID == id && (gpus == nil || slices.Equal(h.GPUs, gpus)) && h.Severity >= sev && strings.Contains(h.Evidence, words) {
				return
			}
		}
		t.Errorf("no %s on %v at %v or worse saying %q:\n%s", id, gpus, sev, words, dump)
	}
	// node2 is the imbalance demo: its GPU1 works, its other seven idle,
	// more than half of that host's GPUs: critical, within the host.
	want(timeline.HintGPUImbalance, []int{8, 10, 11, 12, 13, 14, 15}, timeline.Critical, "node2 GPU1 busy")
	want(timeline.HintPowerCapped, nil, timeline.Warning, "node3 GPU")
	want(timeline.HintPeriodicStall, hhGPUs(3), timeline.Warning, "node4 GPU0 idle")
	for _, h := range hints {
		// Four different jobs are not one job's hosts: how their paces
		// and memory compare (straggler-host, uneven-memory) says nothing
		// of them, and is not asked here. But they all start at once, and
		// none idles: the imbalance host's one busy GPU of eight keeps it under
		// host-idle's 90 %.
		if h.ID == timeline.HintHostIdle || h.ID == timeline.HintHostLate {
			t.Errorf("%s:\n%s", h.ID, dump)
		}
		if !slices.Contains(hhCross, h.ID) && slices.ContainsFunc(h.GPUs, func(g int) bool { return g < 8 }) &&
			h.Severity >= timeline.Warning {
			t.Errorf("the healthy host node1 got %s:\n%s", h.ID, dump)
		}
	}
}
