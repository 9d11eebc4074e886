package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// key is one entry of the footer's key list.
type key struct{ keys, does string }

func (m *Model) footerKeys() []key {
	keys := []key{{"q", "quit"}, {"?", "help"}, {"↑↓", "GPU"}, {"tab", "metric"}, {"+-", "zoom"}}
	if m.play.grows {
		keys = append(keys, key{"space", "pause"}, key{"←→", "scroll"})
	} else {
		keys = append(keys, key{"space", "play"}, key{"←→", "step"}, key{"<>", "speed"})
	}
	keys = append(keys, key{"g/G", "start/end"}, key{"t", "time"}, key{"[]", "marker"})
	if m.recorder != nil {
		keys = append(keys, key{"m", "mark"}, key{"r", "record"})
	}
	if m.ascii {
		for i := range keys {
			keys[i].keys = strings.NewReplacer("↑↓", "up/dn", "←→", "lt/rt").Replace(keys[i].keys)
		}
	}
	return keys
}

// viewFooter is the bottom row: what went wrong, if anything (probe
// errors, a lost GPU, a damaged recording), then the keys that fit.
func (m *Model) viewFooter(f *frame) string {
	ln := newLine(m.width)
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
	for _, k := range m.footerKeys() {
		piece := " " + k.keys + " " + k.does
		if ln.w+len([]rune(piece)) > m.width {
			break
		}
		ln.add(" "+k.keys, m.theme.bold).add(" "+k.does, m.theme.dim)
	}
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
