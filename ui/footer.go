package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// viewFooter is the bottom row: what went wrong, if anything (probe
// errors, a lost GPU, a damaged recording), then the short help of the
// keys that do something now, as many as fit, most useful first. The help
// key ends the row whatever else fits: it is where the rest are. A message
// longer than the row takes the row above it too (the last of the pane
// over it), wrapped, rather than be cut: a refusal cut mid-word says
// nothing. It returns one row, or two.
func (m *Model) viewFooter(f *frame) []string {
	help := m.keys.Help.Help()
	room := m.width - ansi.StringWidth(" "+help.Key+" "+help.Desc)
	var msg []string
	var k draw.Ink
	if m.recorder != nil {
		if path, on, failed := m.recorder.State(); failed != nil {
			msg, k = append(msg, "recording stopped: "+failed.Error()), m.theme.Crit
		} else if on && m.note == "" {
			msg, k = append(msg, "REC "+path), m.theme.Rec
		}
	}
	// A note answers the key just pressed, so it goes before what stays
	// true (a damaged file, a lost GPU), which is back at the next key.
	if m.note != "" {
		msg, k = append(msg, m.note), m.theme.Warn
	} else if status := m.statusText(f); status != "" {
		msg, k = append(msg, status), m.theme.Crit
	}
	var above string
	ln := m.newLine(room)
	if len(msg) > 0 {
		text := " " + strings.Join(msg, " "+m.glyph.Bar+" ")
		bar := " " + m.glyph.Bar
		if rows := m.fit.WrapWords(text, room-len([]rune(bar)), 2); len(rows) > 1 && !m.fit.Uncut {
			above = k.Paint(rows[0])
			text = " " + strings.TrimLeft(rows[1], " ")
		}
		ln.Add(text+bar, k)
	}
	for _, b := range m.keys.Footer {
		if !b.Offered() {
			continue
		}
		h := b.Help()
		if !m.fit.Uncut && ln.Width()+ansi.StringWidth(" "+h.Key+" "+h.Desc) > room {
			break
		}
		ln.Add(" "+h.Key, m.theme.Bold).Add(" "+h.Desc, m.theme.Dim)
	}
	ln.SetLimit(m.width)
	ln.Add(" "+help.Key, m.theme.Bold).Add(" "+help.Desc, m.theme.Dim)
	if above != "" {
		return []string{above, ln.String()}
	}
	return []string{ln.String()}
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
			text = "lost since " + draw.Clock(e.Since, false)
		}
		s := who + ": " + text
		if e.Count > 1 && e.State != timeline.ProbeLost {
			s += fmt.Sprintf(" (%dx)", e.Count)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, m.glyph.Sep)
}
