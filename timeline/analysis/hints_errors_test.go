package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/phases"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// link puts GPU i's PCIe link: generation and width now, of their maximum.
func (t *htTick) link(i, gen, width, genMax, widthMax int) {
	t.gpu(i, timeline.GPUPCIeGen, float64(gen))
	t.gpu(i, timeline.GPUPCIeWidth, float64(width))
	t.gpu(i, timeline.GPUPCIeGenMax, float64(genMax))
	t.gpu(i, timeline.GPUPCIeWidthMax, float64(widthMax))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestLinkDegraded(t *testing.T) {
	cases := []struct {
		name   string
		script func(t *htTick)
		want   string // evidence, "" for no hint
	}{
		{"healthy links", func(t *htTick) {
			htHealthy(t)
			htEvery8(func(i int) { t.link(i, 5, 16, 5, 16) })
		}, ""},
		// NVIDIA GPUs drop to Gen1 while idle to save power: no finding.
		{"gen down at idle only", func(t *htTick) {
			htEvery8(func(i int) {
				t.h100(i, 0, 0, 70, 0)
				t.link(i, 1, 16, 5, 16)
			})
		}, ""},
		{"x8 of x16 while busy", func(t *htTick) {
			htHealthy(t)
			htEvery8(func(i int) { t.link(i, 5, 16>>b2i(i == 6), 5, 16) })
		}, "GPU6 PCIe link at Gen5 x8 of Gen5 x16 while working, 4m59s of 4m59s working"},
		{"gen3 of gen5 while busy", func(t *htTick) {
			htHealthy(t)
			htEvery8(func(i int) { t.link(i, 5-2*b2i(i == 2), 16, 5, 16) })
		}, "GPU2 PCIe link at Gen3 x16 of Gen5 x16 while working"},
		{"a few seconds down while busy", func(t *htTick) {
			htHealthy(t)
			htEvery8(func(i int) { t.link(i, 5-2*b2i(i == 2 && t.sec < 10), 16, 5, 16) })
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := htFind(htRun(300, tc.script), timeline.HintLinkDegraded)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected hint: %s", got[0].Evidence)
			case tc.want != "" && len(got) == 0:
				t.Errorf("no hint, want %q", tc.want)
			case tc.want != "" && !strings.HasPrefix(got[0].Evidence, tc.want):
				t.Errorf("evidence %q, want %q", got[0].Evidence, tc.want)
			case tc.want != "" && got[0].Severity != timeline.Warning:
				t.Errorf("severity %v", got[0].Severity)
			}
		})
	}
}

// An Xid's marker makes a gpu-error hint with the catalogue's meaning; a GPU
// lost after it makes it critical and ongoing. Markers of Xids are not
// phases of the job.
func TestGPUErrorFromXidMarkers(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	var markers []timeline.Marker
	for sec := range 200 {
		tk := &htTick{sec: sec}
		htHealthy(tk)
		s := timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(tk.m)
		switch sec {
		case 60:
			s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(3, 13), Origin: timeline.XidOrigin}}
		case 100:
			s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(1, 48), Origin: timeline.XidOrigin}}
		case 130:
			s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(1, 79), Origin: timeline.XidOrigin},
				{At: s.At, Text: "GPU1 Xid 79: made by hand", Origin: "key"}}
		}
		if sec >= 130 {
			s.Probes = []timeline.ProbeStatus{{Probe: "nvml", Device: "gpu1", State: timeline.ProbeLost, Err: "GPU is lost"}}
		}
		markers = append(markers, s.Markers...)
		e.Add(&s)
	}
	if got := htFind(e.Hints(htT0.Add(50*time.Second)), timeline.HintGPUError); len(got) != 0 {
		t.Errorf("a hint before the first Xid: %s", got[0].Evidence)
	}
	got := htFind(e.Hints(e.Last()), timeline.HintGPUError)
	if len(got) != 1 {
		t.Fatalf("%d gpu-error hints, want 1", len(got))
	}
	h := got[0]
	if h.Severity != timeline.Critical || !h.Ongoing || len(h.Episodes) != 2 {
		t.Errorf("severity %v, ongoing %v, %d episodes", h.Severity, h.Ongoing, len(h.Episodes))
	}
	want := "GPU1 Xid 48 (Double Bit ECC Error) at 1m40s in, then Xid 79 (GPU has fallen off the bus) at 2m10s in; " +
		"lost (not answering NVML) since 2m10s in"
	if !strings.HasPrefix(h.Evidence, want) {
		t.Errorf("evidence %q, want %q", h.Evidence, want)
	}
	var app timeline.Episode
	for _, ep := range h.Episodes {
		if len(ep.GPUs) == 1 && ep.GPUs[0] == 3 {
			app = ep
		}
	}
	if app.Severity != timeline.Warning || app.Evidence != "GPU3 Xid 13 (Graphics Engine Exception) at 1m in" {
		t.Errorf("GPU3's episode: %+v", app)
	}
	for _, p := range phases.FromMarkers(markers, htT0, e.Last()) {
		if strings.Contains(p.Label, "Xid 48") {
			t.Errorf("an Xid made a phase: %+v", p)
		}
	}
}

