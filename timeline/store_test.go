package timeline

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

var util0 = Key{GPUUtil, "gpu0"}

// feed adds n samples one interval apart with value fn(i).
func feed(s *Store, n int, interval time.Duration, fn func(i int) float64) {
	for i := 0; i < n; i++ {
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * interval)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", fn(i))})))
	}
}

func means(dst []Agg) []float64 {
	out := make([]float64, len(dst))
	for i, a := range dst {
		out[i] = a.Mean
	}
	return out
}

func same(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) || (!math.IsNaN(a[i]) && math.Abs(a[i]-b[i]) > 1e-4) {
			return false
		}
	}
	return true
}

func TestSeriesResamples(t *testing.T) {
	nan := math.NaN()
	s := NewStore(StoreOptions{})
	feed(s, 10, time.Second, func(i int) float64 { return float64(i * 10) }) // 0,10,...,90 at 0..9 s
	tests := []struct {
		name     string
		from, to float64 // seconds after t0
		cols     int
		mean     []float64
	}{
		{"one column per sample", 0, 10, 10, []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}},
		{"two samples per column average", 0, 10, 5, []float64{5, 25, 45, 65, 85}},
		{"columns narrower than a sample repeat it", 0, 2, 4, []float64{0, 0, 10, 10}},
		{"before the first sample is a gap", -4, 2, 3, []float64{nan, nan, 5}},
		{"the last value holds for two intervals, then a gap", 8, 14, 6, []float64{80, 90, 90, 90, nan, nan}},
		{"a window starting between samples carries the earlier one", 0.5, 1.5, 2, []float64{0, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]Agg, tt.cols)
			from := t0.Add(time.Duration(tt.from * float64(time.Second)))
			to := t0.Add(time.Duration(tt.to * float64(time.Second)))
			s.Series(util0, from, to, dst)
			if got := means(dst); !same(got, tt.mean) {
				t.Fatalf("means %v, want %v", got, tt.mean)
			}
			// By id, as a screen that drew the series before reads it.
			id, _ := s.ID(util0)
			s.SeriesOf(id, from, to, dst)
			if got := means(dst); !same(got, tt.mean) {
				t.Fatalf("by id: means %v, want %v", got, tt.mean)
			}
		})
	}
	// A series the store lacks, by key or by NoSeries, is a gap everywhere.
	dst := make([]Agg, 3)
	for _, read := range []func(){
		func() { s.Series(Key{GPUUtil, "gpu9"}, t0, t0.Add(3*time.Second), dst) },
		func() { s.SeriesOf(NoSeries, t0, t0.Add(3*time.Second), dst) },
	} {
		read()
		if got := means(dst); !same(got, []float64{nan, nan, nan}) {
			t.Fatalf("a missing series: means %v, want gaps", got)
		}
	}
}

func TestSeriesKeepsSpikes(t *testing.T) {
	s := NewStore(StoreOptions{})
	feed(s, 60, time.Second, func(i int) float64 {
		if i == 37 {
			return 100
		}
		return 5
	})
	dst := make([]Agg, 3)
	s.Series(util0, t0, t0.Add(60*time.Second), dst)
	if dst[1].Max != 100 || dst[1].Min != 5 {
		t.Fatalf("column with the spike: %+v, want min 5 max 100", dst[1])
	}
	if dst[0].Max != 5 {
		t.Fatalf("column without the spike: %+v", dst[0])
	}
}

func TestSeriesGapStaysAGap(t *testing.T) {
	s := NewStore(StoreOptions{})
	for i := 0; i < 30; i++ {
		if i >= 10 && i < 20 { // the sampler stalled for 10 s
			continue
		}
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 50)})))
	}
	dst := make([]Agg, 30)
	s.Series(util0, t0, t0.Add(30*time.Second), dst)
	got := means(dst)
	for i := 12; i < 20; i++ {
		if !math.IsNaN(got[i]) {
			t.Fatalf("column %d = %v inside a 10 s stall, want a gap: %v", i, got[i], got)
		}
	}
	if math.IsNaN(got[5]) || math.IsNaN(got[25]) {
		t.Fatalf("data around the stall missing: %v", got)
	}
}

