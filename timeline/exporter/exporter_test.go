package exporter

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/timeline"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// twoGPUs: GPU0 reports everything; GPU1 (no GPM) has its utilisation
// unknown this tick and no profiling metrics at all.
var twoGPUs = timeline.SourceInfo{Kind: timeline.Live, Host: "node7", Driver: "550.54.15", CUDA: "12.4", Interval: time.Second,
	GPUs: []timeline.GPUInfo{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-aaaa", PCIBusID: "00000000:18:00.0", MemTotal: 80 << 30, PowerLimit: 700, GPM: true},
		{Index: 1, Name: "NVIDIA A100-SXM4-40GB", UUID: "GPU-bbbb", MemTotal: 40 << 30, PowerLimit: 400},
	}}

func gauge(name, dev string, v float64) timeline.Metric {
	return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Value: v}
}

func counter(name, dev string, v float64) timeline.Metric {
	return timeline.Metric{Key: timeline.Key{Name: name, Device: dev}, Kind: timeline.Counter, Value: v}
}

// fixedSample is the node at t0+sec, its energy counters at joules.
func fixedSample(sec int, joules float64) timeline.Sample {
	return timeline.Sample{At: t0.Add(time.Duration(sec) * time.Second)}.WithMetrics([]timeline.Metric{
		gauge(timeline.GPUUtil, "gpu0", 97), gauge(timeline.GPUUtilMin, "gpu0", 12), gauge(timeline.GPUUtilMax, "gpu0", 100),
		gauge(timeline.GPUSMActive, "gpu0", 50), gauge(timeline.GPUTensor, "gpu0", 25),
		gauge(timeline.GPUMemUsed, "gpu0", 40<<30), gauge(timeline.GPUMemTotal, "gpu0", 80<<30),
		gauge(timeline.GPUMemFree, "gpu0", 40<<30-512<<20), // the driver's 512 MiB reserve is neither

		gauge(timeline.GPUTemp, "gpu0", 71), gauge(timeline.GPUClockSM, "gpu0", 1980),
		counter(timeline.GPUEnergy, "gpu0", joules),
		counter(timeline.GPUPCIeTxBytes, "gpu0", float64(sec)*3e9),
		gauge(timeline.GPUUtil, "gpu1", math.NaN()), gauge(timeline.GPUMemUsed, "gpu1", 1<<30),
		gauge(timeline.HostCPU, "host", 40),
	})
}

// gather maps "name{gpu}" (and /kind, /id) to its one value, and fails on
// a duplicate.
func gather(t *testing.T, x *Exporter) (map[string]float64, map[string]*dto.MetricFamily) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(x)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	values, byName := map[string]float64{}, map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "gpu":
					key += "{" + l.GetValue() + "}"
				case "kind", "id", "link":
					key += "/" + l.GetValue()
				}
			}
			v := m.GetGauge().GetValue()
			if f.GetType() == dto.MetricType_COUNTER {
				v = m.GetCounter().GetValue()
			}
			if _, dup := values[key]; dup {
				t.Errorf("%s twice", key)
			}
			values[key] = v
		}
	}
	return values, byName
}

func observed(samples ...timeline.Sample) *Exporter {
	x := New(Options{Version: "test"})
	for i := range samples {
		x.Observe(&samples[i], twoGPUs)
	}
	return x
}

