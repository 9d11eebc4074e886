package ui

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/gpulist"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/playback"
)

// keyTable is the key table (ui/keymap), the screen's rows of it by
// layer, and the facts their rules read, found once after each message.
// Each part of the screen lists its own rows beside its own code
// (procActions, hintActions, ...) as keymap.Actions of the Model: a
// binding of ui/keymap (its keys, its help on the ? screen, its place in
// the footer), the rule that says when it does something, read from
// facts, and what it does (or, for the mouse's, what a click or the wheel
// does where it points). New makes them once, updateKeys enables them by
// their rules, and handleKey runs the first enabled one that matches.
type keyTable struct {
	*keymap.Map
	facts                         keyFacts
	prompt, confirm, help, panels []keymap.Action
}

// newKeyTable makes every part's rows of k, of m.
func newKeyTable(m *Model, k *keymap.Map) keyTable {
	return keyTable{Map: k, prompt: m.prompt.Actions(k), confirm: m.confirmActions(k), help: m.help.Actions(k, m.quit),
		panels: slices.Concat(m.procActions(k), m.sessionActions(k), m.hintActions(k), m.listActions(k), m.detailActions(k), m.timeActions(k))}
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
func (m *Model) sessionActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	return []keymap.Action{
		{Binding: &k.Quit, Do: func(tea.KeyMsg) tea.Cmd { return m.quit() }},
		{Binding: &k.Help, Do: keyDo(m.help.Open)},
		// ui/screen takes ctrl+z before the model sees it.
		{Binding: &k.Suspend},
		{Binding: &k.Click, Mouse: m.clickAt}, {Binding: &k.WheelUp, Mouse: m.wheelBy(-1)}, {Binding: &k.WheelDown, Mouse: m.wheelBy(+1)},
		{Binding: &k.Mark, On: func() bool { return s.takesMarks }, Do: keyDo(m.markKey)},
		{Binding: &k.Record, On: func() bool { return s.recorder }, Do: keyDo(func() { m.noteWhy(m.record()) }),
			Does: does(func() bool { return s.recording }, "stop", "record")},
	}
}

// keyDo is a handler that needs neither the key nor a command.
func keyDo(f func()) func(tea.KeyMsg) tea.Cmd {
	return func(tea.KeyMsg) tea.Cmd { f(); return nil }
}

// does is a row's name in the footer where it has two (keymap.Action's
// Does): yes while on holds, no otherwise.
func does(on func() bool, yes, no string) func() string {
	return func() string {
		if on() {
			return yes
		}
		return no
	}
}
