package analysis

import (
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The Judge derives each sample once and hands what it made on with the
// sample: a store that files those values holds exactly what one that
// derives for itself holds, counters turned into rates and absurd values
// left out and counted alike.
func TestAStoreFilesWhatTheJudgeDerived(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var samples []timeline.Sample
	for i := range 30 {
		power := 1000.0 * float64(i) // energy in J: 1 kW
		util := float64(i * 3)
		if i == 10 {
			util = 1e9 // absurd: a gap, counted
		}
		samples = append(samples, timeline.Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: util},
			{Key: timeline.Key{Name: timeline.GPUEnergy, Device: "gpu0"}, Kind: timeline.Counter, Value: power},
		}))
	}
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 0}}}
	judge := NewJudge(info)
	judged, own := timeline.NewStore(timeline.StoreOptions{}), timeline.NewStore(timeline.StoreOptions{})
	for i := range samples {
		mine := samples[i]
		own.Add(&mine)
		theirs := samples[i]
		judge.Take(&theirs, info)
		if theirs.Derived == nil {
			t.Fatalf("sample %d: the Judge handed nothing on", i)
		}
		judged.Add(&theirs)
	}
	from, to := samples[0].At, samples[len(samples)-1].At.Add(time.Second)
	for _, key := range []timeline.Key{{Name: timeline.GPUUtil, Device: "gpu0"}, {Name: timeline.GPUPower, Device: "gpu0"}} {
		a, b := make([]timeline.Agg, 30), make([]timeline.Agg, 30)
		judged.Series(key, from, to, a)
		own.Series(key, from, to, b)
		if !slices.EqualFunc(a, b, func(x, y timeline.Agg) bool {
			return x.Mean == y.Mean || (x.Empty() && y.Empty())
		}) {
			t.Errorf("%s filed from the Judge:\n%v\nderived by the store:\n%v", key.Name, a, b)
		}
		if key.Name == timeline.GPUPower && a[20].Mean != 1000 {
			t.Errorf("power from the energy counter %v, want 1000 W", a[20].Mean)
		}
	}
	energy := timeline.Key{Name: timeline.GPUEnergy, Device: "gpu0"}
	if !judged.Counted(energy) || !own.Counted(energy) {
		t.Errorf("the power came from the energy counter: the judged store says %v, the deriving one %v",
			judged.Counted(energy), own.Counted(energy))
	}
	if got, want := judged.OutOfRange(), own.OutOfRange(); len(want) != 1 || !slices.Equal(got, want) {
		t.Errorf("left out, from the Judge %v, by the store %v: want one utilisation reading", got, want)
	}
}

// gputop report derives each sample once too: AddDerived hands the
// Engine's values on, as numbers of the reader's own, and a store that files them holds what one that
// derives for itself holds, the samples the Engine leaves out (one not
// later than the last) left out by the store alike.
func TestAStoreFilesWhatAddDerivedHandsOn(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	eng := NewEngine(timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 0}}})
	judged, own := timeline.NewStore(timeline.StoreOptions{}), timeline.NewStore(timeline.StoreOptions{})
	type handedNumbers struct{ vals, then []float32 }
	var handed []handedNumbers
	for i := range 40 {
		at := t0.Add(time.Duration(i) * time.Second)
		if i == 20 {
			at = t0 // out of order: left out by both
		}
		util := float64(i * 2)
		if i == 10 {
			util = -5 // absurd: a gap, counted
		}
		s := timeline.Sample{At: at}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: util},
			{Key: timeline.Key{Name: timeline.GPUEnergy, Device: "gpu0"}, Kind: timeline.Counter, Value: 500 * float64(i)},
		})
		mine := s
		mine.Values = slices.Clone(s.Values)
		own.Add(&mine)
		var d timeline.Derived
		vals, taken := eng.AddDerived(&s, &d, nil)
		if taken != (i != 20) || taken != (s.Derived != nil) {
			t.Fatalf("sample %d: taken %v, derived %v", i, taken, s.Derived != nil)
		}
		judged.AddFloat32(&s, vals)
		if taken {
			handed = append(handed, handedNumbers{vals, slices.Clone(vals)})
		}
	}
	// The numbers handed are the reader's own: the Engine's next samples
	// do not write them.
	for i, h := range handed {
		if !slices.EqualFunc(h.vals, h.then, func(a, b float32) bool { return a == b || a != a && b != b }) {
			t.Fatalf("sample %d's numbers %v became %v", i, h.then, h.vals)
		}
	}
	if judged.Len() != own.Len() || judged.Len() != 39 {
		t.Fatalf("filed %d samples from the Engine, %d by the store itself, want 39", judged.Len(), own.Len())
	}
	from, to := t0, t0.Add(40*time.Second)
	for _, key := range []timeline.Key{{Name: timeline.GPUUtil, Device: "gpu0"}, {Name: timeline.GPUPower, Device: "gpu0"}} {
		a, b := make([]timeline.Agg, 40), make([]timeline.Agg, 40)
		judged.Series(key, from, to, a)
		own.Series(key, from, to, b)
		if !slices.EqualFunc(a, b, func(x, y timeline.Agg) bool { return x == y || (x.Empty() && y.Empty()) }) {
			t.Errorf("%s filed from the Engine:\n%v\nderived by the store:\n%v", key.Name, a, b)
		}
	}
	if got, want := judged.OutOfRange(), own.OutOfRange(); len(want) != 1 || !slices.Equal(got, want) {
		t.Errorf("left out, from the Engine %v, by the store %v: want one utilisation reading", got, want)
	}
}

// Samples of the same keys share their values' series, and each
// has numbers of its own: what a store files of them and what an exporter
// publishes (Latest) are each sample's, never the one before's.
func TestJudgedSamplesCarryTheirNumbersUntilTheNextTake(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	info := timeline.SourceInfo{GPUs: []timeline.GPUInfo{{Index: 0}}}
	judge := NewJudge(info)
	store := timeline.NewStore(timeline.StoreOptions{})
	var ids [][]timeline.SeriesID
	for i := range 3 {
		s := timeline.Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics([]timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: float64(10 * (i + 1))},
		})
		judge.Take(&s, info)
		// What the screen does with each sample it pulls, before the next.
		if d := s.Derived; len(d.Numbers) != 1 || d.Numbers[0] != float64(10*(i+1)) {
			t.Errorf("sample %d handed numbers %v, want [%d]", i, d.Numbers, 10*(i+1))
		}
		ids = append(ids, s.Derived.IDs)
		store.Add(&s)
		latest, ok := judge.Latest(s.At)
		if !ok || len(latest) != 1 || latest[0].Value != float64(10*(i+1)) || latest[0].Key.Name != timeline.GPUUtil {
			t.Errorf("sample %d: Latest = %v, %v, want util %d", i, latest, ok, 10*(i+1))
		}
	}
	if &ids[1][0] != &ids[2][0] {
		t.Errorf("samples of one layout were handed their series copied again")
	}
	cols := make([]timeline.Agg, 3)
	store.Series(timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, t0, t0.Add(3*time.Second), cols)
	for i, c := range cols {
		if c.Mean != float64(10*(i+1)) {
			t.Errorf("the store filed %v at %d s, want %d", c.Mean, i, 10*(i+1))
		}
	}
}
