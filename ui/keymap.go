package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/playback"
)

// Every key the screen answers is a binding in one table, the keyMap:
// handleKey matches its bindings, the ? screen lists all of them, and the
// footer offers those that are enabled. A key.Binding carries the keys,
// the footer's short help and whether the key does anything now, which is
// what those three share; so a key cannot exist undocumented, and the
// footer cannot offer a key that does nothing.
//
// A binding's enabled state is set in one place, updateKeys, which runs
// after every message (anything may change what a key can do: the first
// samples name the GPUs, the cursor moves onto a hint, a replay reaches its
// end). A key pressed while its binding is disabled does nothing, or says
// why in the footer if its binding has a reason ("speed is for replays").

// binding is one thing a key does.
type binding struct {
	// Binding holds the keys (what handleKey matches, and what the ? screen
	// lists), the footer's short help, and whether it does anything now.
	key.Binding
	// text says what the key does, for the ? screen and docs/screen.md.
	text string
	// rank places the binding in the footer, most useful first; 0 keeps it
	// out.
	rank int
	// pair is the binding that goes the other way (down for up), offered
	// with this one as one footer item whose short help names both keys:
	// "↑↓ GPU". The item is there while either of them is enabled.
	pair *binding
	// why is the footer's answer to the key while the binding is disabled;
	// "" answers nothing.
	why string
}

// keyGroup is a section of the ? screen.
type keyGroup struct {
	title    string
	bindings []*binding
}

// keyMap is the table. Its groups point into it, so it is only used by
// pointer.
type keyMap struct {
	quit, help, suspend binding
	// The mouse's: bubbletea names its events as it names keys ("left
	// press", "wheel up"), and handleMouse matches them here (mouse.go).
	click, wheelUp, wheelDown binding

	up, down, metric, hint, closeHint         binding
	gpuPageUp, gpuPageDown, firstGPU, lastGPU binding
	hintUp, hintDown                          binding
	openHost, closeHost                       binding

	zoomIn, zoomOut, pause               binding
	back, forward, pageBack, pageForward binding
	start, end, slower, faster, goTo     binding
	prevMark, nextMark                   binding

	mark, record binding

	// The process table (procs.go, kill.go).
	procs, sortNext, sortInvert, kill           binding
	procUp, procDown, procPageUp, procPageDown  binding
	procFirst, procLast, leaveProcs, procFilter binding
	killYes, killNo, signalPrev, signalNext     binding

	helpUp, helpDown, helpPageUp, helpPageDown, helpFirst, helpLast binding

	answer, cancel, erase, eraseAll binding

	groups []keyGroup
	// footer is every binding with a rank, in the footer's order.
	footer []*binding
}

// bind makes a binding: its keys, its short help for the footer ("" for
// none) and its text for the ? screen.
func bind(keys []string, short, does, text string, rank int) binding {
	opts := []key.BindingOpt{key.WithKeys(keys...)}
	if short != "" || does != "" {
		opts = append(opts, key.WithHelp(short, does))
	}
	return binding{Binding: key.NewBinding(opts...), text: text, rank: rank}
}

func keys(k ...string) []string { return k }

