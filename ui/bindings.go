package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/gpulist"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/playback"
)

// action is one row of the screen's key table in ui's terms: a binding of
// ui/keymap (its keys, its help on the ? screen, its place in the
// footer), the rule that says when it does something, read from keyFacts,
// and what it does to the Model (or, for the mouse's, what a click or the
// wheel does where it points). Each part of the screen lists its own
// rows beside its own code (procActions, hintActions, ...); New makes them
// keymap.Actions once (keyTable), updateKeys enables them by their rules,
// and handleKey runs the first enabled one that matches.
type action struct {
	b *keymap.Binding
	// on says whether the binding does something; nil is always.
	on func(s *keyFacts) bool
	// do is what the key does; nil for a binding matched elsewhere (the
	// mouse's, ctrl+z).
	do func(m *Model, k tea.KeyMsg) tea.Cmd
	// does is what the footer calls the key in that state, where that
	// depends on it ("pause", "play"); nil keeps the table's.
	does func(s *keyFacts) string
	// mouse is what a click or the wheel does (mouse.go), for the mouse's
	// bindings.
	mouse func(m *Model, msg tea.MouseMsg) tea.Cmd
}

// keyTable is the key table (ui/keymap), the screen's rows of it by
// layer, and the facts their rules read, found once after each message.
type keyTable struct {
	*keymap.Map
	facts                         keyFacts
	prompt, confirm, help, panels []keymap.Action
}

// newKeyTable makes every part's rows of k keymap.Actions of m.
func newKeyTable(m *Model, k *keymap.Map) keyTable {
	t := keyTable{Map: k, prompt: m.prompt.Actions(k), confirm: rowsOf(m, confirmActions(k)), help: m.help.Actions(k, m.quit)}
	for _, part := range [][]action{procActions(k), sessionActions(k), hintActions(k), listActions(k), detailActions(k), timeActions(k)} {
		t.panels = append(t.panels, rowsOf(m, part)...)
	}
	return t
}

// rowsOf are a part's rows as keymap.Actions: rules of the Model's facts,
// handlers of the Model.
func rowsOf(m *Model, as []action) []keymap.Action {
	out := make([]keymap.Action, len(as))
	for i, a := range as {
		out[i].Binding = a.b
		if a.on != nil {
			out[i].On = func() bool { return a.on(&m.keys.facts) }
		}
		if a.do != nil {
			out[i].Do = func(k tea.KeyMsg) tea.Cmd { return a.do(m, k) }
		}
		if a.does != nil {
			out[i].Does = func() string { return a.does(&m.keys.facts) }
		}
		if a.mouse != nil {
			out[i].Mouse = func(msg tea.MouseMsg) tea.Cmd { return a.mouse(m, msg) }
		}
	}
	return out
}

// keyFacts is what the rules of the bindings read, found once after each
// message (updateKeys) so that sixty rules cost one look at the state.
type keyFacts struct {
	samples, gpus, multiHost bool
	hints                    int  // hints listed at the cursor
	hintOpen, hintScrolls    bool // a hint is open; it is longer than its pane
	hintSel                  bool // h has opened one (next press: the next)
	procLists, procRoom      bool // process lists exist; room to give the table the keys
	procsShown, procsInPane  bool // the table is on screen; it has the shared pane
	focus, chosen, canKill   bool // the table has the keys; a process is chosen; k may signal
	hosts                    gpulist.Mode
	hostLines                bool // a list of several hosts to move through
	takesMarks, recorder     bool
	recording                bool
	grows, paused            bool // a live view; the cursor stands still
	confirming               bool
	signals                  bool // the question offers more than one signal
}

// facts looks at the state once for the rules.
func (m *Model) facts() keyFacts {
	last := m.store.Last()
	_, procsAt := m.store.ProcessesAt(last)
	s := keyFacts{
		samples:    m.store.Len() > 0,
		gpus:       len(m.info.GPUs) > 0,
		multiHost:  m.info.MultiHost(),
		hints:      len(m.an.shown),
		hintSel:    m.hint.sel > 0,
		procLists:  !procsAt.IsZero(),
		procRoom:   m.paneRows(m.lay.Procs) >= 4,
		hosts:      m.list.Mode,
		recorder:   m.recorder != nil,
		grows:      m.play.Grows,
		paused:     m.play.Motion == playback.Paused,
		confirming: m.procs.confirm.Active,
		signals:    len(m.procs.confirm.Signals) > 1,
	}
	_, s.takesMarks = m.src.(timeline.MarkSink)
	s.hintOpen = m.hint.sel > 0 && m.hint.sel <= s.hints
	s.hintScrolls = s.hintOpen && m.hint.overflow > 0
	s.focus = m.procs.Focus
	_, s.procsInPane = m.sharedPane()
	s.procsShown = s.focus || m.lay.Procs > 0 && s.procLists || s.procsInPane
	if s.focus {
		_, s.chosen = m.procs.Chosen(m.frame().procSpans())
	}
	s.canKill = m.procs.canKill(m.info.Kind)
	s.hostLines = s.multiHost && s.hosts == gpulist.HostLines && len(m.list.Names) > 1
	if m.recorder != nil {
		_, s.recording, _ = m.recorder.State()
	}
	return s
}

// layers are the rows a key is offered to, in order: a question or the
// help takes every key while it is open; then the process table (which
// has the arrows after p), then the rest, whose rules leave one binding
// at most enabled for any key.
func (m *Model) layers() []keymap.Action {
	switch t := &m.keys; {
	case m.prompt.Active():
		return t.prompt
	case m.procs.confirm.Active:
		return t.confirm
	case m.help.IsOpen():
		return t.help
	default:
		return t.panels
	}
}

// updateKeys says which keys do something now, by each row's rule, and
// what the footer calls those whose meaning depends on the state.
func (m *Model) updateKeys() {
	m.keys.facts = m.facts()
	t := &m.keys
	keymap.Enable(t.prompt, t.confirm, t.help, t.panels)
}

// sessionActions are the keys of the whole program: quit, help, the
// mouse's and ctrl+z (matched elsewhere, listed here to be enabled),
// markers and recording.
func sessionActions(k *keymap.Map) []action {
	return []action{
		{b: &k.Quit, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.quit() }},
		{b: &k.Help, do: keyDo(func(m *Model) { m.help.Open() })},
		// ui/screen takes ctrl+z before the model sees it.
		{b: &k.Suspend},
		{b: &k.Click, mouse: clickAt}, {b: &k.WheelUp, mouse: wheelBy(-1)}, {b: &k.WheelDown, mouse: wheelBy(+1)},
		{b: &k.Mark, on: func(s *keyFacts) bool { return s.takesMarks }, do: keyDo((*Model).markKey)},
		{b: &k.Record, on: func(s *keyFacts) bool { return s.recorder }, do: keyDo(func(m *Model) { m.noteWhy(m.record()) }),
			does: func(s *keyFacts) string {
				if s.recording {
					return "stop"
				}
				return "record"
			}},
	}
}

// keyDo is a handler that needs neither the key nor a command.
func keyDo(f func(m *Model)) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyMsg) tea.Cmd { f(m); return nil }
}

// hasSamples is the rule of the keys that move through time.
func hasSamples(s *keyFacts) bool { return s.samples }
