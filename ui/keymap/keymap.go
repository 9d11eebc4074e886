package keymap

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Every key the screen answers is a binding in one table, the Map: ui's
// handleKey matches its bindings, the ? screen lists all of them, and the
// footer offers those that are enabled. A key.Binding carries the keys,
// the footer's short help and whether the key does anything now, which is
// what those three share; so a key cannot exist undocumented, and the
// footer cannot offer a key that does nothing.
//
// A binding's enabled state is set in one place, Enable (ui's
// updateKeys), by the rule of its row (Action), after every message
// (anything may change what a key can do: the first samples name the GPUs,
// the cursor moves onto a hint, a replay reaches its end). A key pressed
// while its binding is disabled does nothing, or says why in the footer if
// its binding has a reason ("speed is for replays").

// Binding is one thing a key does.
type Binding struct {
	// Binding holds the keys (what handleKey matches, and what the ? screen
	// lists), the footer's short help, and whether it does anything now.
	key.Binding
	// Text says what the key does, for the ? screen and docs/screen.md.
	Text string
	// Rank places the binding in the footer, most useful first; 0 keeps it
	// out.
	Rank int
	// Pair is the binding that goes the other way (down for up), offered
	// with this one as one footer item whose short help names both keys:
	// "↑↓ GPU". The item is there while either of them is enabled.
	Pair *Binding
	// Why is the footer's answer to the key while the binding is disabled;
	// "" answers nothing.
	Why string
}

// Group is a section of the ? screen.
type Group struct {
	Title    string
	Bindings []*Binding
}

// Map is the table. Its groups point into it, so it is only used by
// pointer.
type Map struct {
	Quit, Help, Suspend Binding
	// The mouse's: bubbletea names its events as it names keys ("left
	// press", "wheel up"); their rows have a Mouse handler, which RouteMouse runs.
	Click, WheelUp, WheelDown Binding

	Up, Down, Metric, Hint, CloseHint         Binding
	GPUPageUp, GPUPageDown, FirstGPU, LastGPU Binding
	HintUp, HintDown                          Binding
	OpenHost, CloseHost                       Binding

	ZoomIn, ZoomOut, Pause               Binding
	Back, Forward, PageBack, PageForward Binding
	Start, End, Slower, Faster, GoTo     Binding
	PrevMark, NextMark                   Binding

	Mark, Record Binding

	// The process table (ui's procs.go, kill.go).
	Procs, SortNext, SortInvert, Kill           Binding
	ProcUp, ProcDown, ProcPageUp, ProcPageDown  Binding
	ProcFirst, ProcLast, LeaveProcs, ProcFilter Binding
	KillYes, KillNo, SignalPrev, SignalNext     Binding

	HelpUp, HelpDown, HelpPageUp, HelpPageDown, HelpFirst, HelpLast Binding

	Answer, Cancel, Erase, EraseAll Binding

	Groups []Group
	// Footer is every binding with a rank, in the footer's order.
	Footer []*Binding
}

// bind makes a binding: its keys, its short help for the footer ("" for
// none) and its text for the ? screen.
func bind(keys []string, short, does, text string, rank int) Binding {
	return Binding{Binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(short, does)), Text: text, Rank: rank}
}

func keys(k ...string) []string { return k }

