package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/playback"
)

// action is one row of the screen's key table: a binding of ui/keymap (its
// keys, its help on the ? screen, its place in the footer), the rule that
// says when it does something, and what it does. Each part of the screen
// lists its own rows (procActions, hintActions, ...); updateKeys enables
// them by their rules and handleKey runs the first enabled one that matches,
// so a key is one row, never a case in a switch, a line in an enabler and a
// line in the footer.
type action struct {
	b *keymap.Binding
	// on says whether the binding does something in the state keyFacts
	// describes; nil is always.
	on func(s *keyFacts) bool
	// do is what the key does; nil for a binding matched elsewhere (the
	// mouse's, ctrl+z).
	do func(m *Model, k tea.KeyMsg) tea.Cmd
	// does is what the footer calls the key in that state, where that
	// depends on it ("pause", "play"); nil keeps the table's.
	does func(s *keyFacts) string
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
	hosts                    hostMode
	hostLines                bool // a list of several hosts to move through
	takesMarks, recorder     bool
	recording                bool
	grows, paused            bool // a live view; the cursor stands still
	help, asking, confirming bool
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
		hintSel:    m.hintSel > 0,
		procLists:  !procsAt.IsZero(),
		procRoom:   m.procFocusRows() >= 4,
		hosts:      m.hosts.mode,
		recorder:   m.recorder != nil,
		grows:      m.play.Grows,
		paused:     m.play.Motion == playback.Paused,
		help:       m.showHelp,
		asking:     m.prompt.active,
		confirming: m.confirm.Active,
		signals:    len(m.confirm.Signals) > 1,
	}
	_, s.takesMarks = m.src.(timeline.MarkSink)
	s.hintOpen = m.hintSel > 0 && m.hintSel <= s.hints
	s.hintScrolls = s.hintOpen && m.hintDetailOverflow() > 0
	// The table loses the keys where it has no lists or no room.
	m.procs.Focus = m.procs.Focus && s.procLists && s.procRoom
	s.focus = m.procs.Focus
	s.procsInPane = m.procsInPane()
	s.procsShown = s.focus || m.lay.Procs > 0 && s.procLists || s.procsInPane
	_, s.chosen = m.selectedProcess()
	s.canKill = m.canKill()
	s.hostLines = s.multiHost && s.hosts == hostList && len(m.hosts.names) > 1
	if m.recorder != nil {
		_, s.recording, _ = m.recorder.State()
	}
	return s
}

// layers are the parts of the screen a key is offered to, in order: a
// question or the help takes every key while it is open; then the part
// with the keyboard (the process table after p); then the rest, whose
// rules leave one binding at most enabled for any key.
func (m *Model) layers() [][]action {
	k := m.keys
	switch {
	case m.prompt.active:
		return [][]action{promptActions(k)}
	case m.confirm.Active:
		return [][]action{confirmActions(k)}
	case m.showHelp:
		return [][]action{helpActions(k)}
	}
	return [][]action{procActions(k), sessionActions(k), hintActions(k), listActions(k), detailActions(k), timeActions(k)}
}

// allActions is every row, for updateKeys.
func (m *Model) allActions() []action {
	k := m.keys
	var out []action
	for _, l := range [][]action{promptActions(k), confirmActions(k), helpActions(k), procActions(k),
		sessionActions(k), hintActions(k), listActions(k), detailActions(k), timeActions(k)} {
		out = append(out, l...)
	}
	return out
}

// route offers a key to each layer in turn and runs the first enabled
// binding that matches it. took says one did.
func (m *Model) route(k tea.KeyMsg) (cmd tea.Cmd, took bool) {
	for _, layer := range m.layers() {
		for _, a := range layer {
			// A row without a binding takes any key: a question types it,
			// the help closes on it.
			if a.do != nil && (a.b == nil || key.Matches(k, a.b.Binding)) {
				return a.do(m, k), true
			}
		}
	}
	return nil, false
}

// updateKeys says which keys do something now, by each binding's rule,
// and what the footer calls those whose meaning depends on the state. It
// is the only place that enables or disables a binding.
func (m *Model) updateKeys() {
	s := m.facts()
	for _, a := range m.allActions() {
		if a.b == nil {
			continue
		}
		a.b.SetEnabled(a.on == nil || a.on(&s))
		if a.does != nil {
			a.b.SetHelp(a.b.Help().Key, a.does(&s))
		}
	}
}

// sessionActions are the keys of the whole program: quit, help, the
// mouse's and ctrl+z (matched elsewhere, listed here to be enabled),
// markers and recording.
func sessionActions(k *keymap.Map) []action {
	return []action{
		{b: &k.Quit, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { m.cancel(); return tea.Quit }},
		{b: &k.Help, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { m.showHelp, m.helpTop = true, 0; return nil }},
		// ui/screen takes ctrl+z before the model sees it; handleMouse
		// matches the mouse's.
		{b: &k.Suspend}, {b: &k.Click}, {b: &k.WheelUp}, {b: &k.WheelDown},
		{b: &k.Mark, on: func(s *keyFacts) bool { return s.takesMarks }, do: keyDo((*Model).markKey)},
		{b: &k.Record, on: func(s *keyFacts) bool { return s.recorder }, do: keyDo((*Model).recordKey),
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

// keyIs says whether k matches b (enabled).
func keyIs(k tea.KeyMsg, b *keymap.Binding) bool { return key.Matches(k, b.Binding) }
