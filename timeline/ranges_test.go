package timeline

import (
	"math"
	"testing"
	"time"
)

func TestDeriverLeavesOutValuesOutsideTheirRange(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, tt := range []struct {
		name    string
		samples []Sample
		key     Key
		want    []float64 // the display value at each sample
		note    string    // the Deriver's note, "" for none
	}{
		{"a power reading of 1e19 W is a gap", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 300)}),
			Sample{At: at(1)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 1e19)}),
			Sample{At: at(2)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 310)}),
		}, Key{GPUPower, "gpu0"}, []float64{300, math.NaN(), 310}, "1 power reading above 10 kW left out"},
		{"negative and huge utilisation", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", -50)}),
			Sample{At: at(1)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 1e9)}),
			Sample{At: at(2)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 100)}),
		}, Key{GPUUtil, "gpu0"}, []float64{math.NaN(), math.NaN(), 100}, "2 util readings outside 0% to 100% left out"},
		{"infinity is no reading, even of an unknown metric", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g("gpu.future", "gpu0", math.Inf(1))}),
			Sample{At: at(1)}.WithMetrics([]Metric{g("gpu.future", "gpu0", -7)}),
		}, Key{"gpu.future", "gpu0"}, []float64{math.NaN(), -7}, "1 gpu.future reading that was no finite number left out"},
		{"a counter that leaps gives an absurd rate: a gap, and the gauge it overrides shows", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 300), c(GPUEnergy, "gpu0", 1000)}),
			Sample{At: at(10)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 301), c(GPUEnergy, "gpu0", 1e18)}),
			Sample{At: at(20)}.WithMetrics([]Metric{g(GPUPower, "gpu0", 302), c(GPUEnergy, "gpu0", 1e18+5120)}),
		}, Key{GPUPower, "gpu0"}, []float64{300, 301, 512}, "1 power reading above 10 kW left out"},
		{"a share slightly over 100 % from rounding is kept", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 100+1e-12)}),
		}, Key{GPUUtil, "gpu0"}, []float64{100 + 1e-12}, ""},
		{"a byte count a megabyte below zero is out, though the range is petabytes wide", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUMemUsed, "gpu0", -1e6)}),
		}, Key{GPUMemUsed, "gpu0"}, []float64{math.NaN()}, "1 memory reading below 0 B left out"},
		{"NaN stays a gap and is not counted", []Sample{
			Sample{At: at(0)}.WithMetrics([]Metric{g(GPUTemp, "gpu0", math.NaN())}),
		}, Key{GPUTemp, "gpu0"}, []float64{math.NaN()}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var d Deriver
			for i := range tt.samples {
				got := math.NaN()
				for _, v := range valuesOf(&d, &tt.samples[i]) {
					if v.Key == tt.key {
						got = v.Value
					}
				}
				if !same([]float64{got}, []float64{tt.want[i]}) {
					t.Errorf("sample %d: %v = %v, want %v", i, tt.key.Name, got, tt.want[i])
				}
			}
			var notes []string
			for _, o := range d.OutOfRange() {
				notes = append(notes, o.String())
			}
			switch {
			case tt.note == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case tt.note != "" && (len(notes) != 1 || notes[0] != tt.note):
				t.Errorf("notes %q, want %q", notes, tt.note)
			}
		})
	}
}

func TestEveryCatalogueMetricHasARange(t *testing.T) {
	for name, d := range defs {
		r, ok := RangeOf(name)
		if !ok {
			t.Errorf("%s (%v) has no range", name, d.Unit)
			continue
		}
		if !(r.Min < r.Max) || math.IsInf(r.Max, 0) || r.Max > 1<<53 && r.Max < math.MaxFloat64 {
			t.Errorf("%s: range %v", name, r)
		}
	}
}

func TestStoreLeavesOutASampleFarAfterTheLast(t *testing.T) {
	s := NewStore(StoreOptions{})
	for _, at := range []time.Duration{0, time.Second, 23 * time.Hour, 23*time.Hour + MaxSampleGap + time.Second, 200 * 365 * 24 * time.Hour} {
		s.Add(new(Sample{At: t0.Add(at)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 50)})))
	}
	if s.Len() != 3 {
		t.Fatalf("kept %d samples, want the 3 before the jump", s.Len())
	}
	j := s.Jump()
	if j.Dropped != 2 || !j.Last.Equal(t0.Add(23*time.Hour)) || !j.First.Equal(t0.Add(23*time.Hour+MaxSampleGap+time.Second)) {
		t.Fatalf("jump %+v", j)
	}
	want := "2 samples from 2026-11-24 11:00:01 on left out: more than a day after the last one before them (2026-11-23 11:00:00)"
	if got := j.String(); got != want {
		t.Fatalf("note %q\nwant %q", got, want)
	}
}

func TestReserveIsCapped(t *testing.T) {
	// A header that claims a 1 ns interval over a day asks for 8.6e13
	// samples; the store makes room for a week's at most.
	s := NewStore(StoreOptions{Reserve: math.MaxInt})
	if c := s.raw.Reserved(); c != MaxReserve {
		t.Fatalf("reserved %d samples, want %d", c, MaxReserve)
	}
}

// A store reading a whole file holds at most RawValues raw values: as
// series are added the ring shrinks to the newest samples, and the older
// ones live on in the buckets.
func TestRawValuesBudget(t *testing.T) {
	s := NewStore(StoreOptions{RawValues: 1000, Reserve: 100000})
	for i := range 5000 {
		var ms []Metric
		for d := range min(10, 1+i/100) { // a series more every 100 samples, up to 10
			ms = append(ms, g(GPUUtil, GPUDevice(d), float64(i%100)))
		}
		s.Add(new(Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(ms)))
	}
	if n, series := s.raw.Len(), len(s.keys); n*series > 1000 || n != 100 || s.raw.Reserved() > 2*100 {
		t.Fatalf("raw tier holds %d samples of %d series (room for %d), want the newest 100", n, series, s.raw.Reserved())
	}
	if got, want := s.OldestRaw(), t0.Add(4900*time.Second); !got.Equal(want) {
		t.Fatalf("oldest raw sample %v, want %v", got, want)
	}
	if v := s.ValueAt(Key{GPUUtil, "gpu0"}, t0.Add(4999*time.Second)); v != 99 {
		t.Fatalf("the newest value %v, want 99", v)
	}
	dst := make([]Agg, 1)
	s.Series(Key{GPUUtil, "gpu0"}, t0, t0.Add(5000*time.Second), dst)
	if dst[0].Mean < 49 || dst[0].Mean > 50 {
		t.Fatalf("the whole session's mean from the buckets: %v", dst[0].Mean)
	}
}

// The catalogue's Prometheus column is read both ways: no two metrics go
// out under one name, and every series has a scale to read it back by.
func TestSeriesAreOneToOne(t *testing.T) {
	byName := map[string]string{}
	EachSeries(func(metric string, s Series) {
		if other, ok := byName[s.Name]; ok {
			t.Errorf("%s and %s both go out as %s", metric, other, s.Name)
		}
		byName[s.Name] = metric
		if !(s.Scale > 0) || s.Help == "" {
			t.Errorf("%s (%s): scale %v, help %q", metric, s.Name, s.Scale, s.Help)
		}
		if s.Raw != (counterRules[metric].out != "") {
			t.Errorf("%s: raw is %v, but it is a counter Derive turns into a rate: %v", metric, s.Raw, counterRules[metric].out != "")
		}
	})
	if len(byName) < 30 {
		t.Errorf("only %d series", len(byName))
	}
}
