package help

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/scroll"
)

// Screen is the ? screen's own state: whether it is open, and how far it
// is scrolled, with the keys that page it as less does.
type Screen struct {
	open bool
	at   scroll.Offset
	rows int // rows of help lines at the last Clamp: the screen's, less the last
}

// Open shows the help from its first line.
func (s *Screen) Open() { s.open = true; s.at.Home() }

// IsOpen says the help is on screen: it takes every key.
func (s *Screen) IsOpen() bool { return s.open }

// Top is the first line on screen.
func (s *Screen) Top() int { return s.at.Top() }

// Clamp stops the scroll at the ends of lines help lines on a screen of
// height rows (the last says where it is).
func (s *Screen) Clamp(lines, height int) {
	s.rows = height - 1
	s.at.Clamp(lines, s.rows)
}

// Actions are the help's rows of the key table while it is open, as
// less's: the arrows a line, space and pgdown a page (less a line kept
// from the last), home and end its ends; any other key closes it, and one
// that quits (k.Quit) quits as well, by quit.
func (s *Screen) Actions(k *keymap.Map, quit func() tea.Cmd) []keymap.Action {
	page := func() int { return max(1, s.rows-1) }
	by := func(n func() int) func(tea.KeyMsg) tea.Cmd {
		return func(tea.KeyMsg) tea.Cmd { s.at.By(n()); return nil }
	}
	open := s.IsOpen
	return []keymap.Action{
		{Binding: &k.HelpUp, On: open, Do: by(func() int { return -1 })},
		{Binding: &k.HelpDown, On: open, Do: by(func() int { return +1 })},
		{Binding: &k.HelpPageUp, On: open, Do: by(func() int { return -page() })},
		{Binding: &k.HelpPageDown, On: open, Do: by(page)},
		{Binding: &k.HelpFirst, On: open, Do: func(tea.KeyMsg) tea.Cmd { s.at.Home(); return nil }},
		{Binding: &k.HelpLast, On: open, Do: func(tea.KeyMsg) tea.Cmd { s.at.End(); return nil }},
		// The wheel scrolls three lines, as a terminal's does.
		{Binding: &k.WheelUp, Mouse: func(tea.MouseMsg) tea.Cmd { s.at.By(-3); return nil }},
		{Binding: &k.WheelDown, Mouse: func(tea.MouseMsg) tea.Cmd { s.at.By(+3); return nil }},
		{Do: func(key tea.KeyMsg) tea.Cmd {
			s.open = false
			if k.Quit.Matches(key) {
				return quit()
			}
			return nil
		}},
	}
}
