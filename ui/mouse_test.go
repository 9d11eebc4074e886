package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// rowOf is the first row of the screen that holds text.
func rowOf(t *testing.T, m *Model, text string) int {
	t.Helper()
	for i, r := range strings.Split(screen(m), "\n") {
		if strings.Contains(r, text) {
			return i
		}
	}
	t.Fatalf("%q is not on the screen:\n%s", text, screen(m))
	return -1
}

func click(m *Model, y int) {
	m.Update(tea.MouseMsg{X: 10, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
}

func wheel(m *Model, y, dir int) {
	b := tea.MouseButtonWheelDown
	if dir < 0 {
		b = tea.MouseButtonWheelUp
	}
	m.Update(tea.MouseMsg{X: 10, Y: y, Button: b, Action: tea.MouseActionPress})
}

// A click selects what it lands on, as the keys would: a GPU, a hint (it
// opens), a process (the table takes the keys); the wheel moves the
// selection where it points, and scrolls the help.
func TestMouseClicksAndWheel(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m := newTestModel(t, timeline.Live, procFixture(), size[0], size[1], Options{})
		click(m, rowOf(t, m, " GPU3 "))
		if m.list.GPU != 3 {
			t.Errorf("%v: a click on GPU3 selects it, not GPU%d", size, m.list.GPU)
		}
		wheel(m, rowOf(t, m, "▸GPU3"), +1)
		if m.list.GPU != 4 {
			t.Errorf("%v: the wheel down over the GPUs selects the next, not GPU%d", size, m.list.GPU)
		}
		click(m, rowOf(t, m, "python serve.py"))
		if p, ok := m.procs.Chosen(m.frame().procSpans()); !ok || p.PID != 7000 {
			t.Errorf("%v: a click on a process chooses it (the table takes the keys): %v %v", size, p.PID, ok)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEsc})
		click(m, rowOf(t, m, "WARNING  power-capped"))
		if m.hint.sel != 1 || !strings.Contains(screen(m), "next step:") {
			t.Errorf("%v: a click on a hint opens it:\n%s", size, screen(m))
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEsc})
		press(m, "?")
		wheel(m, 5, +1)
		if m.help.Top() != 3 || !m.help.IsOpen() {
			t.Errorf("%v: the wheel scrolls the help, by 3 lines, not to %d", size, m.help.Top())
		}
	}
}
