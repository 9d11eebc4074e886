package timeline

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// recallSession is seven hours (past what the 10 s buckets keep) of a few GPUs' gauges and counters at about
// 1 s, with jitter, a pause of a minute and a GPU that comes later: what a
// store reads back must be derived as the session was.
func recallSession() []Sample {
	rng := rand.New(rand.NewPCG(7, 8))
	var out []Sample
	at, energy, tx := t0, 0.0, 0.0
	for i := range 7 * 3600 {
		step := time.Second // then 2 s: what a value holds for is the session's
		if i > 4*3600 {
			step = 2 * time.Second
		}
		at = at.Add(step + time.Duration(rng.IntN(200))*time.Millisecond)
		switch i {
		case 5000:
			at = at.Add(time.Minute)
		case 12000:
			at = at.Add(40 * time.Minute) // a stretch read back may hold nothing
		}
		energy += 200 + float64(rng.IntN(100))
		tx += float64(rng.IntN(1 << 20))
		ms := []Metric{g(GPUUtil, "gpu0", float64(rng.IntN(101))), g(GPUMemUsed, "gpu0", 1<<30),
			g(GPUPower, "gpu0", 250), c(GPUEnergy, "gpu0", energy), c(GPUPCIeTxBytes, "gpu0", tx)}
		if i > 7000 {
			ms = append(ms, g(GPUUtil, "gpu1", float64(i%17)))
		}
		out = append(out, Sample{At: at}.WithMetrics(ms))
	}
	return out
}

// recallFrom reads back from samples as a recording's Recaller does,
// counting its reads.
func recallFrom(samples []Sample, reads *int) Recall {
	return func(from, to time.Time, add func(*Sample) bool) error {
		*reads++
		i := max(0, sort.Search(len(samples), func(i int) bool { return !samples[i].At.Before(from) })-1)
		for ; i < len(samples) && !samples[i].At.After(to); i++ {
			cp := samples[i]
			cp.Values = slices.Clone(cp.Values)
			if !add(&cp) {
				return nil
			}
		}
		return nil
	}
}