func TestSeriesFromBucketsAfterRawIsGone(t *testing.T) {
	s := NewStore(StoreOptions{RawSamples: 100})
	// Two hours at 1 s: value = half the minute number (a utilisation stays
	// within 100 %), so a 1-minute column is exact.
	feed(s, 7200, time.Second, func(i int) float64 { return float64(i/60) / 2 })
	if got := s.OldestRaw(); !got.Equal(t0.Add(7100 * time.Second)) {
		t.Fatalf("oldest raw %v", got)
	}
	dst := make([]Agg, 120)
	s.Series(util0, t0, t0.Add(2*time.Hour), dst)
	for i, a := range dst {
		if math.Abs(a.Mean-float64(i)/2) > 1e-3 {
			t.Fatalf("column %d mean %v, want %v", i, a.Mean, float64(i)/2)
		}
	}
	// A 30 s window an hour ago: raw is gone, 10 s buckets remain.
	dst = make([]Agg, 3)
	s.Series(util0, t0.Add(3600*time.Second), t0.Add(3630*time.Second), dst)
	if got := means(dst); !same(got, []float64{30, 30, 30}) {
		t.Fatalf("old window %v", got)
	}
	if v := s.ValueAt(util0, t0.Add(3605*time.Second)); v != 30 {
		t.Fatalf("ValueAt in the buckets = %v, want 30", v)
	}
}

func TestValueAt(t *testing.T) {
	s := NewStore(StoreOptions{})
	feed(s, 5, time.Second, func(i int) float64 { return float64(i) })
	for _, tt := range []struct {
		at   float64
		want float64
	}{{-1, math.NaN()}, {0, 0}, {2.5, 2}, {4, 4}, {5.9, 4}, {6.5, math.NaN()}} {
		got := s.ValueAt(util0, t0.Add(time.Duration(tt.at*float64(time.Second))))
		if !same([]float64{got}, []float64{tt.want}) {
			t.Errorf("ValueAt(%vs) = %v, want %v", tt.at, got, tt.want)
		}
	}
}

func TestStoreDropsOutOfOrder(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.Add(&Sample{At: t0.Add(time.Second)})
	if s.Add(&Sample{At: t0}) {
		t.Fatal("an older sample was accepted")
	}
	if s.Len() != 1 {
		t.Fatalf("len %d", s.Len())
	}
}

func TestEvents(t *testing.T) {
	s := NewStore(StoreOptions{})
	for i := 0; i < 6; i++ {
		smp := &Sample{At: t0.Add(time.Duration(i) * time.Second)}
		if i >= 2 {
			smp.Probes = []ProbeStatus{{Probe: "nvml", Device: "gpu3", State: ProbeLost, Err: "GPU is lost"}}
		}
		s.Add(smp)
	}
	if s.Lost("gpu3", t0.Add(time.Second)) {
		t.Fatal("lost before it was lost")
	}
	if !s.Lost("gpu3", t0.Add(3*time.Second)) {
		t.Fatal("not lost")
	}
	ev := s.EventsAt(t0.Add(5 * time.Second))
	if len(ev) != 1 || ev[0].Count != 4 || ev[0].Device != "gpu3" {
		t.Fatalf("events %+v", ev)
	}
}

