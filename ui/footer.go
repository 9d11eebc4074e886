package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gputop-dev/gputop/timeline"
)

// viewFooter is the bottom row: what went wrong, if anything (probe
// errors, a lost GPU, a damaged recording), then the short help of the
// keys that do something now, as many as fit, most useful first. The help
// key ends the row whatever else fits: it is where the rest are.
func (m *Model) viewFooter(f *frame) string {
	help := m.keys.help.Help()
	room := m.width - ansi.StringWidth(" "+help.Key+" "+help.Desc)
	ln := newLine(room)
	if m.recorder != nil {
		if path, on, failed := m.recorder.State(); failed != nil {
			ln.add(" recording stopped: "+failed.Error()+" "+m.glyph.bar, m.theme.crit)
		} else if on && m.note == "" {
			ln.add(" REC "+path+" "+m.glyph.bar, m.theme.rec)
		}
	}
	// A note answers the key just pressed, so it goes before what stays
	// true (a damaged file, a lost GPU), which is back at the next key.
	if m.note != "" {
		ln.add(" "+m.note+" "+m.glyph.bar, m.theme.warn)
	} else if status := m.statusText(f); status != "" {
		ln.add(" "+status+" "+m.glyph.bar, m.theme.crit)
	}
	for _, b := range m.keys.footer {
		if !b.offered() {
			continue
		}
		h := b.Help()
		if ln.w+ansi.StringWidth(" "+h.Key+" "+h.Desc) > room {
			break
		}
		ln.add(" "+h.Key, m.theme.bold).add(" "+h.Desc, m.theme.dim)
	}
	ln.limit = m.width
	ln.add(" "+help.Key, m.theme.bold).add(" "+help.Desc, m.theme.dim)
	return ln.String()
}

// statusText collapses what the probes said at the cursor into one line:
// "nvml gpu3: GPU is lost (41x) · host: late".
func (m *Model) statusText(f *frame) string {
	var parts []string
	if m.sourceErr != nil {
		parts = append(parts, m.sourceErr.Error())
	}
	events := m.store.EventsAt(f.at)
	sort.SliceStable(events, func(i, j int) bool { return events[i].State > events[j].State })
	for _, e := range events {
		if e.Probe == timeline.RemoteProbe && m.info.MultiHost() {
			continue // the host's own line says it, and since when (hostlist.go)
		}
		who := e.Probe
		if e.Device != "" {
			who += " " + e.Device
		}
		text := e.Err
		if text == "" {
			text = e.State.String()
		}
		if e.State == timeline.ProbeLost {
			text = "lost since " + fmtClock(e.Since, false)
		}
		s := who + ": " + text
		if e.Count > 1 && e.State != timeline.ProbeLost {
			s += fmt.Sprintf(" (%dx)", e.Count)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, m.glyph.sep)
}
