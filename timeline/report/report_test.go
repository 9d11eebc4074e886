package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// repAnalysis is what an Engine fed samples says of them.
func repAnalysis(samples []timeline.Sample, info timeline.SourceInfo) Analysis {
	return Analyse(reporttest.Engine(samples, info))
}

// repCheckpointAnalysis is what the Engine says of the checkpoint fixture,
// with reporttest.CheckpointHints for its hints.
func repCheckpointAnalysis() Analysis {
	a := repAnalysis(reporttest.CheckpointSamples(), reporttest.CheckpointInfo())
	a.Hints = reporttest.CheckpointHints()
	return a
}

// repNear says whether a Number is within 1e-6 of want (NaN matches NaN).
func repNear(got Number, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(float64(got))
	}
	return math.Abs(float64(got)-want) < 1e-6
}

// repOneGPU builds a report of one GPU whose samples fn gives, one per
// second from 0 to n-1; ok false leaves the second out (a gap).
func repOneGPU(n int, fn func(sec int) (ms []timeline.Metric, ok bool)) *Report {
	var samples []timeline.Sample
	for sec := range n {
		ms, ok := fn(sec)
		if ok {
			samples = append(samples, timeline.Sample{At: reporttest.T(float64(sec))}.WithMetrics(ms))
		}
	}
	info := timeline.SourceInfo{Interval: time.Second}
	return NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), ReportOptions{})
}

func TestReportGPUFigures(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                 string
		n                    int
		fn                   func(sec int) ([]timeline.Metric, bool)
		mean, p50, p95, max  float64
		idle, power, energyJ float64
	}{
		{"percentiles of known data: util 0..99", 100, func(sec int) ([]timeline.Metric, bool) {
			return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", float64(sec))}, true
		}, 49.5, 49, 94, 99, 0.05, nan, nan},
		{"a constant 500 W for 60 s from the energy counter is 30 kJ", 61, func(sec int) ([]timeline.Metric, bool) {
			return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", 100), timelinetest.Counter(timeline.GPUEnergy, "gpu0", 1e6+500*float64(sec))}, true
		}, 100, 100, 100, 100, 0, 500, 30000},
		{"a constant 500 W gauge for 60 samples is 30 kJ", 60, func(sec int) ([]timeline.Metric, bool) {
			return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", 100), timelinetest.Gauge(timeline.GPUPower, "gpu0", 500)}, true
		}, 100, 100, 100, 100, 0, 500, 30000},
		{"a gap is neither busy nor idle", 180, func(sec int) ([]timeline.Metric, bool) {
			switch {
			case sec < 60:
				return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", 100), timelinetest.Gauge(timeline.GPUPower, "gpu0", 400)}, true
			case sec < 120:
				return nil, false
			}
			return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", 0), timelinetest.Gauge(timeline.GPUPower, "gpu0", 100)}, true
		}, 50, 0, 100, 100, 0.5, 250, 60*400 + 60*100},
		{"NaN values are gaps too", 100, func(sec int) ([]timeline.Metric, bool) {
			v := 80.0
			if sec%2 == 1 {
				v = nan
			}
			return []timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", v)}, true
		}, 80, 80, 80, 80, 0, nan, nan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repOneGPU(tt.n, tt.fn)
			if len(r.GPUs) != 1 {
				t.Fatalf("%d GPUs", len(r.GPUs))
			}
			gpu := r.GPUs[0]
			u := gpu.Util
			for _, c := range []struct {
				what string
				got  Number
				want float64
			}{{"mean", u.Mean, tt.mean}, {"p50", u.P50, tt.p50}, {"p95", u.P95, tt.p95}, {"max", u.Max, tt.max},
				{"idle fraction", gpu.IdleFraction, tt.idle}, {"power mean", gpu.PowerMean, tt.power},
				{"energy", gpu.Energy, tt.energyJ}} {
				if !repNear(c.got, c.want) {
					t.Errorf("%s = %v, want %v", c.what, float64(c.got), c.want)
				}
			}
		})
	}
}

