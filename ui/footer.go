package ui

import (
	"cmp"
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
func (f *frame) viewFooter() []string {
	help := f.keys.Help.Help()
	room := f.width - ansi.StringWidth(" "+help.Key+" "+help.Desc)
	var msg []string
	var k draw.Ink
	if f.recorder != nil {
		if path, on, failed := f.recorder.State(); failed != nil {
			msg, k = append(msg, "recording stopped: "+failed.Error()), f.theme.Crit
		} else if on && f.note == "" {
			msg, k = append(msg, "REC "+path), f.theme.Rec
		}
	}
	// A note answers the key just pressed, so it goes before what stays
	// true (a damaged file, a lost GPU), which is back at the next key.
	if f.note != "" {
		msg, k = append(msg, f.note), f.theme.Warn
	} else if status := f.statusText(); status != "" {
		msg, k = append(msg, status), f.theme.Crit
	}
	var above string
	ln := f.newLine(room)
	if len(msg) > 0 {
		text := " " + strings.Join(msg, " "+f.glyph.Bar+" ")
		bar := " " + f.glyph.Bar
		if rows := f.fit.WrapWords(text, room-len([]rune(bar)), 2); len(rows) > 1 && !f.fit.Uncut {
			above = k.Paint(rows[0])
			text = " " + strings.TrimLeft(rows[1], " ")
		}
		ln.Add(text+bar, k)
	}
	for _, b := range f.keys.Footer {
		if !b.Offered() {
			continue
		}
		h := b.Help()
		if !f.fit.Uncut && ln.Width()+ansi.StringWidth(" "+h.Key+" "+h.Desc) > room {
			break
		}
		ln.Add(" "+h.Key, f.theme.Bold).Add(" "+h.Desc, f.theme.Dim)
	}
	ln.SetLimit(f.width)
	ln.Add(" "+help.Key, f.theme.Bold).Add(" "+help.Desc, f.theme.Dim)
	if above != "" {
		return []string{above, ln.String()}
	}
	return []string{ln.String()}
}

// statusText collapses what the probes said at the cursor into one line:
// "nvml gpu3: GPU is lost (41x) · host: late".
func (f *frame) statusText() string {
	var parts []string
	if f.sourceErr != nil {
		parts = append(parts, f.sourceErr.Error())
	}
	events := f.store.EventsAt(f.at)
	sort.SliceStable(events, func(i, j int) bool { return events[i].State > events[j].State })
	for _, e := range events {
		if e.Probe == timeline.RemoteProbe && f.info.MultiHost() {
			continue // the host's own line says it, and since when (hostlist.go)
		}
		who := e.Probe
		if e.Device != "" {
			who += " " + e.Device
		}
		text := cmp.Or(e.Err, e.State.String())
		if e.State == timeline.ProbeLost {
			text = "lost since " + draw.Clock(e.Since, false)
		}
		s := who + ": " + text
		if e.Count > 1 && e.State != timeline.ProbeLost {
			s += fmt.Sprintf(" (%dx)", e.Count)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, f.glyph.Sep)
}
