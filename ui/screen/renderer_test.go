package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// screenOf draws frames one after another on a fresh renderer and a vt,
// failing if what the vt shows ever differs from the same frame drawn
// whole on a blank terminal, or, on rows of plain text, from the frame's
// cells. It returns the bytes each frame cost.
func screenOf(t testing.TB, w, h int, frames ...string) []int {
	t.Helper()
	var out bytes.Buffer
	r := NewRenderer(&out)
	r.Resize(w, h)
	term := newVT(w, h)
	want := newGrid(w, h)
	var cost []int
	for i, f := range frames {
		out.Reset()
		if err := r.Render(f); err != nil {
			t.Fatal(err)
		}
		cost = append(cost, out.Len())
		if err := term.write(out.Bytes()); err != nil {
			t.Fatalf("frame %d: %v\nbytes: %q", i, err, out.String())
		}
		whole := drawnWhole(t, w, h, f)
		want.parse(f)
		for y := 0; y < h; y++ {
			got := term.g.row(y)
			if exp := whole.g.row(y); !equalCells(got, exp) {
				t.Fatalf("frame %d row %d differs from the frame drawn whole:\n got %s\nwant %s\nbytes: %q", i, y, describe(got), describe(exp), out.String())
			}
			if exp := want.row(y); !want.odd[y] && !equalCells(got, exp) {
				t.Fatalf("frame %d row %d:\n got %s\nwant %s\nbytes: %q", i, y, describe(got), describe(exp), out.String())
			}
		}
	}
	return cost
}

// drawnWhole is the vt after drawing f on a new renderer.
func drawnWhole(t testing.TB, w, h int, f string) *vt {
	var out bytes.Buffer
	r := NewRenderer(&out)
	r.Resize(w, h)
	if err := r.Render(f); err != nil {
		t.Fatal(err)
	}
	term := newVT(w, h)
	if err := term.write(out.Bytes()); err != nil {
		t.Fatalf("drawing whole: %v\nbytes: %q", err, out.String())
	}
	return term
}

func equalCells(a, b []cell) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func describe(row []cell) string {
	var b strings.Builder
	style := "\x00"
	for _, c := range row {
		if c.style != style {
			fmt.Fprintf(&b, "{%s}", c.style)
			style = c.style
		}
		b.WriteString(c.text)
	}
	return b.String()
}

const bars = "▁▂▃▄▅▆▇█"

// sparkRow is a line like the live screen's: a label, a sparkline of the
// values from `from` on, and the current value after it.
func sparkRow(values []int, from, n int) string {
	var b strings.Builder
	b.WriteString("\x1b[1m GPU0 \x1b[0m\x1b[90mutil  \x1b[0m\x1b[32m")
	for i := from; i < from+n; i++ {
		b.WriteString(string([]rune(bars)[values[i]%8]))
	}
	fmt.Fprintf(&b, "\x1b[0m \x1b[32m%3d%%\x1b[0m \x1b[90m(%d-100%%)\x1b[0m", values[from+n-1]*12, values[from+n-1])
	return b.String()
}

// TestSlidingSparklineCostsAFewCells is why this renderer exists: a
// 100-column sparkline that moved one column left is sent as a column
// delete and the cells that are new, not as the whole line again.
func TestSlidingSparklineCostsAFewCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := make([]int, 200)
	for i := range values {
		values[i] = rng.IntN(8)
	}
	var frames []string
	for s := 0; s < 20; s++ {
		frames = append(frames, strings.Repeat(sparkRow(values, s, 100)+"\n", 8))
	}
	cost := screenOf(t, 200, 8, frames...)
	whole := len(sparkRow(values, 0, 100)) * 8
	for i, c := range cost[1:] {
		if c > whole/4 {
			t.Errorf("frame %d: %d bytes for 8 slid lines; redrawing them is %d", i+1, c, whole)
		}
	}
}

func TestUnchangedFrameWritesNothing(t *testing.T) {
	f := "\x1b[1mgputop\x1b[0m · node\n" + strings.Repeat("▇", 30) + "\nlast line"
	cost := screenOf(t, 40, 5, f, f, f)
	if cost[0] == 0 || cost[1] != 0 || cost[2] != 0 {
		t.Fatalf("bytes per frame %v: the same frame again must write nothing", cost)
	}
}