// TestStoreMemoryIsBounded adds three simulated days of 8 GPUs and a host at
// 1 s and checks the heap stays far below the 30 MB live budget.
func TestStoreMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 259200 samples")
	}
	var metrics []Metric
	for gi := 0; gi < 8; gi++ {
		for _, n := range []string{GPUUtil, GPUUtilMin, GPUUtilMax, GPUSMActive, GPUMemUsed, GPUPower, GPUTemp, GPUClockSM, GPUThrottle, GPUPCIeTx, GPUPCIeRx} {
			metrics = append(metrics, g(n, fmt.Sprintf("gpu%d", gi), 1))
		}
	}
	for ci := 0; ci < 16; ci++ {
		metrics = append(metrics, g(CoreBusy, fmt.Sprintf("cpu%d", ci), 1))
	}
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := 0; i < 3*86400; i++ {
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(metrics)))
	}
	grew := int64(heap()) - int64(before)
	t.Logf("%d series, 3 days: heap grew %.1f MB", len(s.Keys()), float64(grew)/1e6)
	if grew > 25e6 {
		t.Fatalf("heap grew %.1f MB for 3 days", float64(grew)/1e6)
	}
}

func TestEachReadsRawThenBuckets(t *testing.T) {
	s := NewStore(StoreOptions{RawSamples: 60})
	feed(s, 600, time.Second, func(i int) float64 { return float64(i / 10) })
	var times []time.Time
	var vals []float64
	s.Each(util0, t0, t0.Add(time.Hour), func(at time.Time, v float64) bool {
		times = append(times, at)
		vals = append(vals, v)
		return true
	})
	// 540 s in 10 s buckets (54), then the last 60 samples raw.
	if len(vals) != 54+60 {
		t.Fatalf("%d values, want 114", len(vals))
	}
	if vals[0] != 0 || vals[53] != 53 || vals[54] != 54 || vals[113] != 59 {
		t.Fatalf("values %v", vals)
	}
	for i := 1; i < len(times); i++ {
		if !times[i].After(times[i-1]) {
			t.Fatalf("not in time order at %d", i)
		}
	}
}

func TestParseGPUDevice(t *testing.T) {
	for _, c := range []struct {
		dev  string
		idx  int
		isGP bool
	}{
		{"gpu0", 0, true}, {"gpu7", 7, true}, {"gpu511", 511, true}, {"gpu", 0, false},
		{"gpu03", 0, false}, {"gpu+3", 0, false}, {"gpu-1", 0, false}, {"gpu1a", 0, false},
		{"cpu3", 0, false}, {"host", 0, false}, {"gpu1234567890", 0, false},
	} {
		idx, ok := ParseGPUDevice(c.dev)
		if ok != c.isGP || ok && idx != c.idx {
			t.Errorf("ParseGPUDevice(%q) = %d, %v; want %d, %v", c.dev, idx, ok, c.idx, c.isGP)
		}
		if ok && GPUDevice(idx) != c.dev {
			t.Errorf("GPUDevice(%d) = %q, want %q", idx, GPUDevice(idx), c.dev)
		}
	}
}

// A first sample of many series fits the raw tier to the values budget
// once: fitted once per series, each series past the budget moved every
// column already made (17 GB allocated by the first sample of a day of 8
// GPUs with NVLink). The kept samples are the budget's either way.
func TestFirstSampleOfManySeriesFitsOnce(t *testing.T) {
	const series, budget = 1000, 1 << 20
	s := NewStore(StoreOptions{RawSamples: FileRawSamples, RawValues: budget, Reserve: 10000})
	var ms []Metric
	for i := range series {
		ms = append(ms, Metric{Key: Key{Name: GPUUtil, Device: GPUDevice(i)}, Value: 1})
	}
	smp := Sample{At: t0}.WithMetrics(ms)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.Add(&smp)
	runtime.ReadMemStats(&after)
	// The raw tier's columns are 1000 of budget/1000 float32s, 4 MiB, and
	// the buckets' a few more; one fit per series would be gigabytes.
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("the first sample of %d series allocated %d MiB", series, got>>20)
	}
	if got, want := s.raw.Capacity(), budget/series; got != want {
		t.Errorf("raw tier holds %d samples, want %d (the budget over the series)", got, want)
	}
}
