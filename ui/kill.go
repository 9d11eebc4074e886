package ui

import (
	"cmp"
	"fmt"
	"slices"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/procs"
)

// Killer signals one process on this host. The screen asks it only in a
// live session, after the person chose a signal and said yes; it refuses
// what it must (a process of another user, one that has exited, a PID
// that now names a later process) and says why in its error, which the
// footer shows.
type Killer interface {
	// Signals are the signals it can send, the first the one k offers
	// first (SIGTERM).
	Signals() []syscall.Signal
	// Signal sends sig to pid, which started at started (zero if unknown).
	Signal(pid int, started time.Time, sig syscall.Signal) error
}

// canKill says whether k may offer to signal: a live session (never a
// replay, an import or a demo, whose PIDs are not this host's), with a
// Killer, not --readonly.
func (p *procPanel) canKill(kind timeline.SourceKind) bool {
	return p.killer != nil && !p.readonly && kind == timeline.Live && len(p.killer.Signals()) > 0
}

// killKey asks which signal to send to the selected process, and whether.
func (m *Model) killKey() {
	p, ok := m.procs.Chosen(m.frame().procSpans())
	if !ok || !m.procs.canKill(m.info.Kind) {
		return // the binding is enabled only then
	}
	if !p.Running {
		m.note = fmt.Sprintf("PID %d no longer holds GPU%d: nothing to signal", p.PID, p.GPU)
		return
	}
	m.procs.confirm = procs.Question{Active: true, Target: p, Signals: slices.Clone(m.procs.killer.Signals())}
}

// confirmActions answer the question: the arrows choose the signal, y
// or enter sends it, n or esc drops it, any other key is ignored, so a
// stray key cannot answer for the person.
func (m *Model) confirmActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	asked := func() bool { return s.confirming }
	choice := func() bool { return s.confirming && s.signals }
	return []keymap.Action{
		{Binding: &k.SignalPrev, On: choice, Do: keyDo(func() {
			q := &m.procs.confirm
			q.Chosen = (q.Chosen + len(q.Signals) - 1) % len(q.Signals)
		})},
		{Binding: &k.SignalNext, On: choice, Do: keyDo(func() {
			q := &m.procs.confirm
			q.Chosen = (q.Chosen + 1) % len(q.Signals)
		})},
		{Binding: &k.KillYes, On: asked, Do: keyDo(m.sendSignal)},
		{Binding: &k.KillNo, On: asked, Do: keyDo(func() {
			m.procs.confirm = procs.Question{}
			m.note = "not signalled"
		})},
		{Do: func(tea.KeyMsg) tea.Cmd { return nil }},
	}
}

// sendSignal sends the signal chosen to the process asked about.
func (m *Model) sendSignal() {
	p, sig := m.procs.confirm.Target, m.procs.confirm.Signal()
	m.procs.confirm = procs.Question{}
	if err := m.procs.killer.Signal(p.PID, p.Started, sig); err != nil {
		m.note = fmt.Sprintf("not signalled: %v", err)
		return
	}
	m.note = fmt.Sprintf("SIG%s sent to PID %d (%s)", procs.SignalName(sig), p.PID, m.fit.FitWords(timeline.CleanText(cmp.Or(p.Command, draw.NA)), 40, true))
}