func TestSeriesCarryDCGMNamesUnitsAndLabels(t *testing.T) {
	got, fams := gather(t, observed(fixedSample(0, 1000), fixedSample(1, 1500)))
	want := map[string]float64{
		"DCGM_FI_DEV_GPU_UTIL{0}":                 97,
		"DCGM_FI_DEV_FB_USED{0}":                  40 * 1024, // MiB
		"DCGM_FI_DEV_FB_TOTAL{0}":                 80 * 1024,
		"DCGM_FI_DEV_FB_FREE{0}":                  40*1024 - 512,
		"DCGM_FI_DEV_FB_USED{1}":                  1024,
		"DCGM_FI_DEV_POWER_USAGE{0}":              500,   // W, from 500 J over 1 s
		"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{0}": 1.5e6, // mJ
		"DCGM_FI_DEV_GPU_TEMP{0}":                 71,
		"DCGM_FI_DEV_SM_CLOCK{0}":                 1980,
		"DCGM_FI_PROF_SM_ACTIVE{0}":               0.5, // ratio, not %
		"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{0}":      0.25,
		"DCGM_FI_PROF_PCIE_TX_BYTES{0}":           3e9, // bytes/s
		"gputop_gpu_util_min_percent{0}":          12,
		"gputop_gpu_util_max_percent{0}":          100,
		"gputop_last_sample_timestamp_seconds":    float64(t0.Unix() + 1),
		"gputop_info":                             1,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9*math.Abs(v) {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if ty := fams["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"].GetType(); ty != dto.MetricType_COUNTER {
		t.Errorf("energy is a %v, want a counter as dcgm-exporter has it", ty)
	}
	labels := map[string]string{}
	for _, l := range fams["DCGM_FI_DEV_GPU_UTIL"].GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	wantLabels := map[string]string{"gpu": "0", "UUID": "GPU-aaaa", "pci_bus_id": "00000000:18:00.0", "device": "nvidia0",
		"modelName": "NVIDIA H100 80GB HBM3", "Hostname": "node7"}
	if len(labels) != len(wantLabels) {
		t.Errorf("labels %v, want %v", labels, wantLabels)
	}
	for k, v := range wantLabels {
		if labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, labels[k], v)
		}
	}
	// Host figures are node_exporter's: not duplicated here.
	for k := range got {
		if strings.Contains(strings.ToLower(k), "host_cpu") {
			t.Errorf("exported %s; node_exporter has the host's CPU", k)
		}
	}
}

func TestUnknownValuesAreAbsentNotZero(t *testing.T) {
	if got, _ := gather(t, New(Options{})); len(got) != 0 {
		t.Errorf("before the first sample: %v, want nothing", got)
	}
	got, _ := gather(t, observed(fixedSample(0, 1000)))
	for _, absent := range []string{
		"DCGM_FI_DEV_GPU_UTIL{1}",       // NaN this tick
		"DCGM_FI_PROF_SM_ACTIVE{1}",     // no GPM on GPU1
		"DCGM_FI_DEV_MEM_CLOCK{0}",      // never sampled
		"DCGM_FI_DEV_POWER_USAGE{0}",    // no energy difference yet, no gauge
		"DCGM_FI_PROF_PCIE_TX_BYTES{0}", // a rate needs two samples
		"DCGM_FI_DEV_FB_FREE{1}",        // not read on GPU1
		"gputop_last_marker_timestamp_seconds",
	} {
		if v, ok := got[absent]; ok {
			t.Errorf("%s = %v, want no series", absent, v)
		}
	}
	if _, ok := got["DCGM_FI_DEV_GPU_UTIL{0}"]; !ok {
		t.Error("GPU0's utilisation is missing")
	}
}

func TestLastMarkerAndItsTime(t *testing.T) {
	s0, s1, s2 := fixedSample(0, 1000), fixedSample(1, 1500), fixedSample(2, 2000)
	s1.Markers = []timeline.Marker{{At: t0.Add(800 * time.Millisecond), Text: "epoch 3", Origin: "mark"}}
	x := observed(s0, s1, s2) // s2 has no marker: the last one stays
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(x)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "gputop_last_marker_timestamp_seconds" {
			continue
		}
		m := f.GetMetric()[0]
		if txt := m.GetLabel()[0].GetValue(); txt != "epoch 3" || m.GetGauge().GetValue() != float64(t0.Unix())+0.8 {
			t.Errorf("marker %q at %v", txt, m.GetGauge().GetValue())
		}
		return
	}
	t.Error("no gputop_last_marker_timestamp_seconds")
}

