package ui

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/playback"
)

// viewHeader is the top row: what is being watched on the left (host, GPUs,
// driver), where and how on the right (LIVE, DEMO, REPLAY; the cursor's time;
// the window). Left pieces drop out, least useful first, when it is narrow.
func (f *frame) viewHeader() string {
	right := f.headerState()
	left := []string{f.info.Host, gpuSummary(f.info.GPUs)}
	if f.info.MultiHost() {
		left[0] = fmt.Sprintf("%d hosts", len(f.info.Hosts))
	}
	if f.info.Driver != "" {
		left = append(left, "driver "+f.info.Driver)
	}
	if f.info.CUDA != "" {
		left = append(left, "CUDA "+f.info.CUDA)
	}
	rightW := draw.VisibleWidth(right)
	for n := len(left); n >= 0; n-- {
		text := " gputop"
		for _, p := range left[:n] {
			if p != "" {
				text += f.glyph.Sep + p
			}
		}
		if len([]rune(text))+1+rightW <= f.width || n == 0 {
			ln := f.newLine(f.width)
			ln.Add(" gputop", f.theme.Title)
			ln.Add(strings.TrimPrefix(text, " gputop"), draw.Ink{})
			ln.Pad(f.width - rightW)
			return ln.String() + right
		}
	}
	return right
}

// headerState is the right side: source, motion, cursor time and zoom.
func (f *frame) headerState() string {
	first, last := f.store.First(), f.store.Last()
	var src string
	switch f.info.Kind {
	case timeline.Demo:
		src = "DEMO " + f.info.Scenario
	case timeline.Replay:
		src = "REPLAY " + filepath.Base(f.info.Origin)
		if f.info.Recorded == timeline.Demo && f.info.Scenario != "" {
			src += " (demo " + f.info.Scenario + ")"
		}
	case timeline.Imported:
		src = "IMPORT " + filepath.Base(f.info.Origin)
	default:
		src = "LIVE"
	}
	var state string
	var k draw.Ink
	switch f.play.Motion {
	case playback.Following:
		state, k = f.glyph.Live, f.theme.Live
	case playback.Playing:
		state, k = fmt.Sprintf("%s %gx", f.glyph.Playing, f.play.Speed), f.theme.Live
	default:
		state, k = f.glyph.Paused, f.theme.Paused
		if !f.play.Grows {
			state += fmt.Sprintf(" %gx", f.play.Speed)
		}
	}
	at, withDate := "--:--:--", last.Sub(first) > 20*time.Hour
	if f.store.Len() > 0 {
		at = draw.Clock(f.at, withDate)
	}
	span := f.to.Sub(f.from)
	zoom := "[" + draw.Duration(span) + "]"
	if f.play.Zoom >= len(playback.ZoomLevels) {
		zoom = "[all " + draw.Duration(span) + "]"
	}
	// A live screen within its memory budget has let go of its oldest
	// samples (their buckets stay): a window reaching back past them says
	// from when it shows every sample; one that reads them back from its
	// file (a replay, a screen recording since its start) does not.
	if raw := f.store.FineSince(); f.store.Len() > 0 && raw.After(first) && f.from.Before(raw) {
		zoom = zoom[:len(zoom)-1] + ", every sample since " + draw.Clock(raw, withDate) + "]"
	}
	ln := f.newLine(f.width)
	if f.recorder != nil {
		if _, on, _ := f.recorder.State(); on {
			ln.Add("REC ", f.theme.Rec)
		}
	}
	ln.Add(state+" ", k).Add(src, f.theme.Bold).Add(" "+at+" ", draw.Ink{}).Add(zoom+" ", f.theme.Dim)
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
		name := cmp.Or(strings.TrimPrefix(g.Name, "NVIDIA "), "GPU")
		counts[name]++
	}
	names := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%dx %s", counts[n], n)
	}
	return strings.Join(parts, ", ")
}