func TestReportCheckpoint(t *testing.T) {
	r := NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), ReportOptions{})
	if r.Start == nil || !r.Start.Equal(reporttest.At0) || !repNear(r.Duration, 300) {
		t.Fatalf("start %v duration %v", r.Start, r.Duration)
	}
	t.Run("a lost GPU says when", func(t *testing.T) {
		g3 := r.GPUs[3]
		if !g3.Lost || !repNear(g3.LostAt, 200) || r.GPUs[2].Lost {
			t.Fatalf("GPU3 lost %v at %v; GPU2 lost %v", g3.Lost, g3.LostAt, r.GPUs[2].Lost)
		}
	})
	t.Run("a GPU without SM activity has null, not 0", func(t *testing.T) {
		if !r.GPUs[7].SMActive.Mean.Unknown() || r.GPUs[6].SMActive.Mean.Unknown() {
			t.Fatalf("SM GPU7 %v, GPU6 %v", r.GPUs[7].SMActive.Mean, r.GPUs[6].SMActive.Mean)
		}
	})
	t.Run("automatic phases and the checkpoint stall", func(t *testing.T) {
		var kinds []string
		var stall ReportPhase
		for _, p := range r.Phases {
			if p.Kind != "marker" {
				kinds = append(kinds, p.Kind)
			}
			if p.Kind == "stalled" {
				stall = p
			}
		}
		if got := strings.Join(kinds, " "); got != "busy stalled busy idle" {
			t.Fatalf("phases %s", got)
		}
		if !repNear(stall.Start, 60) || !repNear(stall.End, 105) {
			t.Fatalf("stall %v-%v, want 60-105", stall.Start, stall.End)
		}
		if stall.WorstGPU == nil || *stall.WorstGPU != 0 || !repNear(stall.WorstUtilMean, 0) {
			t.Fatalf("worst GPU in the stall: %v %v", stall.WorstGPU, stall.WorstUtilMean)
		}
		if m := float64(stall.SMActiveMean); m > 3 {
			t.Fatalf("SM mean in the stall %v, want under 3", m)
		}
	})
	t.Run("marked phases carry their labels", func(t *testing.T) {
		var labels []string
		for _, p := range r.Phases {
			if p.Kind == "marker" {
				labels = append(labels, p.Label)
			}
		}
		// The job's own lines make its phases; the person's mark during
		// epoch 2 is a marker within it, not a phase of its own.
		if !slices.Equal(labels, []string{"epoch 1", "saving checkpoint step_100", "epoch 2", "done"}) {
			t.Fatalf("marked phases %q", labels)
		}
		if !slices.ContainsFunc(r.Markers, func(m ReportMarker) bool { return strings.HasPrefix(m.Text, "eval") }) {
			t.Errorf("the mark within epoch 2 is not among the markers: %v", r.Markers)
		}
	})
	t.Run("hints worst first", func(t *testing.T) {
		var ids []string
		for _, h := range r.Hints {
			ids = append(ids, h.Severity+" "+h.ID)
		}
		want := "warning gpu-idle,warning periodic-stall,info busy-wait" // equal severity: the surer first
		if got := strings.Join(ids, ","); got != want {
			t.Fatalf("hints %s, want %s", got, want)
		}
	})
	t.Run("the sampling gap is listed", func(t *testing.T) {
		if len(r.Gaps) != 1 || !repNear(r.Gaps[0].Start, 170) || !repNear(r.Gaps[0].End, 185) {
			t.Fatalf("gaps %+v", r.Gaps)
		}
	})
	t.Run("host figures", func(t *testing.T) {
		h := r.Host
		if h.Cores != 16 || h.CPU.Mean.Unknown() || !repNear(h.SwapUsedMax, 0) || !repNear(h.RAMUsedMax, 155*(1<<30)) {
			t.Fatalf("host %+v", h)
		}
		if !repNear(h.JobCPU.P50, 620) {
			t.Fatalf("job CPU p50 %v, want 620 %% of a core", h.JobCPU.P50)
		}
	})
}

func TestReportImportShowsNA(t *testing.T) {
	samples, info := reporttest.ImportSamples()
	r := NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), ReportOptions{})
	g0 := r.GPUs[0]
	for what, n := range map[string]Number{"SM mean": g0.SMActive.Mean, "power": g0.PowerMean, "energy": g0.Energy,
		"memory total": g0.MemTotal, "host CPU": r.Host.CPU.Mean, "RAM": r.Host.RAMUsedMax} {
		if !n.Unknown() {
			t.Errorf("%s = %v, want unknown", what, float64(n))
		}
	}
	for _, p := range r.Phases {
		if p.Kind == "stalled" {
			t.Fatalf("a stalled phase without host data: %+v", p)
		}
	}
}

// repContract is the JSON shape docs/report.md promises: these keys, at least.
var repContract = map[string][]string{
	"":         {"version", "source", "start", "duration_s", "gpus", "host", "phases", "markers", "hints"},
	"gpus":     {"index", "name", "util", "idle_fraction", "mem_used_max_bytes", "power_mean_w", "energy_j"},
	"util":     {"mean", "p50", "p95", "max"},
	"host":     {"cpu", "ram_used_max_bytes"},
	"host.cpu": {"mean", "p95"},
	"phases":   {"start_s", "end_s", "kind", "label"},
	"markers":  {"at_s", "text"},
	"hints":    {"id", "severity", "gpus", "start_s", "end_s", "evidence", "suggestion"},
}

func repKeys(t *testing.T, where string, v any, want []string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, want an object", where, v)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			var have []string
			for h := range m {
				have = append(have, h)
			}
			sort.Strings(have)
			t.Errorf("%s has no %q (has %v)", where, k, have)
		}
	}
}

