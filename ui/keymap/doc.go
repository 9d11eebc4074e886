// Package keymap is the screen's one table of keys: every key the screen
// answers is a Binding in Map, with its keys, the footer's short help, the
// ? screen's text, its place in the footer and what the footer says when
// it is pressed while it does nothing. ui matches keys against it, says
// which bindings are enabled after every message (updateKeys), lists it
// on the ? screen and offers the enabled ones in the footer; so a key
// cannot exist undocumented, and the footer cannot offer a key that does
// nothing.
//
// It is data and the few questions asked of it: it imports bubbles' key
// bindings and nothing of gputop.
package keymap
