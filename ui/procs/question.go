package procs

import (
	"cmp"
	"fmt"
	"syscall"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// signalNames are the names the question writes, as htop and kill -l do.
var signalNames = map[syscall.Signal]string{
	syscall.SIGTERM: "TERM", syscall.SIGINT: "INT", syscall.SIGHUP: "HUP", syscall.SIGKILL: "KILL",
	syscall.SIGUSR1: "USR1", syscall.SIGUSR2: "USR2", syscall.SIGQUIT: "QUIT", syscall.SIGSTOP: "STOP",
	syscall.SIGCONT: "CONT",
}

// SignalName is "TERM", or the number of a signal without a name here.
func SignalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprint(int(s))
}

// Question is what k asks before a signal is sent: which signal (the
// left and right arrows choose), then y.
type Question struct {
	Active  bool
	Target  timeline.ProcessSpan
	Signals []syscall.Signal
	Chosen  int
}

// Signal is the signal chosen.
func (q *Question) Signal() syscall.Signal { return q.Signals[q.Chosen] }

// View replaces the footer while the question is open, and takes
// the row above it for the process:
//
//	Send SIGTERM to PID 4100 (ml)?  python train.py --rank 0
//	TERM INT HUP KILL USR1 USR2  ←→ signal, y send, n don't
func (q *Question) View(pen draw.Pen, keys *keymap.Map) []string {
	p := q.Target
	ask := pen.NewLine(pen.Width)
	ask.Add(fmt.Sprintf(" Send SIG%s to PID %d", SignalName(q.Signal()), p.PID), pen.Theme.Warn)
	if p.User != "" {
		ask.AddText(" ("+p.User+")", pen.Theme.Warn)
	}
	ask.Add("?  ", pen.Theme.Warn)
	ask.AddText(timeline.CleanText(cmp.Or(p.Command, draw.NA)), pen.Theme.Dim)
	ln := pen.NewLine(pen.Width)
	ln.Add(" ", draw.Ink{})
	if len(q.Signals) > 1 {
		for i, s := range q.Signals {
			if i == q.Chosen {
				ln.Add(SignalName(s), pen.Theme.Sel).Add(" ", draw.Ink{})
			} else {
				ln.Add(SignalName(s)+" ", pen.Theme.Dim)
			}
		}
		ln.Add(" "+keys.SignalPrev.Help().Key+" signal, ", pen.Theme.Bold)
	}
	yes, no := keys.KillYes.Help(), keys.KillNo.Help()
	ln.Add(yes.Key+" "+yes.Desc+", "+no.Key+" "+no.Desc, pen.Theme.Bold)
	return []string{ask.String(), ln.String()}
}
