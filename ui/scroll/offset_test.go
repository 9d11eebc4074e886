package scroll

import "testing"

func TestOffset(t *testing.T) {
	for _, c := range []struct {
		name              string
		move              func(o *Offset)
		lines, rows, want int
	}{
		{"starts at the top", func(*Offset) {}, 100, 10, 0},
		{"a line down", func(o *Offset) { o.By(1) }, 100, 10, 1},
		{"never before the first line", func(o *Offset) { o.By(-3) }, 100, 10, 0},
		{"the end is the last full page", func(o *Offset) { o.End() }, 100, 10, 90},
		{"a line up from the end", func(o *Offset) { o.End(); o.Clamp(100, 10); o.By(-1) }, 100, 10, 89},
		{"a list shorter than its rows stays at the top", func(o *Offset) { o.By(5) }, 4, 10, 0},
		{"home", func(o *Offset) { o.By(40); o.Home() }, 100, 10, 0},
	} {
		var o Offset
		c.move(&o)
		if got := o.Clamp(c.lines, c.rows); got != c.want || o.Top() != c.want {
			t.Errorf("%s: top %d, want %d", c.name, got, c.want)
		}
	}
}

func TestFollowShowsTheLineAndMovesTheLeast(t *testing.T) {
	var o Offset
	if got := o.Follow(12, 100, 10); got != 3 {
		t.Errorf("line 12 below a page from 0: top %d, want 3 (12 on the last row)", got)
	}
	if got := o.Follow(5, 100, 10); got != 3 {
		t.Errorf("line 5, on screen: top %d, want 3 (unmoved)", got)
	}
	if got := o.Follow(1, 100, 10); got != 1 {
		t.Errorf("line 1 above: top %d, want 1 (on the first row)", got)
	}
}
