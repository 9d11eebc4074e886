package screen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// vt is a small terminal for tests: it understands the sequences the
// Renderer writes, the way xterm and tmux do, and fails loudly on any
// other, so a test sees the screen a user would.
type vt struct {
	g       *grid
	x, y    int
	pending bool // the cursor waits at the right margin to wrap
	style   string
}

func newVT(w, h int) *vt { return &vt{g: newGrid(w, h)} }

func (t *vt) write(p []byte) error {
	s := string(p)
	var state byte
	for len(s) > 0 {
		seq, width, n, next := ansi.DecodeSequence(s, state, nil)
		state, s = next, s[n:]
		switch {
		case width > 0:
			if err := t.print(seq, width); err != nil {
				return err
			}
		case seq[0] == ansi.ESC:
			if err := t.csi(seq); err != nil {
				return err
			}
		case seq[0] >= 0x20 && seq[0] != 0x7f:
			// A combining mark joins the cell before the cursor.
			x := t.x - 1
			if t.pending {
				x = t.x
			}
			if x >= 0 {
				t.g.row(t.y)[x].text += seq
			}
		default:
			return fmt.Errorf("unexpected control %q", seq)
		}
	}
	return nil
}

func (t *vt) print(text string, width int) error {
	if t.pending {
		if t.y == t.g.h-1 {
			return fmt.Errorf("writing %q past the bottom-right corner would scroll", text)
		}
		t.x, t.y, t.pending = 0, t.y+1, false
	}
	if t.x+width > t.g.w {
		return fmt.Errorf("%q does not fit at column %d", text, t.x)
	}
	row := t.g.row(t.y)
	t.breakWide(row, t.x)
	t.breakWide(row, t.x+width-1)
	row[t.x] = cell{text: text, style: t.style}
	if width == 2 {
		row[t.x+1] = cell{style: t.style}
	}
	t.x += width
	if t.x == t.g.w {
		t.x, t.pending = t.g.w-1, true
	}
	return nil
}

// breakWide blanks both halves of a wide grapheme that is partly
// overwritten at column x, as xterm does.
func (t *vt) breakWide(row []cell, x int) {
	if row[x].text == "" && x > 0 {
		row[x-1], row[x] = blankCell, blankCell
	} else if x+1 < len(row) && row[x+1].text == "" {
		row[x], row[x+1] = blankCell, blankCell
	}
}

func (t *vt) csi(seq string) error {
	if len(seq) < 3 || seq[1] != '[' {
		return fmt.Errorf("unexpected sequence %q", seq)
	}
	final, params := seq[len(seq)-1], seq[2:len(seq)-1]
	num := func(i, def int) int {
		parts := strings.Split(params, ";")
		if i >= len(parts) || parts[i] == "" {
			return def
		}
		n, _ := strconv.Atoi(parts[i])
		return n
	}
	t.pending = t.pending && final == 'm'
	switch final {
	case 'm':
		t.style = applySGR(t.style, params)
	case 'H':
		t.y, t.x = num(0, 1)-1, num(1, 1)-1
	case 'G':
		t.x = num(0, 1) - 1
	case 'C':
		t.x = min(t.x+num(0, 1), t.g.w-1)
	case 'K':
		if params != "" {
			return fmt.Errorf("EL %q not written by the renderer", params)
		}
		row := t.g.row(t.y)
		for x := t.x; x < t.g.w; x++ {
			row[x] = cell{text: " ", style: t.style}
		}
	case 'J':
		if params != "2" {
			return fmt.Errorf("ED %q not written by the renderer", params)
		}
		for i := range t.g.cells {
			t.g.cells[i] = cell{text: " ", style: t.style}
		}
	case 'P':
		n := num(0, 1)
		row := t.g.row(t.y)
		t.breakWide(row, t.x)
		copy(row[t.x:], row[min(t.x+n, len(row)):])
		for x := max(t.x, len(row)-n); x < len(row); x++ {
			row[x] = cell{text: " ", style: t.style}
		}
	default:
		return fmt.Errorf("unexpected sequence %q", seq)
	}
	if t.x < 0 || t.y < 0 || t.x >= t.g.w || t.y >= t.g.h {
		return fmt.Errorf("%q moved the cursor off the screen to %d,%d", seq, t.x, t.y)
	}
	return nil
}

// text is the screen as plain lines, for failure messages.
func (t *vt) text() string {
	var b strings.Builder
	for y := 0; y < t.g.h; y++ {
		for _, c := range t.g.row(y) {
			b.WriteString(c.text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
