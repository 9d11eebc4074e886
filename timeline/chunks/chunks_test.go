package chunks

import (
	"math"
	"math/rand/v2"
	"testing"
)

var nanBits = math.Float32bits(float32(math.NaN()))

// Whatever a series' values (one that never changes, few values, all
// different, decimals, NaN of any payload), chunks give back every word as
// it was written, sealed or open, after the oldest rows go and after
// series are added; a series that does not change costs a few bytes a
// block, and one of decimals two bytes a row.
func TestChunksGiveBackEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []func(r int) uint32{
		func(int) uint32 { return math.Float32bits(80) },                                              // a memory total
		func(r int) uint32 { return math.Float32bits(float32(r / 20 % 3)) },                           // three values
		func(r int) uint32 { return math.Float32bits(float32(rng.IntN(12))) },                         // up to 12
		func(int) uint32 { return rng.Uint32() },                                                      // anything
		func(r int) uint32 { return math.Float32bits(float32(r % 17)) },                               // 17: past the dictionary
		func(r int) uint32 { return uint32(0x7fc00000 + r%2) },                                        // NaNs of two payloads
		func(int) uint32 { return math.Float32bits(float32(float64(9000+rng.IntN(1000)) / 100)) },     // hundredths
		func(int) uint32 { return math.Float32bits(float32(float64(300000+rng.IntN(60000)) / 1000)) }, // milliwatts
		func(r int) uint32 { return math.Float32bits(float32(math.Copysign(0, float64(r%2*2-1)))) },   // zeros of both signs
		func(r int) uint32 { // a block's step that the next cannot take
			switch r / 64 % 3 {
			case 0:
				return math.Float32bits(float32(float64(9000+rng.IntN(1000)) / 100))
			case 1:
				return math.Float32bits(float32(float64(rng.IntN(5_000_000)) / 1000))
			}
			return math.Float32bits(float32(rng.IntN(3)))
		},
	}
	// A store's raw values (a report's seals 256 rows at once), a bucket
	// tier's summaries.
	for _, shape := range []struct{ lanes, rows int }{{1, 64}, {1, MaxRows}, {4, 16}} {
		lanes := shape.lanes
		c := New(lanes, shape.rows, nanBits)
		var want [][]uint32 // per row, per series*lanes+lane
		width := 3
		for r := range 700 {
			if r == 150 || r == 400 {
				width += 3 // series added mid-block
			}
			row := c.AppendRow(width)
			w := make([]uint32, len(row))
			for i := range w {
				w[i] = kinds[(i/lanes)%len(kinds)](r)
			}
			copy(row, w)
			want = append(want, w)
			if r%97 == 96 {
				c.DropFront(31)
				want = want[31:]
			}
			if c.Len() != len(want) {
				t.Fatalf("lanes %d, row %d: %d rows held, want %d", lanes, r, c.Len(), len(want))
			}
		}
		// Read in turn, a series' lane at a time, as a window is read.
		for id := range width {
			for lane := range lanes {
				cur := c.Cursor(id, lane)
				for i, w := range want {
					exp := c.missing
					if k := id*lanes + lane; k < len(w) {
						exp = w[k]
					}
					if g := cur.At(c.First() + i); g != exp {
						t.Fatalf("lanes %d, in turn, row %d, series %d lane %d: %#x, want %#x", lanes, i, id, lane, g, exp)
					}
				}
			}
		}
		got := make([]uint32, lanes)
		for i, w := range want {
			for id := range width {
				c.GetLanes(c.First()+i, id, got)
				for lane := range lanes {
					exp := c.missing
					if k := id*lanes + lane; k < len(w) {
						exp = w[k]
					}
					if got[lane] != exp {
						t.Fatalf("lanes %d, row %d, series %d lane %d: %#x, want %#x", lanes, i, id, lane, got[lane], exp)
					}
				}
			}
		}
	}

	// A block of a series that does not change: a few bytes, where its
	// words take 256.
	c := New(1, 64, nanBits)
	for range 64 + 1 {
		c.AppendRow(1)[0] = math.Float32bits(80)
	}
	if n := len(c.blocks[0].data); n > 8 {
		t.Errorf("a block of one value takes %d bytes", n)
	}
	// Utilisation to the hundredth, every row another value: two bytes a
	// row, where its words take four.
	c = New(1, 64, nanBits)
	for r := range 64 + 1 {
		c.AppendRow(1)[0] = math.Float32bits(float32(float64(5000+r*37) / 100))
	}
	if n := len(c.blocks[0].data); n > 9+2*64 {
		t.Errorf("a block of hundredths takes %d bytes", n)
	}
}

// BenchmarkChunksAppend appends rows of 533 series, as a store of 8 GPUs
// files each sample: two thirds never change, the rest take a few values,
// hundredths or milliwatts. One op is one row.
func BenchmarkChunksAppend(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const width = 533
	kind := func(i, r int) uint32 {
		switch {
		case i%3 != 0:
			return math.Float32bits(float32(i))
		case i%9 == 0:
			return math.Float32bits(float32(r / 20 % 3))
		case i%9 == 3:
			return math.Float32bits(float32(float64(9000+rng.IntN(1000)) / 100))
		}
		return math.Float32bits(float32(float64(300000+rng.IntN(60000)) / 1000))
	}
	rows := make([][]uint32, 256)
	for r := range rows {
		rows[r] = make([]uint32, width)
		for i := range width {
			rows[r][i] = kind(i, r)
		}
	}
	c := New(1, 64, nanBits)
	b.ResetTimer()
	for n := 0; b.Loop(); n++ {
		copy(c.AppendRow(width), rows[n%len(rows)])
		if c.Len() > 4096 {
			c.DropBlock()
		}
	}
}