func TestReportJSONContract(t *testing.T) {
	for name, r := range map[string]*Report{
		"checkpoint": NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), ReportOptions{}),
		"import": func() *Report {
			samples, info := reporttest.ImportSamples()
			return NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), ReportOptions{})
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			repKeys(t, "report", doc, repContract[""])
			if doc["version"] != 1.0 {
				t.Errorf("version %v", doc["version"])
			}
			if _, err := time.Parse(time.RFC3339, doc["start"].(string)); err != nil {
				t.Errorf("start: %v", err)
			}
			repKeys(t, "host", doc["host"], repContract["host"])
			repKeys(t, "host.cpu", doc["host"].(map[string]any)["cpu"], repContract["host.cpu"])
			for _, list := range []string{"gpus", "phases", "markers", "hints"} {
				items, ok := doc[list].([]any)
				if !ok {
					t.Fatalf("%s is %T, want an array (never null)", list, doc[list])
				}
				for _, it := range items {
					repKeys(t, list, it, repContract[list])
					if list == "gpus" {
						repKeys(t, "gpus.util", it.(map[string]any)["util"], repContract["util"])
					}
					if list == "hints" {
						if _, ok := it.(map[string]any)["gpus"].([]any); !ok {
							t.Errorf("hint gpus is not an array: %v", it)
						}
					}
				}
			}
			if name == "import" {
				gpu := doc["gpus"].([]any)[0].(map[string]any)
				if gpu["power_mean_w"] != nil || gpu["energy_j"] != nil || gpu["sm_active"].(map[string]any)["mean"] != nil {
					t.Errorf("unknowns are not null: %v", gpu)
				}
				if doc["host"].(map[string]any)["cpu"].(map[string]any)["mean"] != nil {
					t.Errorf("unknown host CPU is not null")
				}
			}
		})
	}
}

func TestReportEmptyStore(t *testing.T) {
	r := NewReport(timeline.NewStore(timeline.StoreOptions{}), timeline.SourceInfo{Kind: timeline.Live, Host: "node-a"}, Analysis{}, ReportOptions{})
	var j bytes.Buffer
	if err := r.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["start"] != nil || doc["duration_s"] != nil {
		t.Fatalf("start %v, duration %v: want null", doc["start"], doc["duration_s"])
	}
}

// TestReportAfterRawIsGone reports a live store that kept only the last
// minute raw: figures come from bucket means before it, and a note says so.
func TestReportAfterRawIsGone(t *testing.T) {
	s := timeline.NewStore(timeline.StoreOptions{RawSamples: 60})
	for sec := range 600 {
		util := 90.0
		if sec >= 300 {
			util = 0
		}
		s.Add(new(timeline.Sample{At: reporttest.T(float64(sec))}.WithMetrics([]timeline.Metric{timelinetest.Gauge(timeline.GPUUtil, "gpu0", util), timelinetest.Gauge(timeline.GPUMemUsed, "gpu0", 1<<30)})))
	}
	r := NewReport(s, timeline.SourceInfo{Interval: time.Second}, Analysis{}, ReportOptions{})
	if u := r.GPUs[0].Util; !repNear(u.Mean, 45) || !repNear(u.Max, 90) || !repNear(r.GPUs[0].IdleFraction, 0.5) {
		t.Fatalf("util %+v idle %v", u, r.GPUs[0].IdleFraction)
	}
	if len(r.Gaps) != 0 {
		t.Fatalf("bucket spacing read as gaps: %+v", r.Gaps)
	}
	if len(r.Notes) != 2 || !strings.Contains(r.Notes[1], "before 0:09:00 only averages") {
		t.Fatalf("notes %q", r.Notes)
	}
}

// A phase before the store's raw samples reads its own buckets, each
// weighed by how much of it lies in the phase: read as raw values, each
// bucket stood for the time up to it, so an idle minute took the busy
// bucket after it and lost its own first, and a day report's stalled
// phases read SM 59-62% before the edge and 25% after it.
func TestPhaseFiguresBeforeTheRawEdgeAreTheirOwn(t *testing.T) {
	var samples []timeline.Sample
	s := timeline.NewStore(timeline.StoreOptions{RawSamples: 60})
	for sec := range 640 {
		util, sm := 95.0, 70.0
		if sec%160 >= 100 { // 100 s of work, then an idle minute, on the buckets' edges
			util, sm = 0, 0
		}
		smp := timeline.Sample{At: reporttest.T(float64(sec))}.WithMetrics([]timeline.Metric{
			timelinetest.Gauge(timeline.GPUUtil, "gpu0", util), timelinetest.Gauge(timeline.GPUSMActive, "gpu0", sm),
			timelinetest.Gauge(timeline.GPUMemUsed, "gpu0", 1<<30)})
		samples = append(samples, smp)
		s.Add(&smp)
	}
	info := timeline.SourceInfo{Interval: time.Second, GPUs: []timeline.GPUInfo{{Index: 0, Name: "H100"}}}
	r := NewReport(s, info, repAnalysis(samples, info), ReportOptions{})
	idle := 0
	for _, p := range r.Phases {
		if p.Kind != "idle" {
			continue
		}
		idle++
		if p.UtilMean.Unknown() || float64(p.UtilMean) > 5 || float64(p.SMActiveMean) > 5 {
			t.Errorf("idle phase %v-%vs reads util %v, SM %v: want its own idle buckets, under 5%%",
				p.Start, p.End, p.UtilMean, p.SMActiveMean)
		}
	}
	if idle < 3 {
		t.Fatalf("%d idle phases, want the three idle minutes before the raw edge: %+v", idle, r.Phases)
	}
}
