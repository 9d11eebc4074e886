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
// The Model is a field per part of the screen, each keeping its own state:
// the session (source, store), the cursor, the GPU list's selection
// (ui/gpulist), the process table (ui/procs), the opened hint, the help
// (ui/help), the footer's question (ui/prompt), the detail pane. Its rooms
// hold the rest, each under an import rule of its own (arch_test.go): the
// drawing primitives (ui/draw), where everything goes for a size
// (ui/layout), the cursor (ui/playback), the key table (ui/keymap), the one
// scroll component (ui/scroll), the settings file (ui/config), and the
// panels drawn from what they show, handed over as plain data with a
// draw.Pen (ui/band, ui/hints, ui/procs, ui/hostpanel, ui/hostrow,
// ui/help, ui/transport, ui/alloc). The GPU list, its hosts, the detail graph, the
// header and the footer read the store themselves: they are the frame's,
// one drawing of the Model (gpus.go, view.go).
//
// Every key is a binding in one table (ui/keymap) and a row with its
// handler and the rule that enables it, listed by the part it belongs to
// (bindings.go): updateKeys enables the rows, handleKey runs the first
// enabled one that matches (keymap.Route, a loop, no switch; the mouse's
// rows through keymap.RouteMouse, mouse.go), the ? screen lists them, and
// the footer offers those that do something now.
//
//	key ─▶ Route: question │ help │ process table, session, hints, list, detail, time
//	          ─▶ handler ─▶ settle (analysis, scrolls clamped, keys enabled) ─▶ render ─▶ View returns it
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
