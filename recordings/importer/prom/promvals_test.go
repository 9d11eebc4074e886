package prom

import (
	"math"
	"slices"
	"testing"
)

// A series' values come back as they were added, bit for bit, whether
// they are kept as runs or as a slice, by all and by a cursor.
func TestPointValsKeepEveryValue(t *testing.T) {
	negZero := math.Copysign(0, -1)
	wave := make([]float64, 100)
	for i := range wave {
		wave[i] = float64(i % 7)
	}
	steps := make([]float64, 300)
	for i := range steps {
		steps[i] = float64(i / 3) // a run of 3: runs stay the smaller
	}
	for _, c := range []struct {
		name  string
		parts [][]float64
		dense bool
	}{
		{"constant", [][]float64{{5, 5, 5, 5}}, false},
		{"-0 and 0 apart", [][]float64{{0, negZero, negZero, 0}}, false},
		{"changing", [][]float64{wave}, true},
		{"runs of three", [][]float64{steps}, false},
		{"a constant stretch after a changing one", [][]float64{wave, {1, 1, 1}}, true},
		{"stretches that join", [][]float64{{2, 2}, {2, 3}}, false},
	} {
		var p pointVals
		var want []float64
		for _, part := range c.parts {
			q := pointVals{hint: len(part)}
			for _, v := range part {
				q.add(v)
			}
			p.appendVals(&q)
			want = append(want, part...)
		}
		bits := func(vs []float64) []uint64 {
			out := make([]uint64, len(vs))
			for i, v := range vs {
				out[i] = math.Float64bits(v)
			}
			return out
		}
		if got := p.all(0); !slices.Equal(bits(got), bits(want)) || p.n != len(want) {
			t.Errorf("%s: all %v (n %d), want %v", c.name, got, p.n, want)
		}
		if (p.dense != nil) != c.dense {
			t.Errorf("%s: dense %v, runs %d of %d points", c.name, p.dense != nil, len(p.runs), p.n)
		}
		var walked []float64
		var cur timeCursor
		for cur.i = 0; cur.i < p.n; cur.i++ {
			walked = append(walked, p.at(&cur))
		}
		if !slices.Equal(bits(walked), bits(want)) {
			t.Errorf("%s: cursor walked %v", c.name, walked)
		}
	}
}