// A store that keeps an hour and reads the rest back shows what a store
// that keeps everything shows, window for window and moment for moment,
// and reads the file only now and then as a window scrolls.
func TestRecallShowsWhatTheWholeStoreShows(t *testing.T) {
	samples := recallSession()
	reads := 0
	whole := NewStore(StoreOptions{})
	part := NewStore(StoreOptions{RawValues: 3600 * 6, Recall: recallFrom(samples, &reads)})
	for i := range samples {
		a, b := samples[i], samples[i]
		whole.Add(&a)
		part.Add(&b)
	}
	if !part.OldestRaw().After(t0.Add(time.Hour)) || !part.FineSince().Equal(part.First()) {
		t.Fatalf("the store keeps raw samples from %v, shows every one from %v: it should read the first hours back",
			part.OldestRaw(), part.FineSince())
	}
	keys := []Key{{GPUUtil, "gpu0"}, {GPUPower, "gpu0"}, {GPUPCIeTx, "gpu0"}, {GPUUtil, "gpu1"}, {GPUMemUsed, "gpu0"}}
	a, b := make([]Agg, 120), make([]Agg, 120)
	same := func(from time.Time, width time.Duration) {
		t.Helper()
		for _, k := range keys {
			whole.Series(k, from, from.Add(width), a)
			part.Series(k, from, from.Add(width), b)
			for i := range a {
				if a[i] != b[i] && !(a[i].Empty() && b[i].Empty()) {
					t.Fatalf("%v from %v over %v, column %d: %v read back, %v kept", k, from, width, i, b[i], a[i])
				}
			}
			x, y := whole.ValueAt(k, from), part.ValueAt(k, from)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				t.Fatalf("%v at %v: %v read back, %v kept", k, from, y, x)
			}
		}
		var ta, tb []time.Time
		whole.SampleTimes(from, from.Add(width), func(at time.Time) bool { ta = append(ta, at); return true })
		part.SampleTimes(from, from.Add(width), func(at time.Time) bool { tb = append(tb, at); return true })
		if len(ta) != len(tb) {
			t.Fatalf("from %v over %v: %d sample times read back, %d kept", from, width, len(tb), len(ta))
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	span := whole.Last().Sub(whole.First())
	for range 300 {
		width := []time.Duration{30 * time.Second, 5 * time.Minute, time.Hour, 3 * time.Hour}[rng.IntN(4)]
		same(whole.First().Add(time.Duration(rng.Int64N(int64(span)))-time.Minute), width)
	}
	// Across the pause, where how long a value holds shows.
	pause := samples[5000].At
	for d := -70 * time.Second; d < 10*time.Second; d += 700 * time.Millisecond {
		same(pause.Add(d), 30*time.Second)
	}
	// From inside the long pause back out of it.
	for d := 0; d < 40; d++ {
		same(samples[12000].At.Add(-time.Duration(d)*time.Minute), 30*time.Second)
	}
	// Scrolling a 2-minute window back by a second 600 times reads back
	// a few times, not at every step, and shows what was kept at each.
	reads = 0
	end := whole.First().Add(90 * time.Minute)
	for i := range 600 {
		same(end.Add(-time.Duration(i)*time.Second-2*time.Minute), 2*time.Minute)
	}
	if reads > 3 {
		t.Errorf("scrolling 10 minutes read back %d times", reads)
	}
}

// A recording that cannot be read back (removed, damaged) leaves the store
// reading its buckets, and saying from when it shows every sample.
func TestRecallThatFailsFallsBackToBuckets(t *testing.T) {
	samples := recallSession()
	reads := 0
	part := NewStore(StoreOptions{RawValues: 3600 * 6, Recall: func(time.Time, time.Time, func(*Sample) bool) error {
		reads++
		return errors.New("gone")
	}})
	for i := range samples {
		part.Add(&samples[i])
	}
	dst := make([]Agg, 60)
	for range 3 {
		part.Series(Key{GPUPower, "gpu0"}, part.First(), part.First().Add(time.Minute), dst)
	}
	if reads != 1 || !part.FineSince().Equal(part.OldestRaw()) {
		t.Errorf("after a failed read back: %d reads, every sample since %v (raw since %v)", reads, part.FineSince(), part.OldestRaw())
	}
	if dst[30].Mean != 250 {
		t.Errorf("the first minute from the buckets: %v, want 250", dst[30])
	}
}

// What a store reads back at once is bounded by values, not samples
// alone: with many series a window of fewer samples is drawn from the
// buckets, and no stretch read back holds more than recallValues.
func TestRecallIsBoundedByValues(t *testing.T) {
	const series = 2000
	var samples []Sample
	for i := range 5000 {
		ms := make([]Metric, series)
		for k := range ms {
			ms[k] = g(GPUUtil, GPUDevice(k), float64((i+k)%100))
		}
		samples = append(samples, Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(ms))
	}
	reads, most := 0, 0
	recall := recallFrom(samples, &reads)
	s := NewStore(StoreOptions{RawValues: 100 * series, Recall: func(from, to time.Time, add func(*Sample) bool) error {
		n := 0
		err := recall(from, to, func(smp *Sample) bool { n++; return add(smp) })
		most = max(most, n)
		return err
	}})
	for i := range samples {
		s.Add(&samples[i])
	}
	dst := make([]Agg, 1000) // columns narrower than the finest buckets
	s.Series(Key{GPUUtil, "gpu7"}, t0, t0.Add(2500*time.Second), dst)
	if reads != 0 {
		t.Errorf("a window of 2500 samples of %d series was read back", series)
	}
	s.Series(Key{GPUUtil, "gpu7"}, t0.Add(time.Hour), t0.Add(time.Hour+1500*time.Second), dst)
	if reads != 1 || most*series > recallValues+series {
		t.Errorf("a window of 1500 samples: %d reads, the most %d samples of %d series, past %d values", reads, most, series, recallValues)
	}
	if want := float64((3600 + 750 + 7) % 100); dst[500].Min != want {
		t.Errorf("the window's middle: %v, want %v", dst[500], want)
	}
}
