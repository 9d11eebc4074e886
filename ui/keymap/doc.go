// Package keymap is the screen's one table of keys: every key the screen
// answers is a Binding in Map, with its keys, the footer's short help, the
// ? screen's text, its place in the footer and what the footer says when
// it is pressed while it does nothing. ui matches keys against it, says
// which bindings are enabled after every message (updateKeys), lists it
// on the ? screen and offers the enabled ones in the footer; so a key
// cannot exist undocumented, and the footer cannot offer a key that does
// nothing.
//
// An Action is a row of the table with what it does: its Binding, the rule
// that enables it and its handler. Each part of the screen lists its own
// rows; Enable sets them all by their rules and Route runs the first
// enabled one that matches a key among the rows it is given (ui's layer
// with the keyboard), so the dispatcher is a loop.
//
// It is data and the few questions asked of it: it imports bubbles' key
// bindings and bubbletea's messages, and nothing of gputop.
package keymap
