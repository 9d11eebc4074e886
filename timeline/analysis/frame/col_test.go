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
	c := NewFloats(0)
	for i := range 3 * PageCols {
		switch {
		case i < PageCols:
			c.Append(float32(i))
		default:
			c.Append(nan) // a page of NaN: nothing held
		}
	}
	c.Set(2*PageCols+5, 7)
	if c.Len() != 3*PageCols {
		t.Fatalf("len %d", c.Len())
	}
	// The first page is packed: its whole numbers from 0 to 511 take two
	// bytes each.
	got := 0
	for k := range c.pages {
		got += c.pages[k].bytes()
	}
	if got != 2*PageCols+16*4 {
		t.Errorf("held %d bytes of pages, want a packed page's and 16 columns' %d", got, 2*PageCols+16*4)
	}
	for _, tc := range []struct {
		i    int
		want float32
	}{{0, 0}, {PageCols - 1, PageCols - 1}, {PageCols, nan}, {2*PageCols + 5, 7}, {2*PageCols + 6, nan}, {10 * PageCols, nan}} {
		if got := c.At(tc.i); got != tc.want && !(got != got && tc.want != tc.want) {
			t.Errorf("At(%d) = %v, want %v", tc.i, got, tc.want)
		}
	}
	run, n := c.Run(PageCols-2, 3*PageCols)
	if n != 2 || len(run) != 2 || run[1] != PageCols-1 {
		t.Errorf("Run at the end of a page: %v, %d", run, n)
	}
	if run, n := c.Run(PageCols+3, PageCols+10); run != nil || n != 7 {
		t.Errorf("Run over a page of nothing: %v, %d", run, n)
	}
	if run, n := c.Run(2*PageCols+2, 3*PageCols); len(run) != n || n < 4 || run[3] != 7 {
		t.Errorf("Run over a page written in part: %v, %d", run, n)
	}
	if run, n := c.Run(2*PageCols+200, 3*PageCols); run != nil || n != PageCols-200 {
		t.Errorf("Run past what a page holds: %v, %d", run, n)
	}
	view := c.Cut(10)
	if view.Len() != 10 || view.At(9) != 9 {
		t.Errorf("a view of 10: len %d, last %v", view.Len(), view.At(9))
	}
	// Run made the first page its columns again.
	if freed, want := c.Release(PageCols+1), 4*PageCols; freed < want || freed > want+4*int(unsafe.Sizeof(page[float32]{})) {
		t.Errorf("let go of %d bytes, want the page's %d", freed, want)
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
		for i := range PageCols {
			c.Append(value(p, i))
		}
	}
	if c.pages[0].packed.codes != nil || c.pages[1].packed.codes != nil || c.pages[0].n != PageCols || c.pages[1].n != PageCols || c.pages[3].n != 0 {
		t.Fatalf("pages of one value: %d %d %d %d columns, want the first two's", c.pages[0].n, c.pages[1].n, c.pages[2].n, c.pages[3].n)
	}
	same := func(a, b float32) bool { return a == b || a != a && b != b }
	view := c.Cut(4 * PageCols)
	for p := range 4 {
		for i := range PageCols {
			if got := view.At(p*PageCols + i); !same(got, value(p, i)) {
				t.Fatalf("page %d column %d: %v, want %v", p, i, got, value(p, i))
			}
		}
	}
	if got, plain := c.Bytes(), 4*PageCols*4; got > plain*3/5 {
		t.Errorf("held %d bytes, want well under the %d of plain pages", got, plain)
	}
	if run, n := c.Run(3, 2*PageCols); n != PageCols-3 || run[0] != 80 || run[n-1] != 80 {
		t.Errorf("Run over a packed page: %d columns from %v", n, run[0])
	}
	c.Set(PageCols+5, 81)
	if c.At(PageCols+5) != 81 || !same(c.At(PageCols+4), nan) || !same(c.At(PageCols+6), nan) {
		t.Errorf("a column written in a packed page: %v %v %v", c.At(PageCols+4), c.At(PageCols+5), c.At(PageCols+6))
	}
	if freed := c.Release(2 * PageCols); freed <= 0 || c.At(3) != -1 {
		t.Errorf("let go of %d bytes; column 3 reads %v", freed, c.At(3))
	}
}

