package importer

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// passes builds the row times (ms) of n sampling passes over gpus GPUs,
// 100 ms apart with rows 1 ms apart, then lets edit change them.
func passes(n, gpus int, edit func(p, g int, at float64) (float64, bool)) (times []float64, want []int) {
	for p := 0; p < n; p++ {
		for g := 0; g < gpus; g++ {
			at := float64(p*100 + g)
			keep := true
			if edit != nil {
				at, keep = edit(p, g, at)
			}
			if keep {
				times, want = append(times, at), append(want, g)
			}
		}
	}
	return times, want
}

// timedTable makes an unkeyed timed table from row times in ms.
func timedTable(times []float64) *table {
	t := newTable()
	t.timed = true
	for i, ms := range times {
		put := func() error { t.put("v", float64(i)); return nil }
		if err := t.add(row{line: int32(i + 1), at: int64(ms * float64(time.Millisecond)), gpu: -1, ident: -1}, put); err != nil {
			panic(err)
		}
	}
	return t
}

func gpusOf(t *table) []int {
	var out []int
	for _, r := range t.rows {
		out = append(out, int(r.gpu))
	}
	return out
}

func TestGroupBursts(t *testing.T) {
	const stall = 900.0
	for _, c := range []struct {
		name      string
		times     []float64
		want      []int // GPU of each row
		instants  int
		wantSizes map[int]int // instant size → count, when it matters
	}{
		{name: "clean 4 GPUs", instants: 20},
		{name: "a pass stalls between its 3rd and 4th row", instants: 20},
		{name: "a row lost: the next clean burst restarts the count", instants: 20, wantSizes: map[int]int{4: 19, 3: 1}},
		{name: "the log starts mid-pass", instants: 20, wantSizes: map[int]int{4: 19, 2: 1}},
		{name: "one GPU at 1 s with stalls", instants: 40},
	} {
		switch c.name {
		case "clean 4 GPUs":
			c.times, c.want = passes(20, 4, nil)
		case "a pass stalls between its 3rd and 4th row":
			c.times, c.want = passes(20, 4, func(p, g int, at float64) (float64, bool) {
				if p == 7 && g == 3 {
					return at + 60, true // still before the next pass
				}
				if p >= 12 && (p > 12 || g >= 3) {
					return at + stall, true
				}
				return at, true
			})
		case "a row lost: the next clean burst restarts the count":
			c.times, c.want = passes(20, 4, func(p, g int, at float64) (float64, bool) { return at, !(p == 5 && g == 3) })
		case "the log starts mid-pass":
			c.times, c.want = passes(20, 4, func(p, g int, at float64) (float64, bool) { return at, p > 0 || g >= 2 })
		case "one GPU at 1 s with stalls":
			c.times, c.want = passes(40, 1, func(p, g int, at float64) (float64, bool) {
				at = float64(p)*1003 + float64(p%3)
				if p > 20 {
					at += 5000
				}
				return at, true
			})
		}
		tb := timedTable(c.times)
		insts := tb.group()
		if got := gpusOf(tb); !slices.Equal(got, c.want) {
			t.Errorf("%s: GPUs %v, want %v", c.name, got, c.want)
		}
		if len(insts) != c.instants {
			t.Errorf("%s: %d instants, want %d", c.name, len(insts), c.instants)
		}
		if c.wantSizes != nil {
			sizes := map[int]int{}
			for _, in := range insts {
				sizes[in.hi-in.lo]++
			}
			if fmt.Sprint(sizes) != fmt.Sprint(c.wantSizes) {
				t.Errorf("%s: instant sizes %v, want %v", c.name, sizes, c.wantSizes)
			}
		}
	}
}

func TestBurstShapeRefusesNonBursts(t *testing.T) {
	for _, c := range []struct {
		name  string
		times []float64
	}{
		{"regular 1 s", func() []float64 { ts, _ := passes(50, 1, nil); return ts }()},
		// 100 ms rows with a 1 s stall every 10: the gaps fall in two classes,
		// but the short class is the sampling interval, not a burst.
		{"100 ms with stalls", func() []float64 {
			var ts []float64
			at := 0.0
			for i := 0; i < 100; i++ {
				at += 100
				if i%10 == 0 {
					at += 1000
				}
				ts = append(ts, at)
			}
			return ts
		}()},
	} {
		if n, gap, ok := timedTable(c.times).burstShape(); ok {
			t.Errorf("%s: bursts of %d with gap %v", c.name, n, time.Duration(gap))
		}
	}
}

func TestGroupKeyed(t *testing.T) {
	for _, c := range []struct {
		name  string
		gpus  []int
		times []float64 // ms; nil for an untimed log
		runs  []int
		want  []int // instant sizes
	}{
		{name: "dmon, two GPUs, no times", gpus: []int{0, 1, 0, 1, 0, 1}, want: []int{2, 2, 2}},
		{name: "dcgmi dmon lists GPUs high to low", gpus: []int{1, 0, 1, 0}, want: []int{2, 2}},
		{name: "one GPU", gpus: []int{0, 0, 0}, want: []int{1, 1, 1}},
		{
			name:  "GPU 0 missing from one pass does not pull the next pass's row in",
			gpus:  []int{0, 1, 2, 0, 1, 2, 1, 2, 0, 1, 2, 0, 1, 2},
			times: []float64{0, 0, 0, 100, 100, 100, 200, 200, 300, 300, 300, 400, 400, 400},
			want:  []int{3, 3, 2, 3, 3},
		},
		{
			name: "a new run starts a new instant",
			gpus: []int{0, 1, 0, 1}, runs: []int{1, 1, 2, 2}, want: []int{2, 2},
		},
	} {
		tb := newTable()
		tb.keyed, tb.timed = true, c.times != nil
		for i, g := range c.gpus {
			r := row{gpu: int16(g), ident: -1}
			if c.times != nil {
				r.at = int64(c.times[i] * float64(time.Millisecond))
			}
			if c.runs != nil {
				r.run = int32(c.runs[i])
			}
			if err := tb.add(r, func() error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		var sizes []int
		for _, in := range tb.group() {
			sizes = append(sizes, in.hi-in.lo)
		}
		if !slices.Equal(sizes, c.want) {
			t.Errorf("%s: instants of %v rows, want %v", c.name, sizes, c.want)
		}
	}
}
