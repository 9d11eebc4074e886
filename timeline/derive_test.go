package timeline

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func sampleAt(sec float64, ms ...Metric) *Sample {
	return new(Sample{At: t0.Add(time.Duration(sec * float64(time.Second)))}.WithMetrics(ms))
}

func g(name, dev string, v float64) Metric {
	return Metric{Key: Key{name, dev}, Kind: Gauge, Value: v}
}

func c(name, dev string, v float64) Metric {
	return Metric{Key: Key{name, dev}, Kind: Counter, Value: v}
}

func valueOf(vs []Value, name, dev string) (float64, bool) {
	for _, v := range vs {
		if v.Key == (Key{name, dev}) {
			return v.Value, true
		}
	}
	return 0, false
}

func TestDerive(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		prev, cur *Sample
		key       Key
		want      float64 // NaN: a gap
		absent    bool
	}{
		{"gauge passes through", nil, sampleAt(0, g(GPUUtil, "gpu0", 97)), Key{GPUUtil, "gpu0"}, 97, false},
		{"energy becomes watts",
			sampleAt(0, c(GPUEnergy, "gpu0", 1000)), sampleAt(1, c(GPUEnergy, "gpu0", 1612.5)),
			Key{GPUPower, "gpu0"}, 612.5, false},
		{"rate uses the samples' own times, not the interval",
			sampleAt(0, c(HostDiskRBytes, "host", 0)), sampleAt(2.5, c(HostDiskRBytes, "host", 5000)),
			Key{HostDiskRead, "host"}, 2000, false},
		{"counter reset is a gap, not a negative spike",
			sampleAt(0, c(GPUEnergy, "gpu0", 5000)), sampleAt(1, c(GPUEnergy, "gpu0", 3)),
			Key{GPUPower, "gpu0"}, nan, false},
		{"first sample of a counter is a gap",
			nil, sampleAt(0, c(GPUEnergy, "gpu0", 5000)),
			Key{GPUPower, "gpu0"}, nan, false},
		{"CPU share is busy over total",
			sampleAt(0, c(HostCPUBusySecs, "host", 10), c(HostCPUTotSecs, "host", 40)),
			sampleAt(1, c(HostCPUBusySecs, "host", 13), c(HostCPUTotSecs, "host", 44)),
			Key{HostCPU, "host"}, 75, false},
		{"a denominator has no display value of its own",
			sampleAt(0, c(HostCPUBusySecs, "host", 10), c(HostCPUTotSecs, "host", 40)),
			sampleAt(1, c(HostCPUBusySecs, "host", 13), c(HostCPUTotSecs, "host", 44)),
			Key{HostCPUTotSecs, "host"}, 0, true},
		{"energy beats the power gauge over 5 s",
			sampleAt(0, g(GPUPower, "gpu0", 500), c(GPUEnergy, "gpu0", 1000)),
			sampleAt(5, g(GPUPower, "gpu0", 500), c(GPUEnergy, "gpu0", 4000)),
			Key{GPUPower, "gpu0"}, 600, false},
		{"energy beats the power gauge over 5 s, the counter first",
			sampleAt(0, c(GPUEnergy, "gpu0", 1000), g(GPUPower, "gpu0", 500)),
			sampleAt(15, c(GPUEnergy, "gpu0", 10000), g(GPUPower, "gpu0", 500)),
			Key{GPUPower, "gpu0"}, 600, false},
		// An H100's counter steps every 100 ms: over 250 ms its rate is
		// two or three steps' worth, 540 or 840 W of a steady 698.
		{"the power gauge beats the energy counter's steps at 250 ms",
			sampleAt(0, g(GPUPower, "gpu0", 698), c(GPUEnergy, "gpu0", 1000)),
			sampleAt(0.25, g(GPUPower, "gpu0", 698), c(GPUEnergy, "gpu0", 1000+0.3*698)),
			Key{GPUPower, "gpu0"}, 698, false},
		{"the power gauge beats the energy counter at 1 s, the counter first",
			sampleAt(0, c(GPUEnergy, "gpu0", 1000), g(GPUPower, "gpu0", 698)),
			sampleAt(1, c(GPUEnergy, "gpu0", 1000+1.1*698), g(GPUPower, "gpu0", 698)),
			Key{GPUPower, "gpu0"}, 698, false},
		{"the energy counter fills in at 1 s where the gauge has no number",
			sampleAt(0, g(GPUPower, "gpu0", nan), c(GPUEnergy, "gpu0", 1000)),
			sampleAt(1, g(GPUPower, "gpu0", nan), c(GPUEnergy, "gpu0", 1600)),
			Key{GPUPower, "gpu0"}, 600, false},
		{"the energy counter fills in at 1 s where the gauge has no number, the counter first",
			sampleAt(0, c(GPUEnergy, "gpu0", 1000), g(GPUPower, "gpu0", nan)),
			sampleAt(1, c(GPUEnergy, "gpu0", 1600), g(GPUPower, "gpu0", nan)),
			Key{GPUPower, "gpu0"}, 600, false},
		{"the power gauge stands in while the counter has no difference",
			nil, sampleAt(0, c(GPUEnergy, "gpu0", 1000), g(GPUPower, "gpu0", 512)),
			Key{GPUPower, "gpu0"}, 512, false},
		{"a metric missing before is a gap, found by key when the layout changed",
			sampleAt(0, g(GPUUtil, "gpu0", 1)), sampleAt(1, g(GPUUtil, "gpu0", 2), c(GPUEnergy, "gpu0", 10)),
			Key{GPUPower, "gpu0"}, nan, false},
		{"unsupported stays NaN",
			nil, sampleAt(0, g(GPUSMActive, "gpu0", nan)),
			Key{GPUSMActive, "gpu0"}, nan, false},
		{"same time twice is a gap, not infinity",
			sampleAt(1, c(GPUEnergy, "gpu0", 1)), sampleAt(1, c(GPUEnergy, "gpu0", 2)),
			Key{GPUPower, "gpu0"}, nan, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := valueOf(Derive(tt.cur, tt.prev), tt.key.Name, tt.key.Device)
			if tt.absent {
				if ok {
					t.Fatalf("%v present (%v), want absent", tt.key, got)
				}
				return
			}
			if !ok {
				t.Fatalf("%v absent", tt.key)
			}
			if math.IsNaN(tt.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tt.want) > 1e-9) {
				t.Fatalf("%v = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

func TestDeriverStreamMatchesDerive(t *testing.T) {
	var d Deriver
	var prev *Sample
	for i := 0; i < 5; i++ {
		cur := sampleAt(float64(i), c(GPUEnergy, "gpu0", float64(i*i)*100), g(GPUUtil, "gpu0", float64(i)))
		if i == 3 { // a layout change mid-stream
			cur.SetMetrics(append([]Metric{g(GPUTemp, "gpu0", 50)}, cur.Metrics()...))
		}
		want := Derive(cur, prev)
		got := valuesOf(&d, cur)
		if len(got) != len(want) {
			t.Fatalf("tick %d: %v, want %v", i, got, want)
		}
		for j := range got {
			if got[j].Key != want[j].Key || !(got[j].Value == want[j].Value || math.IsNaN(got[j].Value) && math.IsNaN(want[j].Value)) {
				t.Fatalf("tick %d: %v, want %v", i, got, want)
			}
		}
		prev = cur
	}
}

// A reader decodes each segment's names afresh: samples whose keys are
// equal in strings of their own keep the Deriver's plan (its Layout), and
// derive as Derive does; a layout that changes is still seen.
func TestDeriverKeepsItsPlanAcrossFreshStrings(t *testing.T) {
	fresh := func(m Metric) Metric {
		m.Key = Key{Name: strings.Clone(m.Key.Name), Device: strings.Clone(m.Key.Device)}
		return m
	}
	var d Deriver
	var prev *Sample
	for i := range 6 {
		cur := sampleAt(float64(i), fresh(c(GPUEnergy, "gpu0", float64(i*i)*100)), fresh(g(GPUUtil, "gpu0", float64(i))))
		if i == 4 { // a layout change, in fresh strings too
			ms := cur.Metrics()
			ms[1] = fresh(g(GPUTemp, "gpu0", 50))
			cur.SetMetrics(ms)
		}
		want := Derive(cur, prev)
		got := valuesOf(&d, cur)
		if !slices.EqualFunc(got, want, func(a, b Value) bool {
			return a.Key == b.Key && (a.Value == b.Value || math.IsNaN(a.Value) && math.IsNaN(b.Value))
		}) {
			t.Fatalf("tick %d: %v, want %v", i, got, want)
		}
		// Plans: the first, and the change at 4; the sample after it has
		// the first's keys again.
		if plans := map[int]int{0: 1, 1: 1, 2: 1, 3: 1, 4: 2, 5: 1}[i]; d.Layout() != plans {
			t.Errorf("tick %d: %d plans made, want %d", i, d.Layout(), plans)
		}
		prev = cur
	}
}

// Counted says where a GPU's power came from its energy counter, which the
// report names as its energy's source: only where the counter's rate beat
// the gauge.
func TestCountedOnlyWhereTheCounterWon(t *testing.T) {
	energy := Key{GPUEnergy, "gpu0"}
	samples := func(step float64) []*Sample {
		var out []*Sample
		for i := range 3 {
			out = append(out, sampleAt(float64(i)*step, g(GPUPower, "gpu0", 600), c(GPUEnergy, "gpu0", 1000+600*float64(i)*step)))
		}
		return out
	}
	for _, tt := range []struct {
		step float64
		want bool
	}{{0.25, false}, {1, false}, {15, true}} {
		var d Deriver
		for _, s := range samples(tt.step) {
			d.Next(s)
		}
		if got := d.Counted(energy); got != tt.want {
			t.Errorf("samples %v s apart: Counted = %v, want %v", tt.step, got, tt.want)
		}
		if got := slices.Contains(d.CountedKeys(), energy); got != tt.want {
			t.Errorf("samples %v s apart: CountedKeys has the energy counter: %v, want %v", tt.step, got, tt.want)
		}
	}
	// Samples 15 s apart whose counter was not read (NaN): the gauge's.
	var nan Deriver
	for i := range 3 {
		nan.Next(sampleAt(float64(i)*15, g(GPUPower, "gpu0", 600), c(GPUEnergy, "gpu0", math.NaN())))
	}
	if nan.Counted(energy) {
		t.Error("a counter never read: Counted = true")
	}
	// A counter alone in its slot is always behind its value.
	var d Deriver
	d.Next(sampleAt(0, c(GPUPCIeTxBytes, "gpu0", 0)))
	if !d.Counted(Key{GPUPCIeTxBytes, "gpu0"}) {
		t.Error("PCIe bytes alone: Counted = false, want true")
	}
}

// A Deriver whose samples go from one list of keys to another and back (a
// host of a session missing a tick) finds the plans it made before: the
// values are Derive's, and Layout is that of the plan found.
func TestDeriverKeepsPlans(t *testing.T) {
	var d Deriver
	var prev *Sample
	var prevShort bool
	gens := map[[2]bool]int{}
	for i, short := range []bool{false, false, true, false, false, true, false, false} {
		cur := sampleAt(float64(i), c(GPUEnergy, "gpu0", float64(i*i)*100), g(GPUUtil, "gpu0", float64(i)), c(GPUEnergy, "gpu1", float64(i)*100))
		if short {
			cur.SetMetrics(cur.Metrics()[:2])
		}
		want := Derive(cur, prev)
		got := valuesOf(&d, cur)
		if !slices.EqualFunc(got, want, func(a, b Value) bool {
			return a.Key == b.Key && (a.Value == b.Value || math.IsNaN(a.Value) && math.IsNaN(b.Value))
		}) {
			t.Fatalf("tick %d: %v, want %v", i, got, want)
		}
		if prev != nil {
			pair := [2]bool{short, prevShort}
			if gen, ok := gens[pair]; ok && gen != d.Layout() {
				t.Errorf("tick %d: plan %d, the same layouts had %d", i, d.Layout(), gen)
			}
			gens[pair] = d.Layout()
		}
		prev, prevShort = cur, short
	}
	// One for each list of keys, however often the host is missing.
	if d.plans != 2 {
		t.Errorf("%d plans made, want 2", d.plans)
	}
}

// A counter whose sample once came as a gauge of the same key (a gap, as
// earlier builds wrote a late host of a --hosts session) is a counter
// again at its next sample: the plan made for the gauge does not fit the
// counter's sample, though the keys are the same.
func TestACounterAfterAGaugeGapIsDerivedAgain(t *testing.T) {
	busy, total := Key{HostCPUBusySecs, "host@b"}, Key{HostCPUTotSecs, "host@b"}
	counters := func(s float64) *Sample {
		return sampleAt(s, c(busy.Name, busy.Device, s/2), c(total.Name, total.Device, s))
	}
	gap := sampleAt(1, Metric{Key: busy, Value: math.NaN()}, Metric{Key: total, Value: math.NaN()})
	var d Deriver
	var cpu []float64
	for _, s := range []*Sample{counters(0), gap, counters(2), counters(3), counters(4)} {
		v := math.NaN()
		for _, out := range valuesOf(&d, s) {
			if out.Key == (Key{HostCPU, "host@b"}) {
				v = out.Value
			}
		}
		cpu = append(cpu, v)
	}
	if cpu[3] != 50 || cpu[4] != 50 {
		t.Errorf("host CPU %v, want 50 from the second sample after the gap", cpu)
	}
}
