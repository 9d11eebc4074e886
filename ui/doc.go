// Package ui is gputop's screen: a bubbletea model that pulls samples from a
// timeline.Source into a timeline.Store and draws the window of time that
// ends at its cursor.
//
//	Source.Next ─samplesMsg─▶ Update ─▶ Store.Add      keys ─▶ playback (cursor, zoom, speed)
//	                                        │                       │
//	                   View ◀── Store.Series(key, window, columns) ◀┘
//
// It imports timeline and the Charm libraries, never probes or recordings,
// so it cannot tell live from replay: a live view is a replay whose cursor
// follows the newest sample (ui/playback). Nothing here reads the wall
// clock; time comes from samples and from tick messages.
//
// The Model keeps the state and reads the store and the analysis; its
// rooms hold the rest, each under an import rule of its own (arch_test.go):
// the drawing primitives (ui/draw), where everything goes for a size
// (ui/layout), the cursor (ui/playback), the key table (ui/keymap), the
// settings file (ui/config), and the panels drawn from what they show,
// handed over as plain data with a draw.Pen (ui/band, ui/hints, ui/procs,
// ui/hostpanel, ui/hostrow, ui/help). The GPU list, its hosts, the detail graph, the
// header and the footer read the store through the Model, here.
//
// Every key is a binding in one table (ui/keymap): handleKey matches it,
// the ? screen lists it, and the footer offers the bindings that do
// something now.
//
// Every text meets its room through one fitter (draw.Fitter): it wraps where
// its panel has a line for it, and is otherwise cut at a word with an
// ellipsis, never mid-word (TestNoTextEndsMidWord).
//
// A session of several hosts groups the GPU list by host (hostlist.go): a
// line per host, a host's GPUs under its line where they all fit, or one
// host opened with enter; the host row and the detail graph follow the
// selected host and GPU.
package ui
