package ui

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// TestEveryBindingHasARow: every binding of the key table is a row of the
// screen's, with its rule and its handler (or matched elsewhere: ctrl+z
// by the terminal, the mouse's by handleMouse), so no key is listed in the
// help that nothing would enable or do.
func TestEveryBindingHasARow(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(30), 80, 24, Options{})
	rows := map[*keymap.Binding]int{}
	for _, layer := range [][]keymap.Action{m.keys.prompt, m.keys.confirm, m.keys.help, m.keys.panels} {
		for _, a := range layer {
			if a.Binding != nil {
				rows[a.Binding]++
			}
		}
	}
	elsewhere := map[*keymap.Binding]bool{&m.keys.Suspend: true, &m.keys.Click: true, &m.keys.WheelUp: true, &m.keys.WheelDown: true}
	for _, b := range m.keys.All() {
		if rows[b] != 1 {
			t.Errorf("binding %q is in %d rows of the screen's table, want 1", b.Text, rows[b])
		}
	}
	for _, layer := range [][]keymap.Action{m.keys.prompt, m.keys.confirm, m.keys.help, m.keys.panels} {
		for _, a := range layer {
			if a.Do == nil && !elsewhere[a.Binding] {
				t.Errorf("row %q has no handler", a.Text)
			}
		}
	}
}
