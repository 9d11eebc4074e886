package ui

import (
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
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

// signalNames are the names the question writes, as htop and kill -l do.
var signalNames = map[syscall.Signal]string{
	syscall.SIGTERM: "TERM", syscall.SIGINT: "INT", syscall.SIGHUP: "HUP", syscall.SIGKILL: "KILL",
	syscall.SIGUSR1: "USR1", syscall.SIGUSR2: "USR2", syscall.SIGQUIT: "QUIT", syscall.SIGSTOP: "STOP",
	syscall.SIGCONT: "CONT",
}

// signalName is "TERM", or the number of a signal without a name here.
func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprint(int(s))
}

// killQuestion is what k asks before a signal is sent: which signal (the
// left and right arrows choose), then y.
type killQuestion struct {
	active  bool
	target  timeline.ProcessSpan
	signals []syscall.Signal
	chosen  int
}

func (q *killQuestion) signal() syscall.Signal { return q.signals[q.chosen] }

// canKill says whether k may offer to signal: a live session (never a
// replay, an import or a demo, whose PIDs are not this host's), with a
// Killer, not --readonly.
func (m *Model) canKill() bool {
	return m.killer != nil && !m.readonly && m.info.Kind == timeline.Live && len(m.killer.Signals()) > 0
}

// killKey asks which signal to send to the selected process, and whether.
func (m *Model) killKey() {
	p, ok := m.selectedProcess()
	if !ok || !m.canKill() {
		return // the binding is enabled only then
	}
	if !p.Running {
		m.note = fmt.Sprintf("PID %d no longer holds GPU%d: nothing to signal", p.PID, p.GPU)
		return
	}
	m.confirm = killQuestion{active: true, target: p, signals: slices.Clone(m.killer.Signals())}
}

// handleConfirmKey answers the question: the arrows choose the signal, y
// or enter sends it, n or esc drops it, any other key is ignored, so a
// stray key cannot answer for the person.
func (m *Model) handleConfirmKey(k tea.KeyMsg) tea.Cmd {
	keys, q := m.keys, &m.confirm
	switch {
	case key.Matches(k, keys.SignalPrev.Binding):
		q.chosen = (q.chosen + len(q.signals) - 1) % len(q.signals)
	case key.Matches(k, keys.SignalNext.Binding):
		q.chosen = (q.chosen + 1) % len(q.signals)
	case key.Matches(k, keys.KillYes.Binding):
		p, sig := q.target, q.signal()
		m.confirm = killQuestion{}
		if err := m.killer.Signal(p.PID, p.Started, sig); err != nil {
			m.note = fmt.Sprintf("not signalled: %v", err)
			return nil
		}
		m.note = fmt.Sprintf("SIG%s sent to PID %d (%s)", signalName(sig), p.PID, m.fit.FitWords(draw.OneLine(draw.OrNA(p.Command)), 40, true))
	case key.Matches(k, keys.KillNo.Binding):
		m.confirm = killQuestion{}
		m.note = "not signalled"
	}
	return nil
}

// viewConfirm replaces the footer while the question is open, and takes
// the row above it for the process:
//
//	Send SIGTERM to PID 4100 (ml)?  python train.py --rank 0
//	TERM INT HUP KILL USR1 USR2  ←→ signal, y send, n don't
func (m *Model) viewConfirm() []string {
	q := &m.confirm
	p := q.target
	ask := m.newLine(m.width)
	ask.Add(fmt.Sprintf(" Send SIG%s to PID %d", signalName(q.signal()), p.PID), m.theme.Warn)
	if p.User != "" {
		ask.AddText(" ("+p.User+")", m.theme.Warn)
	}
	ask.Add("?  ", m.theme.Warn)
	ask.AddText(draw.OneLine(draw.OrNA(p.Command)), m.theme.Dim)
	ln := m.newLine(m.width)
	ln.Add(" ", draw.Ink{})
	if len(q.signals) > 1 {
		for i, s := range q.signals {
			if i == q.chosen {
				ln.Add(signalName(s), m.theme.Sel).Add(" ", draw.Ink{})
			} else {
				ln.Add(signalName(s)+" ", m.theme.Dim)
			}
		}
		ln.Add(" "+m.keys.SignalPrev.Help().Key+" signal, ", m.theme.Bold)
	}
	yes, no := m.keys.KillYes.Help(), m.keys.KillNo.Help()
	ln.Add(yes.Key+" "+yes.Desc+", "+no.Key+" "+no.Desc, m.theme.Bold)
	return []string{ask.String(), ln.String()}
}
