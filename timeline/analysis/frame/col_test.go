package frame

import (
	"math"
	"testing"
	"unsafe"
)

// TestColReadsBackWhatWasWritten checks the paged series: every column
// reads back as set, a page never written holds nothing and reads as the
// fill, one let go of reads as the fill and stays so, and a view cut from
// it ends where it was cut.
func TestColReadsBackWhatWasWritten(t *testing.T) {
	nan := float32(math.NaN())
	c := NewCol(0, nan)
	for i := range 3 * pageCols {
		switch {
		case i < pageCols:
			c.Append(float32(i))
		default:
			c.Append(nan) // a page of NaN: nothing held
		}
	}
	c.Set(2*pageCols+5, 7)
	if c.Len() != 3*pageCols {
		t.Fatalf("len %d", c.Len())
	}
	if got := c.Bytes() - int(unsafe.Sizeof(page[float32]{}))*cap(c.pages); got != pageCols*4+16*4 {
		t.Errorf("held %d bytes of pages, want a page's and 16 columns' %d", got, pageCols*4+16*4)
	}
	for _, tc := range []struct {
		i    int
		want float32
	}{{0, 0}, {pageCols - 1, pageCols - 1}, {pageCols, nan}, {2*pageCols + 5, 7}, {2*pageCols + 6, nan}, {10 * pageCols, nan}} {
		if got := c.At(tc.i); got != tc.want && !(got != got && tc.want != tc.want) {
			t.Errorf("At(%d) = %v, want %v", tc.i, got, tc.want)
		}
	}
	run, n := c.Run(pageCols-2, 3*pageCols)
	if n != 2 || len(run) != 2 || run[1] != pageCols-1 {
		t.Errorf("Run at the end of a page: %v, %d", run, n)
	}
	if run, n := c.Run(pageCols+3, pageCols+10); run != nil || n != 7 {
		t.Errorf("Run over a page of nothing: %v, %d", run, n)
	}
	if run, n := c.Run(2*pageCols+2, 3*pageCols); len(run) != n || n < 4 || run[3] != 7 {
		t.Errorf("Run over a page written in part: %v, %d", run, n)
	}
	if run, n := c.Run(2*pageCols+200, 3*pageCols); run != nil || n != pageCols-200 {
		t.Errorf("Run past what a page holds: %v, %d", run, n)
	}
	view := c.Cut(10)
	if view.Len() != 10 || view.At(9) != 9 {
		t.Errorf("a view of 10: len %d, last %v", view.Len(), view.At(9))
	}
	if freed := c.Release(pageCols + 1); freed != pageCols*4 {
		t.Errorf("let go of %d bytes, want a page's %d", freed, pageCols*4)
	}
	c.Set(3, 1)
	if v := c.At(3); v == v {
		t.Errorf("a column let go of reads %v after Set, want NaN", v)
	}
	var never Col[float32]
	never.Set(3, 1)
	if never.Has() || never.Bytes() != 0 {
		t.Error("a series never seen took a column")
	}
}

// A page of one value is that value once the next page begins, and reads
// back the same, NaN too (a page of gaps and NaN); a page of more values
// stays as it is. Writing into a packed page or running over it reads the
// same columns.
func TestColPacksPagesOfOneValue(t *testing.T) {
	nan := float32(math.NaN())
	value := func(p, i int) float32 {
		switch p {
		case 0:
			return 80 // a GPU's memory total
		case 1:
			return float32(math.Float32frombits(0x7fc00001)) // NaN, of another payload
		default:
			return float32(i % 2)
		}
	}
	c := NewCol(0, float32(-1))
	for p := range 4 {
		for i := range pageCols {
			c.Append(value(p, i))
		}
	}
	if c.pages[0].n != pageCols || c.pages[1].n != pageCols || c.pages[2].n != 0 || c.pages[3].n != 0 {
		t.Fatalf("pages of one value: %d %d %d %d columns, want the first two's", c.pages[0].n, c.pages[1].n, c.pages[2].n, c.pages[3].n)
	}
	same := func(a, b float32) bool { return a == b || a != a && b != b }
	view := c.Cut(4 * pageCols)
	for p := range 4 {
		for i := range pageCols {
			if got := view.At(p*pageCols + i); !same(got, value(p, i)) {
				t.Fatalf("page %d column %d: %v, want %v", p, i, got, value(p, i))
			}
		}
	}
	if got, plain := c.Bytes(), 4*pageCols*4; got > plain*3/5 {
		t.Errorf("held %d bytes, want well under the %d of plain pages", got, plain)
	}
	if run, n := c.Run(3, 2*pageCols); n != pageCols-3 || run[0] != 80 || run[n-1] != 80 {
		t.Errorf("Run over a packed page: %d columns from %v", n, run[0])
	}
	c.Set(pageCols+5, 81)
	if c.At(pageCols+5) != 81 || !same(c.At(pageCols+4), nan) || !same(c.At(pageCols+6), nan) {
		t.Errorf("a column written in a packed page: %v %v %v", c.At(pageCols+4), c.At(pageCols+5), c.At(pageCols+6))
	}
	if freed := c.Release(2 * pageCols); freed <= 0 || c.At(3) != -1 {
		t.Errorf("let go of %d bytes; column 3 reads %v", freed, c.At(3))
	}
}
