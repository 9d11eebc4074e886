package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/playback"
)

// viewHeader is the top row: what is being watched on the left (host, GPUs,
// driver), where and how on the right (LIVE, DEMO, REPLAY; the cursor's time;
// the window). Left pieces drop out, least useful first, when it is narrow.
func (m *Model) viewHeader(f *frame) string {
	right := m.headerState(f)
	left := []string{m.info.Host, gpuSummary(m.info.GPUs)}
	if m.info.MultiHost() {
		left[0] = fmt.Sprintf("%d hosts", len(m.info.Hosts))
	}
	if m.info.Driver != "" {
		left = append(left, "driver "+m.info.Driver)
	}
	if m.info.CUDA != "" {
		left = append(left, "CUDA "+m.info.CUDA)
	}
	rightW := draw.VisibleWidth(right)
	for n := len(left); n >= 0; n-- {
		text := " gputop"
		for _, p := range left[:n] {
			if p != "" {
				text += m.glyph.Sep + p
			}
		}
		if len([]rune(text))+1+rightW <= m.width || n == 0 {
			ln := m.newLine(m.width)
			ln.Add(" gputop", m.theme.Title)
			ln.Add(strings.TrimPrefix(text, " gputop"), draw.Ink{})
			ln.Pad(m.width - rightW)
			return ln.String() + right
		}
	}
	return right
}

// headerState is the right side: source, motion, cursor time and zoom.
func (m *Model) headerState(f *frame) string {
	first, last := m.store.First(), m.store.Last()
	var src string
	switch m.info.Kind {
	case timeline.Demo:
		src = "DEMO " + m.info.Scenario
	case timeline.Replay:
		src = "REPLAY " + filepath.Base(m.info.Origin)
		if m.info.Recorded == timeline.Demo && m.info.Scenario != "" {
			src += " (demo " + m.info.Scenario + ")"
		}
	case timeline.Imported:
		src = "IMPORT " + filepath.Base(m.info.Origin)
	default:
		src = "LIVE"
	}
	var state string
	var k draw.Ink
	switch m.play.Motion {
	case playback.Following:
		state, k = m.glyph.Live, m.theme.Live
	case playback.Playing:
		state, k = fmt.Sprintf("%s %gx", m.glyph.Playing, m.play.Speed), m.theme.Live
	default:
		state, k = m.glyph.Paused, m.theme.Paused
		if !m.play.Grows {
			state += fmt.Sprintf(" %gx", m.play.Speed)
		}
	}
	at := "--:--:--"
	if m.store.Len() > 0 {
		withDate := last.Sub(first) > 20*time.Hour
		at = draw.Clock(f.at, withDate)
	}
	span := f.to.Sub(f.from)
	zoom := "[" + draw.Duration(span) + "]"
	if m.play.Zoom >= len(playback.ZoomLevels) {
		zoom = "[all " + draw.Duration(span) + "]"
	}
	ln := m.newLine(m.width)
	if m.recorder != nil {
		if _, on, _ := m.recorder.State(); on {
			ln.Add("REC ", m.theme.Rec)
		}
	}
	ln.Add(state+" ", k).Add(src, m.theme.Bold).Add(" "+at+" ", draw.Ink{}).Add(zoom+" ", m.theme.Dim)
	return ln.String()
}

// gpuSummary names the GPUs briefly: "8× H100 80GB HBM3", or a count per
// model when they differ.
func gpuSummary(gpus []timeline.GPUInfo) string {
	if len(gpus) == 0 {
		return "no GPUs"
	}
	counts := map[string]int{}
	for _, g := range gpus {
		if g.IsMIGInstance() {
			continue // a slice of a GPU already counted
		}
		name := strings.TrimPrefix(g.Name, "NVIDIA ")
		if name == "" {
			name = "GPU"
		}
		counts[name]++
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%dx %s", counts[n], n)
	}
	return strings.Join(parts, ", ")
}