// TestResizeDrawsWhole: after a resize the terminal's content is unknown
// (it may have reflowed), so the next frame clears and draws everything.
func TestResizeDrawsWhole(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(&out)
	r.Resize(20, 3)
	r.Render("abc\ndef")
	r.Resize(30, 4)
	out.Reset()
	r.Render("abc\ndef")
	term := newVT(30, 4)
	term.write([]byte(strings.Repeat("x", 30*3)))
	if err := term.write(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got := term.text(); got != "abc"+strings.Repeat(" ", 27)+"\ndef"+strings.Repeat(" ", 27)+"\n"+strings.Repeat(" ", 30)+"\n"+strings.Repeat(" ", 30)+"\n" {
		t.Fatalf("after a resize the screen shows\n%s", got)
	}
}

// TestInvalidateDrawsWhole: while gputop was stopped the shell wrote on
// the terminal, which the renderer cannot know; after Invalidate the same
// frame is drawn whole, where it would otherwise write nothing.
func TestInvalidateDrawsWhole(t *testing.T) {
	const f = "\x1b[1mgputop\x1b[0m · node\n\x1b[32m▁▂▃▄▅▆▇█\x1b[0m 50%\nlast"
	var out bytes.Buffer
	r := NewRenderer(&out)
	r.Resize(20, 4)
	if err := r.Render(f); err != nil {
		t.Fatal(err)
	}
	term := newVT(20, 4)
	if err := term.write(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	term.write([]byte("\x1b[H[1]+ Stopped\x1b[3H$ fg"))
	out.Reset()
	r.Render(f)
	if out.Len() != 0 {
		t.Fatalf("the same frame again wrote %q", out.String())
	}
	r.Invalidate()
	if err := r.Render(f); err != nil {
		t.Fatal(err)
	}
	if err := term.write(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	whole := drawnWhole(t, 20, 4, f)
	for y := 0; y < 4; y++ {
		if got, want := term.g.row(y), whole.g.row(y); !equalCells(got, want) {
			t.Fatalf("after Invalidate row %d shows\n%s\nwant\n%s", y, describe(got), describe(want))
		}
	}
}

func TestNothingDrawnBeforeASize(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(&out)
	if err := r.Render("hello"); err != nil || out.Len() != 0 {
		t.Fatalf("wrote %q (%v) before knowing the size", out.String(), err)
	}
}

// TestFramesTable covers the edges of a row: text that gets shorter or
// longer, styles that change under equal text, wide graphemes, lines cut
// at the width, the last cell of the screen, and more lines than rows.
func TestFramesTable(t *testing.T) {
	cases := []struct {
		name   string
		w, h   int
		frames []string
	}{
		{"shorter line erases its tail", 20, 2, []string{"a long line of text", "short"}},
		{"longer line", 20, 2, []string{"short", "a long line of text"}},
		{"style changes under equal text", 10, 1, []string{"\x1b[31mred\x1b[0m", "\x1b[32mred\x1b[0m", "red"}},
		{"styles nest until reset", 10, 1, []string{"\x1b[1m\x1b[31mab\x1b[0mc", "\x1b[1mab\x1b[0mc"}},
		{"wide graphemes", 10, 2, []string{"日本語ab", "a日本語b", "ab日本", "日本語ab"}},
		{"combining mark", 10, 1, []string{"cafe\u0301 ok", "cafe ok"}},
		{"cut at the width", 5, 1, []string{"abcdefgh", "bcdefghi"}},
		{"bottom-right cell", 4, 2, []string{"abcd\nefgh", "abcd\nefgx", "bcd\nfghx"}},
		{"more lines than rows", 5, 2, []string{"1\n2\n3\n4", "5\n6\n7"}},
		{"empty frame clears", 6, 2, []string{"abc\ndef", ""}},
		{"slide by several", 12, 1, []string{"ab123456789", "ab456789xyz", "ab89xyz", "ab"}},
		{"slide with trailing text", 20, 1, []string{"> ▁▂▃▄▅▆▇ 50%", "> ▂▃▄▅▆▇█ 60%", "> ▃▄▅▆▇█▁ 7%"}},
		{"other sequences dropped", 10, 1, []string{"a\x1b[2Kb\x1b]0;title\x07c\tq", "abc"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { screenOf(t, c.w, c.h, c.frames...) })
	}
}

// TestRandomFrames draws random screens in sequence, many of them slid or
// restyled versions of the last, and checks the terminal after each.
func TestRandomFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 200; round++ {
		w, h := 1+rng.IntN(30), 1+rng.IntN(6)
		var frames []string
		lines := make([]string, h)
		for i := range lines {
			lines[i] = randomLine(rng, w+3)
		}
		for f := 0; f < 6; f++ {
			for i := range lines {
				switch rng.IntN(4) {
				case 0: // slide: drop a few cells after a prefix
					lines[i] = slide(lines[i], rng.IntN(4), 1+rng.IntN(4)) + randomLine(rng, 2)
				case 1:
					lines[i] = randomLine(rng, rng.IntN(w+3))
				}
			}
			frames = append(frames, strings.Join(lines, "\n"))
		}
		screenOf(t, w, h, frames...)
	}
}

var pieces = []string{"a", "b", " ", "▇", "█", "·", "日", "\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[m", "\x1b[7m"}

func randomLine(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// slide removes k visible cells after the first p, keeping SGR sequences.
func slide(line string, p, k int) string {
	var out strings.Builder
	seen := 0
	for _, r := range line {
		if r == '\x1b' || (seen < p || seen >= p+k) {
			out.WriteRune(r)
		}
		if r == 'm' || r == '\x1b' || r == '[' || r == ';' || (r >= '0' && r <= '9') {
			continue
		}
		seen++
	}
	return out.String()
}

// FuzzRenderer: any two views drawn one after the other leave the terminal
// showing the second.
func FuzzRenderer(f *testing.F) {
	f.Add("abc\n\x1b[31mdef\x1b[0m", "bc\n\x1b[32mdef", uint8(10), uint8(3))
	f.Add("日本語ab", "a日本語b", uint8(8), uint8(1))
	f.Add(strings.Repeat("▇▁", 20), strings.Repeat("▁▇", 20), uint8(30), uint8(2))
	f.Fuzz(func(t *testing.T, a, b string, w, h uint8) {
		if w == 0 || h == 0 || w > 120 || h > 40 {
			return
		}
		screenOf(t, int(w), int(h), a, b, a)
	})
}
