package keymap

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Action is a row of the key table with what it does: its Binding (the
// keys, the ? screen's text, the footer's place), the rule that enables
// it and its handler. Each part of the screen lists its own rows, beside
// its own code; Enable sets every row by its rule after each message, and
// Route runs the first enabled row that matches a key. So a key is one
// row: never a case in a switch, a line in an enabler and a line in the
// footer.
type Action struct {
	// Binding is the table's binding; nil takes any key (a question types
	// it, the help closes on it).
	*Binding
	// On says whether the binding does something now; nil is always.
	On func() bool
	// Do is what the key does; nil for a binding Route passes over (the
	// mouse's, which RouteMouse takes; ctrl+z, matched by ui/screen).
	Do func(tea.KeyMsg) tea.Cmd
	// Mouse is what a click or the wheel does, for a binding of the
	// mouse's (RouteMouse); nil for a key's.
	Mouse func(tea.MouseMsg) tea.Cmd
	// Does is what the footer calls the key now, where that depends on
	// the state ("pause", "play"); nil keeps the table's.
	Does func() string
}

// Enable enables each row's binding by its rule and names it for the
// footer. It is the only place a binding is enabled or disabled.
func Enable(layers ...[]Action) {
	for _, l := range layers {
		for _, a := range l {
			if a.Binding == nil {
				continue
			}
			a.SetEnabled(a.On == nil || a.On())
			if a.Does != nil {
				a.SetHelp(a.Help().Key, a.Does())
			}
		}
	}
}

// Route offers k to each row in turn (ui's layers give the part of the
// screen with the keyboard first), and runs the first row that matches it
// (enabled, as Enable left it). took says one did.
func Route(k tea.KeyMsg, rows []Action) (cmd tea.Cmd, took bool) {
	for _, a := range rows {
		if a.Do != nil && (a.Binding == nil || key.Matches(k, a.Binding.Binding)) {
			return a.Do(k), true
		}
	}
	return nil, false
}

// RouteMouse is Route for the mouse: the first row with a Mouse handler
// whose binding matches msg runs. Rows without any (an open question)
// leave the mouse alone, and a release does nothing (a wheel's would
// match its binding: bubbletea names a wheel by its button).
func RouteMouse(msg tea.MouseMsg, rows []Action) (cmd tea.Cmd, took bool) {
	if msg.Action == tea.MouseActionRelease {
		return nil, false
	}
	for _, a := range rows {
		if a.Mouse != nil && a.Binding != nil && key.Matches(msg, a.Binding.Binding) {
			return a.Mouse(msg), true
		}
	}
	return nil, false
}

// Matches says whether k is one of b's keys, and b is enabled.
func (b *Binding) Matches(k tea.KeyMsg) bool { return key.Matches(k, b.Binding) }