// newKeyMap builds the table. The footer draws arrows as letters with
// --ascii; --readonly leaves k out of the table, so neither the help nor
// the footer offers it.
func newKeyMap(ascii, readonly bool) *keyMap {
	upDown, leftRight := "↑↓", "←→"
	if ascii {
		upDown, leftRight = "up/dn", "lt/rt"
	}
	k := &keyMap{
		quit: bind(keys("q", "ctrl+c"), "q", "quit", "quit", 1),
		help: bind(keys("?"), "?", "help",
			"help: every key, what each number means, gputop's own CPU, memory and sampling lag, "+
				"the checks it made; its own keys scroll it, any other key closes it", 0),
		// The terminal layer (ui/screen) takes ctrl+z before the model sees
		// it, so handleKey never matches this binding: it is here to be
		// listed.
		suspend: bind(keys("ctrl+z"), "", "", "suspend to the shell, as a shell's ctrl+z does; fg brings gputop back", 0),

		click: bind(keys("left press"), "", "", "a click selects the GPU, host or process under it (the table takes the keys), opens the hint", 0),
		wheelUp: bind(keys("wheel up"), "", "", "moves the selection up over the GPUs, hosts and processes; scrolls an open hint, the help, "+
			"and time back over the graph", 0),
		wheelDown: bind(keys("wheel down"), "", "", "the other way", 0),

		up:   bind(keys("up", "k"), upDown, "GPU", "select the GPU above for the detail graph", 8),
		down: bind(keys("down", "j"), "", "", "select the GPU below for the detail graph", 0),
		// As in htop's process list: a long GPU list pages and jumps.
		gpuPageUp:   bind(keys("pgup"), "", "", "select the GPU a screenful up the list", 0),
		gpuPageDown: bind(keys("pgdown"), "", "", "select the GPU a screenful down the list", 0),
		firstGPU:    bind(keys("home"), "", "", "select the first GPU", 0),
		lastGPU:     bind(keys("end"), "", "", "select the last GPU", 0),
		metric: bind(keys("tab"), "tab", "metric",
			"next metric in the detail graph; where the graph and the processes share a pane (80x24), from the processes to the graph, and past its last metric back", 9),
		hint: bind(keys("h"), "h", "hint",
			"show the next hint in full (its evidence, next step and episodes); past the last, back to the graph", 6),
		closeHint: bind(keys("esc"), "esc", "close", "close the hint, back to the graph", 7),
		// Sessions of several hosts list one line per host where their GPUs
		// do not all fit (hostlist.go).
		openHost:  bind(keys("enter"), "enter", "open", "several hosts: open the selected host's GPUs", 7),
		closeHost: bind(keys("esc", "backspace"), "esc", "hosts", "several hosts: back from a host's GPUs to the list of hosts", 7),
		// While a hint is open, up and down scroll it (when it is longer
		// than the pane) instead of choosing a GPU.
		hintUp:   bind(keys("up", "k"), upDown, "scroll", "scroll the hint up, where it is longer than its pane", 8),
		hintDown: bind(keys("down", "j"), "", "", "scroll the hint down", 0),

		zoomIn:  bind(keys("+", "="), "+-", "zoom", "zoom in, down to a 30 s window", 5),
		zoomOut: bind(keys("-", "_"), "", "", "zoom out, up to the whole session", 0),
		pause: bind(keys(" "), "space", "pause",
			"live: pause the view (sampling goes on), again to follow live; replay: play or pause, from the start at its end (where a replay opens)", 2),
		back: bind(keys("left"), leftRight, "scroll",
			"back one column: scroll a live view (it pauses) or step a replay", 3),
		forward:     bind(keys("right"), "", "", "forward one column", 0),
		pageBack:    bind(keys("shift+left"), "", "", "back half a window", 0),
		pageForward: bind(keys("shift+right"), "", "", "forward half a window", 0),
		start:       bind(keys("g"), "g/G", "start/end", "go to the start (zoomed out to the whole session, zoom in to show it)", 14),
		end:         bind(keys("G"), "", "", "go to the end; a paused live view follows live again", 0),
		slower:      bind(keys("<", ","), "<>", "speed", "replay slower, down to 0.25x", 4),
		faster:      bind(keys(">", "."), "", "", "replay faster, up to 64x", 0),
		goTo: bind(keys("t", "/"), "t", "time",
			"go to a time: 14:03, +10m (after the start), -5m (before the end); in the process table / filters", 12),
		prevMark: bind(keys("["), "[]", "marker", "previous marker, hint or stall: every episode of every hint, every stall of a periodic one", 13),
		nextMark: bind(keys("]"), "", "", "next marker, hint or stall", 0),

		mark:   bind(keys("m"), "m", "mark", "add a marker (a one-line label) now", 11),
		record: bind(keys("r"), "r", "record", "start or stop recording to a file", 10),

		// As in htop: p gives the process table the arrows, s (or F6)
		// picks what it is sorted by, I inverts the order, k signals. The
		// keys that work only while the table has the keyboard rank first
		// in the footer: then they are what matters.
		procs: bind(keys("p"), "p", "procs",
			"the process table takes the arrow keys, to choose a process and see all of it: command line, start, "+
				"container, pod or Slurm job; p or esc gives them back", 15),
		sortNext: bind(keys("s", "f6"), "s", "sort",
			"sort the processes by the next column: GPU memory, util, CPU, PID, user, start, GPU (htop's F6)", 15),
		sortInvert: bind(keys("I"), "I", "invert", "invert the processes' order (htop's I)", 15),
		kill: bind(keys("k"), "k", "kill",
			"signal the chosen process as htop's k does: choose the signal (TERM, INT, HUP, KILL, USR1, USR2), then y; "+
				"live only, your own user's processes only; not with --readonly", 1),
		procUp:       bind(keys("up"), upDown, "process", "choose the process above", 1),
		procDown:     bind(keys("down"), "", "", "choose the process below", 0),
		procPageUp:   bind(keys("pgup"), "", "", "choose the process a screenful up", 0),
		procPageDown: bind(keys("pgdown"), "", "", "choose the process a screenful down", 0),
		procFirst:    bind(keys("home"), "", "", "choose the first process", 0),
		procLast:     bind(keys("end"), "", "", "choose the last process", 0),
		leaveProcs:   bind(keys("esc"), "esc", "GPUs", "give the arrow keys back to the GPUs", 1),
		// As htop's F4: it narrows as it is typed. Outside the table / is
		// the time jump's.
		procFilter: bind(keys("/", "f4"), "/", "filter",
			"filter the processes: a part of the command line, user or PID, as it is typed; empty shows all", 1),
		killYes:    bind(keys("y", "enter"), "y", "send", "send the chosen signal", 0),
		killNo:     bind(keys("n", "esc"), "n", "don't", "do not send it", 0),
		signalPrev: bind(keys("left", "up"), leftRight, "signal", "the signal before", 0),
		signalNext: bind(keys("right", "down", "tab"), "", "", "the signal after", 0),

		// As less and man page: space and pgdown a page, the arrows a line.
		helpUp:       bind(keys("up", "k"), upDown, "line", "the help a line up", 0),
		helpDown:     bind(keys("down", "j"), "", "", "the help a line down", 0),
		helpPageUp:   bind(keys("pgup", "b"), "pgup", "page", "the help a page up", 0),
		helpPageDown: bind(keys("pgdown", " "), "pgdn", "", "the help a page down", 0),
		helpFirst:    bind(keys("home", "g"), "home", "top", "the help's first page", 0),
		helpLast:     bind(keys("end", "G"), "end", "bottom", "the help's last page", 0),

		answer:   bind(keys("enter"), "enter", "ok", "give the answer", 0),
		cancel:   bind(keys("esc", "ctrl+c"), "esc", "cancel", "cancel the question", 0),
		erase:    bind(keys("backspace"), "", "", "erase the last character", 0),
		eraseAll: bind(keys("ctrl+u"), "", "", "erase the whole answer", 0),
	}
	for _, p := range [][2]*binding{
		{&k.up, &k.down}, {&k.zoomIn, &k.zoomOut}, {&k.back, &k.forward},
		{&k.start, &k.end}, {&k.slower, &k.faster}, {&k.prevMark, &k.nextMark}, {&k.hintUp, &k.hintDown},
		{&k.procUp, &k.procDown}, {&k.helpUp, &k.helpDown}, {&k.helpPageUp, &k.helpPageDown},
		{&k.helpFirst, &k.helpLast}, {&k.signalPrev, &k.signalNext},
	} {
		p[0].pair = p[1]
	}
	k.slower.why = "speed is for replays; live runs at the speed of time"
	k.faster.why = k.slower.why
	k.mark.why = "markers are added while sampling; this is a replay"
	k.record.why = "recording is for live sessions; this is a replay"
	k.kill.why = "k signals processes of a live session only (not a replay, an import or a demo)"
	processKeys := []*binding{&k.procs, &k.sortNext, &k.sortInvert}
	if !readonly {
		processKeys = append(processKeys, &k.kill)
	}
	k.groups = []keyGroup{
		{"Program", []*binding{&k.quit, &k.help, &k.suspend}},
		{"Mouse (mouse = false in the settings file leaves it to the terminal)", []*binding{&k.click, &k.wheelUp, &k.wheelDown}},
		{"GPUs and hints", []*binding{
			&k.up, &k.down, &k.gpuPageUp, &k.gpuPageDown, &k.firstGPU, &k.lastGPU, &k.metric, &k.hint, &k.closeHint,
			&k.openHost, &k.closeHost,
		}},
		{"Time", []*binding{
			&k.zoomIn, &k.zoomOut, &k.pause, &k.back, &k.forward, &k.pageBack, &k.pageForward,
			&k.start, &k.end, &k.slower, &k.faster, &k.goTo, &k.prevMark, &k.nextMark,
		}},
		{"Recording", []*binding{&k.mark, &k.record}},
		{"Processes", processKeys},
		{"In the process table (p)", []*binding{
			&k.procUp, &k.procDown, &k.procPageUp, &k.procPageDown, &k.procFirst, &k.procLast, &k.leaveProcs, &k.procFilter,
		}},
		{"In an open hint", []*binding{&k.hintUp, &k.hintDown}},
		{"In the help", []*binding{&k.helpUp, &k.helpDown, &k.helpPageUp, &k.helpPageDown, &k.helpFirst, &k.helpLast}},
		{"Answering a question (m, t)", []*binding{&k.answer, &k.cancel, &k.erase, &k.eraseAll}},
	}
	if !readonly {
		k.groups = append(k.groups, keyGroup{"Choosing a signal (k)", []*binding{&k.signalPrev, &k.signalNext, &k.killYes, &k.killNo}})
	}
	for _, b := range k.all() {
		if b.rank > 0 {
			k.footer = append(k.footer, b)
		}
	}
	sort.SliceStable(k.footer, func(i, j int) bool { return k.footer[i].rank < k.footer[j].rank })
	return k
}

