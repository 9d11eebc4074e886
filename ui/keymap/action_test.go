package keymap

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Route runs the first enabled row that matches, in order; Enable is
// what enables them, by their rules, and names them for the footer.
func TestRouteRunsTheFirstEnabledRowThatMatches(t *testing.T) {
	k := New(false, false)
	var ran string
	run := func(name string) func(tea.KeyMsg) tea.Cmd {
		return func(tea.KeyMsg) tea.Cmd { ran = name; return nil }
	}
	focus := false
	table := []Action{
		{Binding: &k.LeaveProcs, On: func() bool { return focus }, Do: run("leave the table")},
		{Binding: &k.CloseHint, On: func() bool { return !focus }, Do: run("close the hint"),
			Does: func() string { return "shut" }},
	}
	esc := tea.KeyMsg{Type: tea.KeyEsc}
	for _, c := range []struct {
		focus bool
		want  string
	}{{false, "close the hint"}, {true, "leave the table"}} {
		focus, ran = c.focus, ""
		Enable(table)
		if _, took := Route(esc, table); !took || ran != c.want {
			t.Errorf("focus %v: esc ran %q (took %v), want %q", c.focus, ran, took, c.want)
		}
	}
	if k.CloseHint.Help().Desc != "shut" {
		t.Errorf("the footer calls it %q, want what Does says", k.CloseHint.Help().Desc)
	}
	if _, took := Route(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}, table); took {
		t.Error("x matched no row, and was taken")
	}
	// A row without a binding takes any key: a question types it.
	typing := []Action{{Do: run("typed")}}
	if _, took := Route(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}, append(table, typing...)); !took || ran != "typed" {
		t.Errorf("a catch-all row after the table: ran %q", ran)
	}
}

// RouteMouse runs the row of the mouse's binding that matches, never a
// key's row nor one that takes any key, and no release.
func TestRouteMouse(t *testing.T) {
	k := New(false, false)
	var ran string
	table := []Action{
		{Do: func(tea.KeyMsg) tea.Cmd { ran = "any key"; return nil }},
		{Binding: &k.Click, Mouse: func(tea.MouseMsg) tea.Cmd { ran = "click"; return nil }},
		{Binding: &k.WheelUp, Mouse: func(tea.MouseMsg) tea.Cmd { ran = "wheel up"; return nil }},
	}
	Enable(table)
	for _, c := range []struct {
		msg  tea.MouseMsg
		want string
	}{
		{tea.MouseMsg{Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}, "click"},
		{tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}, "wheel up"},
		{tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionRelease}, ""},
		{tea.MouseMsg{Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease}, ""},
		{tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}, ""},
	} {
		ran = ""
		if _, took := RouteMouse(c.msg, table); ran != c.want || took != (c.want != "") {
			t.Errorf("%s: ran %q (took %v), want %q", c.msg, ran, took, c.want)
		}
	}
}