// A page of Floats done with is packed where its columns allow, and reads
// back bit for bit: whole per cent, hundredths, watts to the milliwatt,
// bytes a second in megabytes, one value of any kind. Noise at every
// decimal, a spread too wide for two bytes, gaps among several values,
// infinities and zeros of both signs leave the page as it is.
func TestFloatsPackWhatTheyAllow(t *testing.T) {
	nan := float32(math.NaN())
	pages := []struct {
		name   string
		value  func(i int) float32
		packed bool
	}{
		{"whole per cent", func(i int) float32 { return float32((i * 37) % 101) }, true},
		{"hundredths", func(i int) float32 { return float32(float64(9000+i*7%1000) / 100) }, true},
		{"milliwatts", func(i int) float32 { return float32(float64(300000+(i*7919)%60000) / 1000) }, true},
		{"bytes a second in steps", func(i int) float32 { return float32(i/50%3) * 5e8 }, true},
		{"below zero", func(i int) float32 { return float32(-i) / 10 }, true},
		{"a third, throughout", func(int) float32 { return 1.0 / 3 }, true},
		{"an infinity, throughout", func(int) float32 { return float32(math.Inf(1)) }, true},
		{"noise", func(i int) float32 { return float32(math.Sin(float64(i))) }, false},
		{"watts from idle to busy, to the milliwatt", func(i int) float32 { return float32(float64(60000+i*1171) / 1000) }, false},
		{"gaps", func(i int) float32 {
			if i%7 == 0 {
				return nan
			}
			return float32(i % 3)
		}, false},
		{"infinities", func(i int) float32 { return float32(math.Inf(i%2*2 - 1)) }, false},
		{"zeros of both signs", func(i int) float32 { return float32(math.Copysign(0, float64(i%2*2-1))) }, false},
	}
	for _, pg := range pages {
		c := NewFloats(0)
		for i := range 2 * PageCols {
			c.Append(pg.value(i))
		}
		if got := c.pages[0].packed.codes != nil; got != pg.packed {
			t.Errorf("%s: packed %v, want %v", pg.name, got, pg.packed)
		}
		if held := c.pages[0].bytes(); pg.packed && held > 2*PageCols {
			t.Errorf("%s: the packed page holds %d bytes, want 2 a column at most", pg.name, held)
		}
		view := c.Cut(2 * PageCols)
		for i := range 2 * PageCols {
			if got, want := view.At(i), pg.value(i); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("%s: column %d reads %v, want %v", pg.name, i, got, want)
			}
		}
		if run, n := c.Run(10, PageCols); n < PageCols-11 || len(run) != n || math.Float32bits(run[5]) != math.Float32bits(pg.value(15)) && pg.value(15) == pg.value(15) {
			t.Errorf("%s: Run over a packed page: %d columns", pg.name, n)
		}
		c.Set(3, 42) // writing into a page done with
		if c.At(3) != 42 || c.At(4) != pg.value(4) && pg.value(4) == pg.value(4) {
			t.Errorf("%s: after a write into the page: %v %v", pg.name, c.At(3), c.At(4))
		}
	}
}

// A series of weeks let go of at the front keeps slots for the pages it
// holds, not for every page it had, and reads the same after.
func TestColLetsGoOfItsSlots(t *testing.T) {
	c := NewCol(0, float32(-1))
	const pages = 1000
	for i := range pages * PageCols {
		c.Append(float32(i % 3))
		if i%PageCols == 0 && i >= 4*PageCols {
			c.Release(i - 2*PageCols) // as the Engine keeps its budget
		}
	}
	if len(c.pages) > 8 || c.Bytes() > 4*4*PageCols {
		t.Errorf("%d slots and %d bytes held for the last few pages of %d", len(c.pages), c.Bytes(), pages)
	}
	for _, i := range []int{0, (pages-4)*PageCols - 1, (pages-2)*PageCols + 7, pages*PageCols - 1} {
		want := float32(i % 3)
		if i < c.HeldFrom() {
			want = -1
		}
		if got := c.At(i); got != want {
			t.Errorf("column %d reads %v, want %v", i, got, want)
		}
	}
}