// An uncorrectable error does not end when the driver has reported it: a
// double-bit ECC error with the GPU still answering holds until a reset,
// so the hint is ongoing at the end (never dimmed as "ended"), and says
// why. A recoverable Xid (13, the application's fault) ends at itself.
func TestGPUErrorFatalXidHolds(t *testing.T) {
	for _, c := range []struct {
		code    int
		ongoing bool
		words   string
	}{
		{48, true, "GPU1 Xid 48 (Double Bit ECC Error) at 1m40s in; it holds until the GPU is reset"},
		{95, true, "; it holds until the GPU is reset"},
		{13, false, "GPU1 Xid 13 (Graphics Engine Exception) at 1m40s in"},
	} {
		e := NewEngine(timeline.SourceInfo{Interval: time.Second})
		for sec := range 300 {
			tk := &htTick{sec: sec}
			htHealthy(tk)
			s := timeline.Sample{At: htT0.Add(time.Duration(sec) * time.Second)}.WithMetrics(tk.m)
			if sec == 100 {
				s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(1, c.code), Origin: timeline.XidOrigin}}
			}
			e.Add(&s)
		}
		got := htFind(e.Hints(e.Last()), timeline.HintGPUError)
		if len(got) != 1 {
			t.Fatalf("Xid %d: %d gpu-error hints, want 1", c.code, len(got))
		}
		h := got[0]
		if h.Ongoing != c.ongoing || !strings.Contains(h.Evidence, c.words) {
			t.Errorf("Xid %d: ongoing %v (want %v), evidence %q, want %q in it", c.code, h.Ongoing, c.ongoing, h.Evidence, c.words)
		}
		if c.ongoing && strings.Contains(h.Suggestion, "gone from the bus") {
			t.Errorf("Xid %d: a GPU still answering is advised as lost: %q", c.code, h.Suggestion)
		}
	}
}

// A hint over several GPUs whose evidence is one episode's says which GPUs
// the other episodes name: "link-degraded on GPU6-7" must not read as if
// only GPU6's link were down.
func TestLinkDegradedNamesEveryGPU(t *testing.T) {
	got := htFind(htRun(300, func(t *htTick) {
		htHealthy(t)
		htEvery8(func(i int) {
			x8 := i == 6 || (i == 7 && t.sec >= 100)
			t.link(i, 5, 16>>b2i(x8), 5, 16)
		})
	}), timeline.HintLinkDegraded)
	if len(got) != 1 {
		t.Fatalf("%d link-degraded hints, want 1", len(got))
	}
	h := got[0]
	want := "GPU6 PCIe link at Gen5 x8 of Gen5 x16 while working, 4m59s of 4m59s working; the largest of 2 episodes on GPU6-7 over 4m59s"
	if len(h.GPUs) != 2 || !strings.HasPrefix(h.Evidence, want) {
		t.Errorf("GPUs %v, evidence %q, want %q", h.GPUs, h.Evidence, want)
	}
}
