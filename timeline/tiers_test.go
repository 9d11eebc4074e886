package timeline

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/tiers"
)

// The store files values in open rows and open buckets before it seals
// them into blocks (chunks, a bucket tier's open bucket): whatever was last added
// reads back at once, through a raw tier whose size is no multiple of a
// block, as it drops its oldest, and with a series that arrives while rows
// are open.
func TestStoreReadsWhatIsPending(t *testing.T) {
	const ring = 37
	s := NewStore(StoreOptions{RawSamples: ring})
	util, power, late := Key{GPUUtil, "gpu0"}, Key{GPUPower, "gpu0"}, Key{GPUMemUsed, "gpu0"}
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	for i := range 300 {
		smp := Sample{At: at(i)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", float64(i%100)), g(GPUPower, "gpu0", float64(100+i))})
		if i >= 50 {
			smp.SetMetrics(append(smp.Metrics(), g(GPUMemUsed, "gpu0", float64(2*i))))
		}
		s.Add(&smp)
		if v := s.ValueAt(util, at(i)); v != float64(i%100) {
			t.Fatalf("sample %d: utilisation %v, want %d", i, v, i%100)
		}
		if i >= 50 {
			if v := s.ValueAt(late, at(i)); v != float64(2*i) {
				t.Fatalf("sample %d: the late series %v, want %d", i, v, 2*i)
			}
		}
		// Every raw sample still held, in order.
		want := max(0, i+1-ring)
		s.EachAt(power, s.OldestRaw(), at(i), func(ns int64, v float64) bool {
			if ns != at(want).UnixNano() || v != float64(100+want) {
				t.Fatalf("sample %d: raw value %v at %v, want %d at %v", i, v, time.Unix(0, ns).UTC(), 100+want, at(want))
			}
			want++
			return true
		})
		if want != i+1 {
			t.Fatalf("sample %d: raw values up to %d, want up to %d", i, want-1, i)
		}
	}
	// Every 10 s bucket, the open one too: its ten values (t0 is on a
	// bucket's edge).
	b := s.tiers[0]
	sid, _ := s.ID(util)
	id := int(sid)
	for k := range b.Len() {
		first := int(time.Duration(b.Time(k)-t0.UnixNano()) / time.Second)
		var sum float32
		for j := first; j < first+10 && j < 300; j++ {
			sum += float32(j % 100)
		}
		if a := b.At(id, b.Phys(k)); a.Sum != sum || a.N != uint32(min(10, 300-first)) {
			t.Fatalf("bucket %d (from %d s): sum %v of %d, want %v of %d", k, first, a.Sum, a.N, sum, min(10, 300-first))
		}
	}
	// Before the ring, ValueAt reads them: a bucket's mean.
	for i := 0; i < 300-ring; i += 7 {
		first := i - i%10
		var sum float64
		n := 0
		for j := first; j < first+10 && j < 300; j++ {
			sum += float64(j % 100)
			n++
		}
		if v := s.ValueAt(util, at(i)); v != sum/float64(n) {
			t.Fatalf("utilisation at %d s, from the buckets: %v, want %v", i, v, sum/float64(n))
		}
	}
}

// A store told the span to come makes room for its buckets' times once,
// what it files the same as one that grows; a claim of a week reserves no
// more than a tier keeps.
func TestReserveSpanMakesRoomOnce(t *testing.T) {
	grown := NewStore(StoreOptions{RawSamples: 60})
	told := NewStore(StoreOptions{RawSamples: 60, ReserveSpan: time.Hour})
	for _, s := range []*Store{grown, told} {
		feed(s, 3600, time.Second, func(i int) float64 { return float64(i % 97) })
	}
	if got := told.tiers[0].Reserved(); got != 3600/10+2 {
		t.Errorf("the finest tier made room for %d buckets, want 362", got)
	}
	a, b := make([]Agg, 50), make([]Agg, 50)
	grown.Series(util0, t0, t0.Add(time.Hour), a)
	told.Series(util0, t0, t0.Add(time.Hour), b)
	if !same(means(a), means(b)) {
		t.Errorf("a store told the span files otherwise:\n%v\n%v", means(a), means(b))
	}

	huge := NewStore(StoreOptions{ReserveSpan: 7 * 24 * time.Hour})
	for i, b := range huge.tiers {
		if got := b.Reserved(); got > tierLayout[i].capacity {
			t.Errorf("tier %d made room for %d buckets of a week, more than the %d it keeps", i, got, tierLayout[i].capacity)
		}
	}
}

// A store read from its first sample (ReadFromFirst) lets its finest tier
// go once it wraps (the 10 s tier after 6 h, the minute's after 2 days),
// and answers every read from the first sample as one that keeps it, to
// the bit: Each, Series at widths that pick each tier and the raw samples,
// LastAt.
func TestReadFromFirstAnswersAsBefore(t *testing.T) {
	for _, span := range []struct {
		hours, let int
	}{{8, 1}, {50, 2}} {
		kept := NewStore(StoreOptions{RawSamples: 600})
		let := NewStore(StoreOptions{RawSamples: 600, ReadFromFirst: true})
		for _, s := range []*Store{kept, let} {
			feed(s, span.hours*3600, time.Second, func(i int) float64 { return float64(i%97) + float64(i%13)/7 })
		}
		if len(let.tiers) != len(kept.tiers)-span.let {
			t.Fatalf("%d tiers kept of %d after %d h, want %d", len(let.tiers), len(kept.tiers), span.hours, len(kept.tiers)-span.let)
		}
		readsAlike(t, kept, let)
	}
}

// A store read from its first sample and told how many samples are to
// come files its bucket tiers only if its raw tier will not hold them all:
// one that holds them never files them (a day of 8 GPUs in a report); one
// told of more than it holds files them as they come; one that finds more
// than it was told (another series, more samples) files every sample it
// holds then first, and holds the same buckets, to the bit, as a store
// that filed them as each sample came.
func TestReadFromFirstFilesItsTiersOnlyToLetGo(t *testing.T) {
	late := Key{GPUPower, "gpu0"}
	fill := func(s *Store, from, to, lateFrom int) {
		for i := from; i < to; i++ {
			ms := []Metric{g(GPUUtil, "gpu0", float64(i%97)+float64(i%13)/7)}
			if i >= lateFrom {
				ms = append(ms, g(GPUPower, "gpu0", float64(100+i%31)))
			}
			s.Add(new(Sample{At: t0.Add(time.Duration(i) * time.Second)}.WithMetrics(ms)))
		}
	}
	// The raw tier holds 8,000 values; 5,000 samples are to come.
	opts := StoreOptions{RawSamples: FileRawSamples, RawValues: 8000, ReadFromFirst: true, Reserve: 5000}
	told := NewStore(StoreOptions{RawSamples: FileRawSamples, RawValues: 8000, ReadFromFirst: true, Reserve: 9000})
	fill(told, 0, 1, 1<<30)
	if told.tiersLater {
		t.Error("a store told of more samples than it holds raw waits to file its buckets")
	}
	for _, c := range []struct {
		name          string
		count, lateAt int
		keys          []Key
	}{
		{"a series more than told", 12000, 5000, []Key{util0, late}},
		{"more samples than told", 12000, 1 << 30, []Key{util0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			asCame, later := NewStore(opts), NewStore(opts)
			asCame.tiersLater = false
			// 5,000 samples of one series fit: no buckets yet.
			fill(asCame, 0, 5000, c.lateAt)
			fill(later, 0, 5000, c.lateAt)
			if !later.tiersLater || later.tiers[0].Len() != 0 || !later.OldestRaw().Equal(t0) {
				t.Fatalf("a store that holds every sample raw filed its buckets (%d of the finest)", later.tiers[0].Len())
			}
			// Each and LastAt read the raw samples in both; Series reads
			// them in this one where the other reads buckets for columns
			// wider than them.
			from, to := later.First(), later.Last()
			if a, b := eachOf(asCame, util0, from, to), eachOf(later, util0, from, to); !slices.EqualFunc(a, b, sameBits) || len(a) != 2*5000 {
				t.Errorf("Each reads %d values, %d from a store that filed its buckets", len(b)/2, len(a)/2)
			}
			if a, b := asCame.LastAt(util0, from, to), later.LastAt(util0, from, to); a != b {
				t.Errorf("LastAt %v, %v from a store that filed its buckets", b, a)
			}
			fill(asCame, 5000, c.count, c.lateAt)
			fill(later, 5000, c.count, c.lateAt)
			if later.tiersLater || later.OldestRaw().Equal(t0) {
				t.Fatal("a store that let go of raw samples did not file its buckets")
			}
			for k, b := range asCame.tiers {
				if got := later.tiers[k].Len(); got != b.Len() {
					t.Fatalf("tier %d holds %d buckets, %d in a store that filed them as each sample came", k, got, b.Len())
				}
			}
			for _, key := range c.keys {
				readsAlike(t, asCame, later, key)
			}
		})
	}
}

// readsAlike fails unless let reads as kept from the first sample on: key,
// util0 where none is given.
func readsAlike(t *testing.T, kept, let *Store, keys ...Key) {
	t.Helper()
	key := util0
	if len(keys) > 0 {
		key = keys[0]
	}
	from, to := kept.First(), kept.Last()
	if a, b := eachOf(kept, key, from, to), eachOf(let, key, from, to); !slices.EqualFunc(a, b, sameBits) {
		t.Errorf("Each reads %d values, %d from a store that kept every tier", len(b), len(a))
	}
	for _, cols := range []int{4, 40, 400, 4000, 40000} {
		a, b := make([]Agg, cols), make([]Agg, cols)
		kept.Series(key, from, to, a)
		let.Series(key, from, to, b)
		for i := range a {
			if a[i] != b[i] && !(a[i].Empty() && b[i].Empty()) {
				t.Fatalf("%d columns: column %d is %v, %v from a store that kept every tier", cols, i, b[i], a[i])
			}
		}
	}
	if a, b := kept.LastAt(key, from, to), let.LastAt(key, from, to); a != b {
		t.Errorf("LastAt %v, %v from a store that kept every tier", b, a)
	}
}

// eachOf is what s.EachAt reads of key from `from` to `to`: each time and
// value in turn.
func eachOf(s *Store, key Key, from, to time.Time) (out []float64) {
	s.EachAt(key, from, to, func(at int64, v float64) bool {
		out = append(out, float64(at), v)
		return true
	})
	return out
}

// sameBits says whether a and b are one number, or both NaN (a gap).
func sameBits(a, b float64) bool { return a == b || a != a && b != b }

// Every tier holds every sample of its span as the finest does, its open
// bucket too (which adds in what the finer tiers hold open): counts, least
// and greatest exactly, sums to float32's rounding, since a coarser bucket
// sums the finer ones' sums.
func TestCoarserTiersHoldEverySample(t *testing.T) {
	value := func(i int) float64 { return float64(i%97) + float64(i%13)/7 }
	const n = 7*3600 + 1234 // the newest bucket of every tier part full
	s := NewStore(StoreOptions{RawSamples: 60})
	feed(s, n, time.Second, value)
	sid, _ := s.ID(util0)
	id := int(sid)
	for k, b := range s.tiers {
		for i := range b.Len() {
			first := max(0, int((b.Time(i)-t0.UnixNano())/int64(time.Second)))
			end := min(n, int((b.Time(i)+b.Width-t0.UnixNano())/int64(time.Second)))
			var want tiers.Agg
			for j := first; j < end; j++ {
				want.Add(float32(value(j)))
			}
			got := b.At(id, b.Phys(i))
			if got.N != want.N || got.Min != want.Min || got.Max != want.Max ||
				math.Abs(float64(got.Sum-want.Sum)) > 1e-6*float64(want.Sum) {
				t.Fatalf("tier %d, bucket %d (samples %d-%d): %+v, want %+v", k, i, first, end-1, got, want)
			}
		}
	}
}
