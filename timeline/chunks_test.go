package timeline

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Whatever a series' values (one that never changes, few values, all
// different, NaN of any payload), chunks give back every word as it was
// written, sealed or open, after the oldest rows go and after series are
// added; and a series that does not change costs a few bytes a block.
func TestChunksGiveBackEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []func(r int) uint32{
		func(int) uint32 { return math.Float32bits(80) },                      // a memory total
		func(r int) uint32 { return math.Float32bits(float32(r / 20 % 3)) },   // three values
		func(r int) uint32 { return math.Float32bits(float32(rng.IntN(12))) }, // up to 12
		func(int) uint32 { return rng.Uint32() },                              // anything
		func(r int) uint32 { return math.Float32bits(float32(r % 17)) },       // 17: past the dictionary
		func(r int) uint32 { return uint32(0x7fc00000 + r%2) },                // NaNs of two payloads
	}
	for _, lanes := range []int{1, 4} {
		c := chunks{lanes: lanes, rows: []int{blockRows, bucketBlockRows}[lanes/4], missing: nanBits}
		var want [][]uint32 // per row, per series*lanes+lane
		width := 3
		for r := range 700 {
			if r == 150 || r == 400 {
				width += 3 // series added mid-block
			}
			row := c.appendRow(width)
			w := make([]uint32, len(row))
			for i := range w {
				w[i] = kinds[(i/lanes)%len(kinds)](r)
			}
			copy(row, w)
			want = append(want, w)
			if r%97 == 96 {
				c.dropFront(31)
				want = want[31:]
			}
			if c.len() != len(want) {
				t.Fatalf("lanes %d, row %d: %d rows held, want %d", lanes, r, c.len(), len(want))
			}
		}
		// Read in turn, a series' lane at a time, as a window is read.
		for id := range width {
			for lane := range lanes {
				cur := c.cursor(id, lane)
				for i, w := range want {
					exp := c.missing
					if k := id*lanes + lane; k < len(w) {
						exp = w[k]
					}
					if g := cur.at(c.first() + i); g != exp {
						t.Fatalf("lanes %d, in turn, row %d, series %d lane %d: %#x, want %#x", lanes, i, id, lane, g, exp)
					}
				}
			}
		}
		got := make([]uint32, lanes)
		for i, w := range want {
			for id := range width {
				c.getLanes(c.first()+i, id, got)
				for lane := range lanes {
					exp := c.missing
					if k := id*lanes + lane; k < len(w) {
						exp = w[k]
					}
					if g := c.get(c.first()+i, id, lane); g != exp || got[lane] != exp {
						t.Fatalf("lanes %d, row %d, series %d lane %d: %#x (all lanes %#x), want %#x", lanes, i, id, lane, g, got[lane], exp)
					}
				}
			}
		}
	}

	// A block of a series that does not change: a few bytes, where its
	// words take 256.
	c := chunks{lanes: 1, rows: blockRows, missing: nanBits}
	for range blockRows + 1 {
		c.appendRow(1)[0] = math.Float32bits(80)
	}
	if n := len(c.blocks[0].data); n > 8 {
		t.Errorf("a block of one value takes %d bytes", n)
	}
}

// A live store with a budget keeps within it however long it runs, its
// oldest fine history going first, and still shows the whole session.
func TestStoreBudgetHolds(t *testing.T) {
	const series, budget = 400, 4 << 20
	s := NewStore(StoreOptions{RawSamples: DefaultRawSamples, Budget: budget})
	rng := rand.New(rand.NewPCG(3, 4))
	ms := make([]Metric, series)
	for i := range 2 * 86400 / 5 { // two days at 5 s
		for k := range ms {
			v := 50.0
			if k%3 == 0 {
				v = float64(rng.IntN(1000)) / 10 // a third of the series noisy
			}
			ms[k] = g(GPUUtil, GPUDevice(k), v)
		}
		s.Add(&Sample{At: t0.Add(time.Duration(i) * 5 * time.Second), Metrics: ms})
		if i%1000 == 0 && s.HeldBytes() > budget+budget/8 {
			t.Fatalf("after %d samples the store holds %d bytes, past its budget of %d", i, s.HeldBytes(), budget)
		}
	}
	if got := s.HeldBytes(); got > budget+budget/8 {
		t.Fatalf("the store holds %d bytes, past its budget of %d", got, budget)
	}
	if s.OldestRaw().Before(t0.Add(24 * time.Hour)) {
		t.Errorf("the fine history reaches back to %v: a budget of %d bytes cannot hold that", s.OldestRaw(), budget)
	}
	// The whole session, from its first sample, in 100 columns.
	dst := make([]Agg, 100)
	s.Series(Key{GPUUtil, "gpu1"}, t0, t0.Add(48*time.Hour), dst)
	for i, a := range dst {
		if a.Mean != 50 {
			t.Fatalf("column %d of two days: %v, want 50", i, a)
		}
	}
}
