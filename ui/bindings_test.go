package ui

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// TestEveryBindingHasARow: every binding of the key table is a row of the
// screen's, with its rule and its handler (or matched elsewhere: ctrl+z
// by the terminal), so no key is listed in the help that nothing would
// enable or do. A binding has one row a layer at most: the wheel has one
// in the help's (it scrolls the help) and one in the panels'.
func TestEveryBindingHasARow(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 80, 24, Options{})
	rows := map[*keymap.Binding]int{}
	layers := [][]keymap.Action{m.keys.prompt, m.keys.confirm, m.keys.help, m.keys.panels}
	for _, layer := range layers {
		inLayer := map[*keymap.Binding]bool{}
		for _, a := range layer {
			if a.Binding == nil {
				continue
			}
			if inLayer[a.Binding] {
				t.Errorf("binding %q is in two rows of one layer", a.Text)
			}
			inLayer[a.Binding] = true
			rows[a.Binding]++
		}
	}
	twice := map[*keymap.Binding]bool{&m.keys.WheelUp: true, &m.keys.WheelDown: true}
	for _, b := range m.keys.All() {
		if want := 1 + btoi(twice[b]); rows[b] != want {
			t.Errorf("binding %q is in %d rows of the screen's table, want %d", b.Text, rows[b], want)
		}
	}
	for _, layer := range layers {
		for _, a := range layer {
			if a.Do == nil && a.Mouse == nil && a.Binding != &m.keys.Suspend {
				t.Errorf("row %q has no handler", a.Text)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
