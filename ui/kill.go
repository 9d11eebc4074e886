package ui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
)

// Killer sends SIGTERM to one process on this host. The screen asks it
// only in a live session, after the person said yes; it refuses what it
// must (a process of another user, one that has exited, a PID that now
// names a later process) and says why in its error, which the footer shows.
type Killer interface {
	// Terminate signals pid, which started at started (zero if unknown).
	Terminate(pid int, started time.Time) error
}

// killQuestion is the y/n question k asks before a signal is sent.
type killQuestion struct {
	active bool
	target timeline.ProcessSpan
}

// canKill says whether k may offer to signal: a live session (never a
// replay, an import or a demo, whose PIDs are not this host's), with a
// Killer, not --readonly.
func (m *Model) canKill() bool {
	return m.killer != nil && !m.readonly && m.info.Kind == timeline.Live
}

// killKey asks whether to send SIGTERM to the selected process.
func (m *Model) killKey() {
	p, ok := m.selectedProcess()
	if !ok || !m.canKill() {
		return // the binding is enabled only then
	}
	if !p.Running {
		m.note = fmt.Sprintf("PID %d no longer holds GPU%d: nothing to signal", p.PID, p.GPU)
		return
	}
	m.confirm = killQuestion{active: true, target: p}
}

// handleConfirmKey answers the question: y sends, n or esc drops it, any
// other key is ignored, so a stray key cannot answer for the person.
func (m *Model) handleConfirmKey(k tea.KeyMsg) tea.Cmd {
	keys := m.keys
	switch {
	case key.Matches(k, keys.killYes.Binding):
		p := m.confirm.target
		m.confirm = killQuestion{}
		if err := m.killer.Terminate(p.PID, p.Started); err != nil {
			m.note = fmt.Sprintf("not signalled: %v", err)
			return nil
		}
		m.note = fmt.Sprintf("SIGTERM sent to PID %d (%s)", p.PID, m.fit.fitWords(oneLine(orNA(p.Command)), 40, true))
	case key.Matches(k, keys.killNo.Binding):
		m.confirm = killQuestion{}
		m.note = "not signalled"
	}
	return nil
}

// viewConfirm replaces the footer while the question is open.
func (m *Model) viewConfirm() string {
	p := m.confirm.target
	ln := m.newLine(m.width)
	ln.add(fmt.Sprintf(" Send SIGTERM to PID %d", p.PID), m.theme.warn)
	if p.User != "" {
		ln.addText(" ("+p.User+")", m.theme.warn)
	}
	ln.add("? ", m.theme.warn)
	yes, no := m.keys.killYes.Help(), m.keys.killNo.Help()
	ln.add(yes.Key+" "+yes.Desc+", "+no.Key+" "+no.Desc+"  ", m.theme.bold)
	ln.addText(oneLine(orNA(p.Command)), m.theme.dim)
	return ln.String()
}
