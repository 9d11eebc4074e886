package draw

import (
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

func TestFitWords(t *testing.T) {
	uni := NewFitter(&UnicodeGlyphs, false)
	asc := NewFitter(&ASCIIGlyphs, true)
	for _, c := range []struct {
		f    *Fitter
		in   string
		w    int
		want string
	}{
		{&uni, "(99% of the 700W limit)", 40, "(99% of the 700W limit)"},
		{&uni, "(99% of the 700W limit)", 20, "(99% of the 700W…"},
		{&uni, "Gen5 x8 of Gen5 x16", 18, "Gen5 x8 of Gen5…"},
		{&uni, "a stall, every 2m", 10, "a stall…"}, // the comma before the cut goes
		{&uni, "supercalifragilistic", 8, "superca…"},
		{&uni, "trailing   ", 8, "trailing"},
		{&uni, "ab", 0, ""},
		{&asc, "at 86-89°C with thermal slowdown", 14, "at 86-89C..."},
		{&asc, "at 86-89°C", 40, "at 86-89C"},
	} {
		if got := c.f.FitWords(c.in, c.w, false); got != c.want {
			t.Errorf("fitWords(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if got := c.f.FitWords(c.in, c.w, false); cellWidth(got, false) > max(c.w, 0) {
			t.Errorf("fitWords(%q, %d) = %q is wider than %d", c.in, c.w, got, c.w)
		}
	}
	// Outside text is measured in cells: a wide character is two.
	if got := uni.FitWords("训练 任务 python", 7, true); got != "训练…" {
		t.Errorf("wide text: %q", got)
	}
}

// Text that takes a column a rune is cut at the words graphemes would cut
// it at, read rune by rune.
func TestWordBreaksByRuneAreByGrapheme(t *testing.T) {
	for _, c := range []struct {
		s       string
		outside bool
	}{
		{"input-bound: GPU0-7 wait on the loader 38% of the time", true},
		{"train.py --epochs 3 --batch 512", true},
		{"at 86-89°C · 1320-1455 MHz … held by power", false},
		{"  leading and  double  spaces ", true},
	} {
		for room := range len(c.s) + 2 {
			// By grapheme, as FitWords reads text that may hold wide characters.
			want, col, inWord := -1, 0, false
			for g := uniseg.NewGraphemes(c.s); g.Next(); {
				start, _ := g.Positions()
				space := g.Str() == " "
				if space && inWord {
					want = start
				}
				inWord = !space
				if col++; col > room {
					break
				}
			}
			if got := lastBreakWithin(c.s, room, c.outside); got != want {
				t.Errorf("%q within %d: break at %d, want %d", c.s, room, got, want)
			}
		}
	}
}

func TestWrapWords(t *testing.T) {
	f := NewFitter(&UnicodeGlyphs, false)
	got := f.WrapWords("  one two three four five six", 12, 0)
	want := []string{"  one two", "  three four", "  five six"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", got, want)
	}
	got = f.WrapWords("  one two three four five six", 12, 2)
	want = []string{"  one two", "  three…"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap in 2 lines: %q, want %q", got, want)
	}
	got = f.HangingWords("lead: ", "aaaa bbbb cccc", 12, 2, 0)
	want = []string{"lead: aaaa", "  bbbb cccc"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hanging: %q, want %q", got, want)
	}
	// A word longer than a line is broken, never lost or left too wide.
	for _, l := range f.WrapWords("x /a/very/long/path/that/does/not/fit y", 10, 0) {
		if cellWidth(l, false) > 10 {
			t.Errorf("line %q is wider than 10", l)
		}
	}
}