// playDemo feeds x a scenario for d of simulated time, as serve would.
func playDemo(t testing.TB, x *Exporter, scenario string, d time.Duration) {
	t.Helper()
	clock := probes.NewFastClock(t0)
	node, err := demo.New(scenario, 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	t.Cleanup(func() { _ = sess.Close() })
	for range int(d / time.Second) {
		observeNext(t, x, sess)
	}
}

// observeNext pulls src's next sample and hands it to x, as the
// pipeline's sinks are handed each sample.
func observeNext(t testing.TB, x *Exporter, src timeline.Source) {
	t.Helper()
	s, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	x.Observe(&s, src.Info())
}

// The imbalance demo leaves seven GPUs idle: the hint the screen shows
// names them, one series per GPU, joinable with DCGM_FI_DEV_GPU_UTIL.
func TestImbalanceHintIsExportedPerGPU(t *testing.T) {
	x := New(Options{})
	playDemo(t, x, "imbalance", 2*time.Minute)
	got, _ := gather(t, x)
	n := 0
	for k := range got {
		if strings.HasPrefix(k, "gputop_hint_active") {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no hint after 2 minutes of imbalance; series: %v", got)
	}
	if _, ok := got["DCGM_FI_DEV_GPU_UTIL{7}"]; !ok {
		t.Error("no GPU7 in the demo's series")
	}
	text := scrape(t, x.Handler(), "")
	if !strings.Contains(text, `gputop_hint_active{gpu="0",id="gpu-imbalance"`) {
		t.Errorf("no gpu-imbalance hint on GPU0 (an idle one):\n%s", grepLines(text, "gputop_hint_active"))
	}
	if !strings.Contains(text, `gputop_phase{kind="busy"} 1`) {
		t.Errorf("phase:\n%s", grepLines(text, "gputop_phase"))
	}
}

func scrape(t testing.TB, h http.Handler, accept string) string {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func grepLines(text, prefix string) string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// Both formats carry dcgm-exporter's names unchanged (OpenMetrics would
// add _total to a counter named so), and parse.
func TestOpenMetricsAndTextKeepTheNames(t *testing.T) {
	x := observed(fixedSample(0, 1000), fixedSample(1, 1500))
	om := scrape(t, x.Handler(), "application/openmetrics-text;version=1.0.0")
	if !strings.HasSuffix(om, "# EOF\n") {
		t.Error("OpenMetrics answer without # EOF")
	}
	text := scrape(t, x.Handler(), "")
	for _, body := range []string{om, text} {
		if !strings.Contains(body, "\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{") || strings.Contains(body, "ENERGY_CONSUMPTION_total") {
			t.Errorf("energy counter renamed:\n%s", grepLines(body, "DCGM_FI_DEV_TOTAL"))
		}
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"DCGM_FI_DEV_GPU_UTIL", "process_resident_memory_bytes", "process_cpu_seconds_total", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("no %s in the text exposition", name)
		}
	}
}

// A scrape of an 8-GPU demo: the time of one, and the heap after many.
// "again" scrapes the same sample (its metrics built by the first scrape);
// "new" one the sampler has just taken, whose metrics the scrape builds.
func BenchmarkScrapeEightGPUs(b *testing.B) {
	x := New(Options{})
	playDemo(b, x, "training", 40*time.Second)
	h := x.Handler()
	req := httptest.NewRequest("GET", "/metrics", nil)
	for _, fresh := range []bool{false, true} {
		name := map[bool]string{false: "again", true: "new"}[fresh]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if fresh {
					// A new input for the same sample: what a scrape
					// after the next sample has to build.
					in := *x.pending.Load()
					x.pending.Store(&in)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// Ten thousand scrapes leave the heap where it was: nothing a scrape makes
// is kept.
func TestTenThousandScrapesDoNotGrowTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 scrapes: not under -short")
	}
	x := New(Options{})
	playDemo(t, x, "training", 40*time.Second)
	h := x.Handler()
	run := func(n int) {
		for range n {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			_, _ = io.Copy(io.Discard, rec.Body)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	run(100) // warm: the registry's first gathers allocate its caches
	before := heap()
	run(10_000)
	after := heap()
	t.Logf("heap before %d KiB, after 10,000 scrapes %d KiB", before>>10, after>>10)
	if after > before+512<<10 {
		t.Errorf("heap grew from %d KiB to %d KiB over 10,000 scrapes", before>>10, after>>10)
	}
}

// Through the real probe on the demo's 8 H100s: every GPU has its bus id,
// and used + free + the driver's reserve is the total, as NVML's v2 memory
// info says.
func TestDemoGPUsHaveBusIDsAndFreeMemory(t *testing.T) {
	x := New(Options{})
	playDemo(t, x, "training", 3*time.Second)
	_, fams := gather(t, x)
	byGPU := func(name string) map[string]float64 {
		out := map[string]float64{}
		for _, m := range fams[name].GetMetric() {
			var gpu, bus string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "gpu":
					gpu = l.GetValue()
				case "pci_bus_id":
					bus = l.GetValue()
				}
			}
			if !strings.HasPrefix(bus, "00000000:") || len(bus) != len("00000000:18:00.0") {
				t.Errorf("%s{gpu=%q}: pci_bus_id %q", name, gpu, bus)
			}
			out[gpu] = m.GetGauge().GetValue()
		}
		return out
	}
	used, free, total := byGPU("DCGM_FI_DEV_FB_USED"), byGPU("DCGM_FI_DEV_FB_FREE"), byGPU("DCGM_FI_DEV_FB_TOTAL")
	if len(free) != 8 {
		t.Fatalf("DCGM_FI_DEV_FB_FREE for %d GPUs, want 8", len(free))
	}
	const reservedMiB = 512 // the demo's H100 reserve
	for gpu, f := range free {
		if sum := used[gpu] + f + reservedMiB; math.Abs(sum-total[gpu]) > 1e-6 {
			t.Errorf("GPU %s: used %v + free %v + reserved %v = %v MiB, total %v", gpu, used[gpu], f, reservedMiB, sum, total[gpu])
		}
	}
}

// What the exporter adds to each sample on its way to the screen or the
// file (--listen): an hour of the 8-GPU demo observed, per sample. The
// samples are taken first, so only Observe is timed.
func BenchmarkObserveAnHourOfEightGPUs(b *testing.B) {
	const n = 3600
	clock := probes.NewFastClock(t0)
	node, err := demo.New("training", 1, clock)
	if err != nil {
		b.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	samples := make([]timeline.Sample, n)
	for i := range samples {
		if samples[i], err = sess.Next(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	info := sess.Info()
	b.ReportAllocs()
	for b.Loop() {
		x := New(Options{})
		for i := range samples {
			x.Observe(&samples[i], info)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/sample")
}

// The probe reads the energy counter every 5 s (its call costs a real H100
// 3.5-4.4 ms of CPU) and writes NaN between: the counter stays in /metrics
// as last read, so that a scrape between reads finds it, and moves on at
// the next read.
func TestCounterBetweenReadsIsItsLastReading(t *testing.T) {
	got, _ := gather(t, observed(fixedSample(0, 1000), fixedSample(1, math.NaN()), fixedSample(2, math.NaN())))
	if v, ok := got["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{0}"]; !ok || v != 1e6 {
		t.Errorf("between reads: energy %v mJ (present %v), want the last reading, 1e6", v, ok)
	}
	got, _ = gather(t, observed(fixedSample(0, 1000), fixedSample(1, math.NaN()), fixedSample(5, 1600)))
	if v := got["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{0}"]; v != 1.6e6 {
		t.Errorf("at the next read: energy %v mJ, want 1.6e6", v)
	}
	// Never read: no series, never a 0.
	got, _ = gather(t, observed(fixedSample(0, math.NaN())))
	if v, ok := got["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{0}"]; ok {
		t.Errorf("a counter never read is published (%v)", v)
	}
}