// offered says whether the footer offers b now: it or its pair does
// something.
func (b *binding) offered() bool {
	return b.Enabled() || b.pair != nil && b.pair.Enabled()
}

// all is every binding, in the ? screen's order.
func (k *keyMap) all() []*binding {
	var out []*binding
	for _, g := range k.groups {
		out = append(out, g.bindings...)
	}
	return out
}

// keyNames is how the ? screen and the footer write a key.
func keyNames(b *binding) string {
	names := make([]string, len(b.Keys()))
	for i, s := range b.Keys() {
		if s == " " {
			s = "space"
		}
		names[i] = s
	}
	return strings.Join(names, ", ")
}

// whyNot is the footer's answer to a key that matched no enabled binding:
// the reason of a disabled binding that has the key, if it has one.
func (k *keyMap) whyNot(pressed string) string {
	for _, b := range k.all() {
		if b.Enabled() || b.why == "" {
			continue
		}
		for _, s := range b.Keys() {
			if s == pressed {
				return b.why
			}
		}
	}
	return ""
}

// updateKeys says which keys do something now and what the footer calls
// the ones whose meaning depends on the state. It is the only place that
// enables or disables a binding.
func (m *Model) updateKeys() {
	k := m.keys
	samples := m.store.Len() > 0
	gpus := len(m.info.GPUs) > 0
	last := m.store.Last()
	hints := len(m.an.shown)
	_, takesMarks := m.src.(timeline.MarkSink)

	on := func(v bool, bs ...*binding) {
		for _, b := range bs {
			b.SetEnabled(v)
		}
	}
	on(true, &k.quit, &k.help, &k.suspend, &k.click, &k.wheelUp, &k.wheelDown)
	hintScrolls := m.hintSel > 0 && m.hintSel <= hints && m.hintDetailOverflow() > 0
	// The process table: p where there are process lists and room to show
	// them; while it has the keyboard, the arrows are its own.
	_, procsAt := m.store.ProcessesAt(last)
	m.procs.focus = m.procs.focus && !procsAt.IsZero() && m.procFocusRows() >= 4
	focus := m.procs.focus
	on(!procsAt.IsZero() && m.procFocusRows() >= 4, &k.procs)
	on(focus || m.lay.procs > 0 && !procsAt.IsZero() || m.procsInPane(), &k.sortNext, &k.sortInvert)
	on(focus, &k.procUp, &k.procDown, &k.procPageUp, &k.procPageDown, &k.procFirst, &k.procLast, &k.leaveProcs, &k.procFilter)
	_, chosen := m.selectedProcess()
	on(focus && chosen && m.canKill(), &k.kill)
	on(m.confirm.active, &k.killYes, &k.killNo)
	on(m.confirm.active && len(m.confirm.signals) > 1, &k.signalPrev, &k.signalNext)
	// A list of hosts moves before any host has described a GPU.
	hostLines := m.info.MultiHost() && m.hosts.mode == hostList && len(m.hosts.names) > 1
	on((gpus || hostLines) && !hintScrolls && !focus, &k.up, &k.down)
	on((gpus || hostLines) && !focus, &k.gpuPageUp, &k.gpuPageDown, &k.firstGPU, &k.lastGPU)
	on(gpus && samples, &k.metric)
	on(hints > 0, &k.hint)
	on(m.hintSel > 0 && m.hintSel <= hints && !focus, &k.closeHint)
	on(hintScrolls, &k.hintUp, &k.hintDown)
	hintOpen := m.hintSel > 0 && m.hintSel <= hints
	on(gpus && m.info.MultiHost() && m.hosts.mode == hostList, &k.openHost)
	on(gpus && m.info.MultiHost() && m.hosts.mode == hostOpen && !hintOpen, &k.closeHost)
	on(samples, &k.zoomIn, &k.zoomOut, &k.back, &k.forward, &k.pageBack, &k.pageForward,
		&k.start, &k.end, &k.goTo, &k.prevMark, &k.nextMark)
	on(samples, &k.pause)
	on(!m.play.Grows, &k.slower, &k.faster)
	on(takesMarks, &k.mark)
	on(m.recorder != nil, &k.record)
	on(m.showHelp, &k.helpUp, &k.helpDown, &k.helpPageUp, &k.helpPageDown, &k.helpFirst, &k.helpLast)
	on(m.prompt.active, &k.answer, &k.cancel, &k.erase, &k.eraseAll)

	// What the footer calls a key, where that depends on the state.
	short := func(b *binding, does string) { b.SetHelp(b.Help().Key, does) }
	switch {
	case m.play.Motion != playback.Paused:
		short(&k.pause, "pause")
	case m.play.Grows:
		short(&k.pause, "live")
	default:
		short(&k.pause, "play")
	}
	if m.play.Grows {
		short(&k.back, "scroll")
	} else {
		short(&k.back, "step")
	}
	if m.info.MultiHost() && m.hosts.mode == hostList {
		short(&k.up, "host")
	} else {
		short(&k.up, "GPU")
	}
	if m.procsInPane() {
		short(&k.metric, "graph")
	} else {
		short(&k.metric, "metric")
	}
	if m.hintSel > 0 {
		short(&k.hint, "next")
	} else {
		short(&k.hint, "hint")
	}
	if m.recorder != nil {
		if _, rec, _ := m.recorder.State(); rec {
			short(&k.record, "stop")
		} else {
			short(&k.record, "record")
		}
	}
}
