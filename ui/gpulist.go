package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/gpulist"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// A node with more GPUs than rows scrolls its GPU list as htop scrolls its
// processes: the selection moves through the list and the list follows it,
// with a pinned summary line above that speaks for the GPUs off screen.

// viewGPUList draws the summary (when the list scrolls) and the GPUs in view.
func (f *frame) viewGPUList() []string {
	var out []string
	if f.lay.Summary > 0 {
		out = append(out, f.viewGPUSummary())
	}
	top := f.list.Top
	for i := top; i < min(len(f.info.GPUs), top+f.lay.GPUsShown); i++ {
		out = f.viewGPU(out, i)
	}
	return out
}

// listActions are the keys that select a GPU (or a host of several) for
// the detail graph, as htop's list: the arrows a line, pgup and pgdown a
// screenful, home and end the ends; enter and esc open and close a host.
func (m *Model) listActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	moves := func() bool { return (s.gpus || s.hostLines) && !s.focus }
	sel := func(step func(at, n, page int) int) func(tea.KeyMsg) tea.Cmd {
		return keyDo(func() {
			if m.list.Select(step, m.info.MultiHost(), len(m.info.GPUs), m.lay.GPUsShown) {
				m.relayout()
			}
		})
	}
	listed := func() bool { return s.gpus && s.multiHost && s.hosts == gpulist.HostLines }
	return []keymap.Action{
		{Binding: &k.OpenHost, On: listed, Do: keyDo(func() { m.openHost(true) })},
		{Binding: &k.CloseHost, On: func() bool { return s.gpus && s.multiHost && s.hosts == gpulist.OneHost && !s.hintOpen },
			Do: keyDo(func() { m.openHost(false) })},
		{Binding: &k.Up, On: func() bool { return moves() && !s.hintScrolls }, Do: sel(func(at, _, _ int) int { return at - 1 }),
			Does: does(func() bool { return s.multiHost && s.hosts == gpulist.HostLines }, "host", "GPU")},
		{Binding: &k.Down, On: func() bool { return moves() && !s.hintScrolls }, Do: sel(func(at, _, _ int) int { return at + 1 })},
		{Binding: &k.GPUPageUp, On: moves, Do: sel(func(at, _, page int) int { return at - page })},
		{Binding: &k.GPUPageDown, On: moves, Do: sel(func(at, _, page int) int { return at + page })},
		{Binding: &k.FirstGPU, On: moves, Do: sel(func(int, int, int) int { return 0 })},
		{Binding: &k.LastGPU, On: moves, Do: sel(func(_, n, _ int) int { return n - 1 })},
	}
}

// gpuListSummary is what the summary line says of every GPU at one moment.
type gpuListSummary struct {
	known        int // GPUs with a utilisation at the moment
	lo, mean, hi float64
	idle         int
	lost         int
	worst        *timeline.Hint
	all          int
	slices       int // MIG instances among all
}

func (f *frame) summarizeGPUs(at time.Time) gpuListSummary {
	s := gpuListSummary{lo: math.Inf(1), hi: math.Inf(-1), all: len(f.info.GPUs)}
	idle := analysis.DefaultHintOptions()
	mo := f.store.MomentAt(at)
	sum := 0.0
	for pos, g := range f.info.GPUs {
		if g.IsMIGInstance() {
			s.slices++
		}
		if f.store.Lost(timeline.GPUDevice(g.Index), at) {
			if !g.IsMIGInstance() { // lost with its parent, counted there
				s.lost++
			}
			continue
		}
		// The same test as the idle rules' (gpuState).
		u, known, isIdle := gpuState(mo, f.series.at(f.store, f.info.GPUs, pos), &idle)
		if !known {
			continue
		}
		s.known++
		sum += u
		s.lo, s.hi = min(s.lo, u), max(s.hi, u)
		if isIdle {
			s.idle++
		}
	}
	if s.known > 0 {
		s.mean = sum / float64(s.known)
	}
	for i := range f.an.shown {
		if h := &f.an.shown[i]; h.Ongoing && (s.worst == nil || h.Severity > s.worst.Severity) {
			s.worst = h
		}
	}
	return s
}

// viewGPUSummary is the pinned line over a scrolling list: which GPUs are in
// view, the spread of utilisation across all of them, how many are idle or
// lost, and the worst hint that holds.
func (f *frame) viewGPUSummary() string {
	s := f.summarizeGPUs(f.at)
	// A MIG slice shown first or last stands for its parent (the first of
	// migSortKey); the count is of whole GPUs, with the slices said after
	// it where the line has room for them and the worst hint both.
	first, last := f.info.GPUs[f.list.Top], f.info.GPUs[min(s.all, f.list.Top+f.lay.GPUsShown)-1]
	shown := fmt.Sprintf(" GPU%d-%d of %d", migSortKey(first)[0], migSortKey(last)[0], s.all-s.slices)
	if s.slices > 0 {
		withMIG := shown + ", " + units.Count(s.slices, "MIG slice")
		if f.summaryLine(f.newLine(math.MaxInt), s, withMIG, false).Width() <= f.width {
			shown = withMIG
		}
	}
	return f.summaryLine(f.newLine(f.width), s, shown, false).String()
}

func trimPct(v float64) string { return strings.TrimSpace(draw.Pct(v)) }

// summaryLine writes a summary line on ln after its head: of the GPUs, or
// of every host (hosts) over their lines. It says the GPUs' utilisation
// range and idle count (if any is known), how many GPUs are lost or hosts
// without data, and the worst hint (with its GPUs, over the GPUs). The
// caller's ln stays off the heap: a frame's drawing allocates little.
func (f *frame) summaryLine(ln *draw.Line, s gpuListSummary, head string, hosts bool) *draw.Line {
	ln.Add(head, f.theme.Title)
	if s.known > 0 {
		ln.Add("  util lo ", f.theme.Dim).Add(trimPct(s.lo), f.theme.Util)
		ln.Add(" mean ", f.theme.Dim).Add(trimPct(s.mean), f.theme.Util)
		ln.Add(" hi ", f.theme.Dim).Add(trimPct(s.hi), f.theme.Util)
		ln.Add("  ", draw.Ink{}).Add(fmt.Sprintf("%d idle", s.idle), f.theme.WarnIf(s.idle > 0))
	}
	down, what := s.lost, "lost"
	if hosts {
		down, what = 0, "without data"
		for _, fig := range f.drawn.hosts.figs {
			if fig.Problem != "" || fig.Gap {
				down++
			}
		}
	}
	if down > 0 {
		ln.Add("  ", draw.Ink{}).Add(strconv.Itoa(down)+" "+what, f.theme.Crit)
	}
	if s.worst == nil {
		return ln
	}
	k := f.theme.Warn
	if s.worst.Severity == timeline.Critical {
		k = f.theme.Crit
	}
	ln.Add("  ", draw.Ink{}).Add(strings.ToUpper(s.worst.Severity.String())+" "+s.worst.ID, k)
	if !hosts && len(s.worst.GPUs) > 0 {
		// Its GPUs whole or not at all: "GPU0-" misleads.
		if set := " " + f.gpuNames.Of(s.worst.GPUs); ln.Width()+len(set) <= f.width {
			ln.Add(set, f.theme.Dim)
		}
	}
	return ln
}