// New builds the table. The footer draws arrows as letters with
// --ascii; --readonly leaves k out of the table, so neither the help nor
// the footer offers it.
func New(ascii, readonly bool) *Map {
	upDown, leftRight := "↑↓", "←→"
	if ascii {
		upDown, leftRight = "up/dn", "lt/rt"
	}
	k := &Map{
		Quit: bind(keys("q", "ctrl+c"), "q", "quit", "quit", 1),
		Help: bind(keys("?"), "?", "help",
			"help: every key, what each number means, gputop's own CPU, memory and sampling lag, "+
				"the checks it made; its own keys scroll it, any other key closes it", 0),
		// The terminal layer (ui/screen) takes ctrl+z before the model sees
		// it, so handleKey never matches this binding: it is here to be
		// listed.
		Suspend: bind(keys("ctrl+z"), "", "", "suspend to the shell, as a shell's ctrl+z does; fg brings gputop back", 0),

		Click: bind(keys("left press"), "", "", "a click selects the GPU, host or process under it (the table takes the keys), opens the hint", 0),
		WheelUp: bind(keys("wheel up"), "", "", "moves the selection up over the GPUs, hosts and processes; scrolls an open hint, the help, "+
			"and time back over the graph", 0),
		WheelDown: bind(keys("wheel down"), "", "", "the other way", 0),

		Up:   bind(keys("up", "k"), upDown, "GPU", "select the GPU above for the detail graph", 8),
		Down: bind(keys("down", "j"), "", "", "select the GPU below for the detail graph", 0),
		// As in htop's process list: a long GPU list pages and jumps.
		GPUPageUp:   bind(keys("pgup"), "", "", "select the GPU a screenful up the list", 0),
		GPUPageDown: bind(keys("pgdown"), "", "", "select the GPU a screenful down the list", 0),
		FirstGPU:    bind(keys("home"), "", "", "select the first GPU", 0),
		LastGPU:     bind(keys("end"), "", "", "select the last GPU", 0),
		Metric: bind(keys("tab"), "tab", "metric",
			"next metric in the detail graph; where the graph and the processes share a pane (80x24), from the processes to the graph, and past its last metric back", 9),
		Hint: bind(keys("h"), "h", "hint",
			"show the next hint in full (its evidence, next step and episodes); past the last, back to the graph", 6),
		CloseHint: bind(keys("esc"), "esc", "close", "close the hint, back to the graph", 7),
		// Sessions of several hosts list one line per host where their GPUs
		// do not all fit (hostlist.go).
		OpenHost:  bind(keys("enter"), "enter", "open", "several hosts: open the selected host's GPUs", 7),
		CloseHost: bind(keys("esc", "backspace"), "esc", "hosts", "several hosts: back from a host's GPUs to the list of hosts", 7),
		// While a hint is open, up and down scroll it (when it is longer
		// than the pane) instead of choosing a GPU.
		HintUp:   bind(keys("up", "k"), upDown, "scroll", "scroll the hint up, where it is longer than its pane", 8),
		HintDown: bind(keys("down", "j"), "", "", "scroll the hint down", 0),

		ZoomIn:  bind(keys("+", "="), "+-", "zoom", "zoom in, down to a 30 s window", 5),
		ZoomOut: bind(keys("-", "_"), "", "", "zoom out, up to the whole session", 0),
		Pause: bind(keys(" "), "space", "pause",
			"live: pause the view (sampling goes on), again to follow live; replay: play or pause, from the start at its end (where a replay opens)", 2),
		Back: bind(keys("left"), leftRight, "scroll",
			"back one column: scroll a live view (it pauses) or step a replay", 3),
		Forward:     bind(keys("right"), "", "", "forward one column", 0),
		PageBack:    bind(keys("shift+left"), "", "", "back half a window", 0),
		PageForward: bind(keys("shift+right"), "", "", "forward half a window", 0),
		Start:       bind(keys("g"), "g/G", "start/end", "go to the start (zoomed out to the whole session, zoom in to show it)", 14),
		End:         bind(keys("G"), "", "", "go to the end; a paused live view follows live again", 0),
		Slower:      bind(keys("<", ","), "<>", "speed", "replay slower, down to 0.25x", 4),
		Faster:      bind(keys(">", "."), "", "", "replay faster, up to 64x", 0),
		GoTo: bind(keys("t", "/"), "t", "time",
			"go to a time: 14:03, +10m (after the start), -5m (before the end); in the process table / filters", 12),
		PrevMark: bind(keys("["), "[]", "marker", "previous marker, hint or stall: every episode of every hint, every stall of a periodic one", 13),
		NextMark: bind(keys("]"), "", "", "next marker, hint or stall", 0),

		Mark:   bind(keys("m"), "m", "mark", "add a marker (a one-line label) now", 11),
		Record: bind(keys("r"), "r", "record", "start or stop recording to a file", 10),

		// As in htop: p gives the process table the arrows, s (or F6)
		// picks what it is sorted by, I inverts the order, k signals. The
		// keys that work only while the table has the keyboard rank first
		// in the footer: then they are what matters.
		Procs: bind(keys("p"), "p", "procs",
			"the process table takes the arrow keys, to choose a process and see all of it: command line, start, "+
				"container, pod or Slurm job; p or esc gives them back", 15),
		SortNext: bind(keys("s", "f6"), "s", "sort",
			"sort the processes by the next column: GPU memory, util, CPU, PID, user, start, GPU (htop's F6)", 15),
		SortInvert: bind(keys("I"), "I", "invert", "invert the processes' order (htop's I)", 15),
		Kill: bind(keys("k"), "k", "kill",
			"signal the chosen process as htop's k does: choose the signal (TERM, INT, HUP, KILL, USR1, USR2), then y; "+
				"live only, your own user's processes only; not with --readonly", 1),
		ProcUp:       bind(keys("up"), upDown, "process", "choose the process above", 1),
		ProcDown:     bind(keys("down"), "", "", "choose the process below", 0),
		ProcPageUp:   bind(keys("pgup"), "", "", "choose the process a screenful up", 0),
		ProcPageDown: bind(keys("pgdown"), "", "", "choose the process a screenful down", 0),
		ProcFirst:    bind(keys("home"), "", "", "choose the first process", 0),
		ProcLast:     bind(keys("end"), "", "", "choose the last process", 0),
		LeaveProcs:   bind(keys("esc"), "esc", "GPUs", "give the arrow keys back to the GPUs", 1),
		// As htop's F4: it narrows as it is typed. Outside the table / is
		// the time jump's.
		ProcFilter: bind(keys("/", "f4"), "/", "filter",
			"filter the processes: a part of the command line, user or PID, as it is typed; empty shows all", 1),
		KillYes:    bind(keys("y", "enter"), "y", "send", "send the chosen signal", 0),
		KillNo:     bind(keys("n", "esc"), "n", "don't", "do not send it", 0),
		SignalPrev: bind(keys("left", "up"), leftRight, "signal", "the signal before", 0),
		SignalNext: bind(keys("right", "down", "tab"), "", "", "the signal after", 0),

		// As less and man page: space and pgdown a page, the arrows a line.
		HelpUp:       bind(keys("up", "k"), upDown, "line", "the help a line up", 0),
		HelpDown:     bind(keys("down", "j"), "", "", "the help a line down", 0),
		HelpPageUp:   bind(keys("pgup", "b"), "pgup", "page", "the help a page up", 0),
		HelpPageDown: bind(keys("pgdown", " "), "pgdn", "", "the help a page down", 0),
		HelpFirst:    bind(keys("home", "g"), "home", "top", "the help's first page", 0),
		HelpLast:     bind(keys("end", "G"), "end", "bottom", "the help's last page", 0),

		Answer:   bind(keys("enter"), "enter", "ok", "give the answer", 0),
		Cancel:   bind(keys("esc", "ctrl+c"), "esc", "cancel", "cancel the question", 0),
		Erase:    bind(keys("backspace"), "", "", "erase the last character", 0),
		EraseAll: bind(keys("ctrl+u"), "", "", "erase the whole answer", 0),
	}
	for _, p := range [][2]*Binding{
		{&k.Up, &k.Down}, {&k.ZoomIn, &k.ZoomOut}, {&k.Back, &k.Forward},
		{&k.Start, &k.End}, {&k.Slower, &k.Faster}, {&k.PrevMark, &k.NextMark}, {&k.HintUp, &k.HintDown},
		{&k.ProcUp, &k.ProcDown}, {&k.HelpUp, &k.HelpDown}, {&k.HelpPageUp, &k.HelpPageDown},
		{&k.HelpFirst, &k.HelpLast}, {&k.SignalPrev, &k.SignalNext},
	} {
		p[0].Pair = p[1]
	}
	k.Slower.Why = "speed is for replays; live runs at the speed of time"
	k.Faster.Why = k.Slower.Why
	k.Mark.Why = "markers are added while sampling; this is a replay"
	k.Record.Why = "recording is for live sessions; this is a replay"
	k.Kill.Why = "k signals processes of a live session only (not a replay, an import or a demo)"
	processKeys := []*Binding{&k.Procs, &k.SortNext, &k.SortInvert}
	if !readonly {
		processKeys = append(processKeys, &k.Kill)
	}
	k.Groups = []Group{
		{"Program", []*Binding{&k.Quit, &k.Help, &k.Suspend}},
		{"Mouse (mouse = false in the settings file leaves it to the terminal)", []*Binding{&k.Click, &k.WheelUp, &k.WheelDown}},
		{"GPUs and hints", []*Binding{
			&k.Up, &k.Down, &k.GPUPageUp, &k.GPUPageDown, &k.FirstGPU, &k.LastGPU, &k.Metric, &k.Hint, &k.CloseHint,
			&k.OpenHost, &k.CloseHost,
		}},
		{"Time", []*Binding{
			&k.ZoomIn, &k.ZoomOut, &k.Pause, &k.Back, &k.Forward, &k.PageBack, &k.PageForward,
			&k.Start, &k.End, &k.Slower, &k.Faster, &k.GoTo, &k.PrevMark, &k.NextMark,
		}},
		{"Recording", []*Binding{&k.Mark, &k.Record}},
		{"Processes", processKeys},
		{"In the process table (p)", []*Binding{
			&k.ProcUp, &k.ProcDown, &k.ProcPageUp, &k.ProcPageDown, &k.ProcFirst, &k.ProcLast, &k.LeaveProcs, &k.ProcFilter,
		}},
		{"In an open hint", []*Binding{&k.HintUp, &k.HintDown}},
		{"In the help", []*Binding{&k.HelpUp, &k.HelpDown, &k.HelpPageUp, &k.HelpPageDown, &k.HelpFirst, &k.HelpLast}},
		{"Answering a question (m, t)", []*Binding{&k.Answer, &k.Cancel, &k.Erase, &k.EraseAll}},
	}
	if !readonly {
		k.Groups = append(k.Groups, Group{"Choosing a signal (k)", []*Binding{&k.SignalPrev, &k.SignalNext, &k.KillYes, &k.KillNo}})
	}
	k.Footer = slices.DeleteFunc(k.All(), func(b *Binding) bool { return b.Rank <= 0 })
	slices.SortStableFunc(k.Footer, func(a, b *Binding) int { return a.Rank - b.Rank })
	return k
}

// Offered says whether the footer offers b now: it or its pair does
// something.
func (b *Binding) Offered() bool {
	return b.Enabled() || b.Pair != nil && b.Pair.Enabled()
}

// All is every binding, in the ? screen's order.
func (k *Map) All() []*Binding {
	var out []*Binding
	for _, g := range k.Groups {
		out = append(out, g.Bindings...)
	}
	return out
}

// Names is how the ? screen and the footer write a key.
func Names(b *Binding) string {
	names := slices.Clone(b.Keys())
	if i := slices.Index(names, " "); i >= 0 {
		names[i] = "space" // a binding lists a key once
	}
	return strings.Join(names, ", ")
}

// WhyNot is the footer's answer to a key that matched no enabled binding:
// the reason of a disabled binding that has the key, if it has one.
func (k *Map) WhyNot(pressed string) string {
	for _, b := range k.All() {
		if !b.Enabled() && b.Why != "" && slices.Contains(b.Keys(), pressed) {
			return b.Why
		}
	}
	return ""
}
