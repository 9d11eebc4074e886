package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// A node with more GPUs than rows scrolls its GPU list as htop scrolls its
// processes: the selection moves through the list and the list follows it,
// with a pinned summary line above that speaks for the GPUs off screen.

// viewGPUList draws the summary (when the list scrolls) and the GPUs in view.
func (m *Model) viewGPUList(f *frame) []string {
	var out []string
	if m.lay.Summary > 0 {
		out = append(out, m.viewGPUSummary(f))
	}
	top := m.gpuTop
	for i := top; i < min(len(m.info.GPUs), top+m.lay.GPUsShown); i++ {
		rows := m.viewGPU(f, i, m.info.GPUs[i])
		m.hitRows(len(out), len(rows), hitGPU, i)
		out = append(out, rows...)
	}
	return out
}

// listActions are the keys that select a GPU (or a host of several) for
// the detail graph, as htop's list: the arrows a line, pgup and pgdown a
// screenful, home and end the ends; enter and esc open and close a host.
func listActions(k *keymap.Map) []action {
	moves := func(s *keyFacts) bool { return (s.gpus || s.hostLines) && !s.focus }
	sel := func(step func(at, n, page int) int) func(*Model, tea.KeyMsg) tea.Cmd {
		return keyDo(func(m *Model) { m.selectBy(step) })
	}
	listed := func(s *keyFacts) bool { return s.gpus && s.multiHost && s.hosts == hostList }
	return []action{
		{b: &k.OpenHost, on: listed, do: keyDo(func(m *Model) { m.openHost(true) })},
		{b: &k.CloseHost, on: func(s *keyFacts) bool { return s.gpus && s.multiHost && s.hosts == hostOpen && !s.hintOpen },
			do: keyDo(func(m *Model) { m.openHost(false) })},
		{b: &k.Up, on: func(s *keyFacts) bool { return moves(s) && !s.hintScrolls }, do: sel(func(at, _, _ int) int { return at - 1 }),
			does: func(s *keyFacts) string {
				if s.multiHost && s.hosts == hostList {
					return "host"
				}
				return "GPU"
			}},
		{b: &k.Down, on: func(s *keyFacts) bool { return moves(s) && !s.hintScrolls }, do: sel(func(at, _, _ int) int { return at + 1 })},
		{b: &k.GPUPageUp, on: moves, do: sel(func(at, _, page int) int { return at - page })},
		{b: &k.GPUPageDown, on: moves, do: sel(func(at, _, page int) int { return at + page })},
		{b: &k.FirstGPU, on: moves, do: sel(func(int, int, int) int { return 0 })},
		{b: &k.LastGPU, on: moves, do: sel(func(_, n, _ int) int { return n - 1 })},
	}
}

// selectBy moves the selection as step says, from the selected GPU (at) in
// a list of n with pages of page: through the hosts of several, or the GPUs.
func (m *Model) selectBy(step func(at, n, page int) int) {
	if m.info.MultiHost() && m.hostSelect(step) {
		return
	}
	n := len(m.info.GPUs)
	m.gpu = max(0, min(n-1, step(m.gpu, n, max(1, m.lay.GPUsShown))))
}

// keepSelectionInView scrolls the list the least that shows the selected
// GPU, and never past its end (a resize that makes room shows more).
func (m *Model) keepSelectionInView() {
	if m.info.MultiHost() {
		m.keepHostSelectionInView()
		return
	}
	n, shown := len(m.info.GPUs), m.lay.GPUsShown
	m.gpu = min(max(0, m.gpu), max(0, n-1))
	if shown <= 0 {
		m.gpuTop = 0
		return
	}
	if m.gpu < m.gpuTop {
		m.gpuTop = m.gpu
	}
	if m.gpu >= m.gpuTop+shown {
		m.gpuTop = m.gpu - shown + 1
	}
	m.gpuTop = min(max(0, m.gpuTop), max(0, n-shown))
}

// gpuListSummary is what the summary line says of every GPU at one moment.
type gpuListSummary struct {
	known          int // GPUs with a utilisation at the moment
	lo, mean, hi   float64
	idle           int
	lost           int
	worst          *timeline.Hint
	firstShown     int
	lastShown, all int
	slices         int // MIG instances among all
}

func (m *Model) summarizeGPUs(at time.Time) gpuListSummary {
	s := gpuListSummary{lo: math.Inf(1), hi: math.Inf(-1), all: len(m.info.GPUs)}
	s.firstShown = m.gpuTop
	s.lastShown = min(s.all, m.gpuTop+m.lay.GPUsShown) - 1
	idle := analysis.DefaultHintOptions()
	mo := m.store.MomentAt(at)
	sum := 0.0
	for pos, g := range m.info.GPUs {
		if g.IsMIGInstance() {
			s.slices++
		}
		if m.store.Lost(timeline.GPUDevice(g.Index), at) {
			if !g.IsMIGInstance() { // lost with its parent, counted there
				s.lost++
			}
			continue
		}
		// The same test as the idle rules' (gpuState).
		u, known, isIdle := gpuState(mo, m.series.at(m.store, m.info.GPUs, pos), &idle)
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
	for i := range m.an.shown {
		if h := &m.an.shown[i]; h.Ongoing && (s.worst == nil || h.Severity > s.worst.Severity) {
			s.worst = h
		}
	}
	return s
}

// viewGPUSummary is the pinned line over a scrolling list: which GPUs are in
// view, the spread of utilisation across all of them, how many are idle or
// lost, and the worst hint that holds.
func (m *Model) viewGPUSummary(f *frame) string {
	s := m.summarizeGPUs(f.at)
	// A MIG slice shown first or last stands for its parent; the count is
	// of whole GPUs, with the slices said after it where the line has room
	// for them and the worst hint both.
	first, last := m.info.GPUs[s.firstShown], m.info.GPUs[s.lastShown]
	if first.IsMIGInstance() {
		first.Index = first.MIGParent
	}
	if last.IsMIGInstance() {
		last.Index = last.MIGParent
	}
	shown := fmt.Sprintf(" GPU%d-%d of %d", first.Index, last.Index, s.all-s.slices)
	if s.slices > 0 {
		withMIG := shown + ", " + units.Count(s.slices, "MIG slice")
		if m.gpuSummaryLine(s, withMIG, math.MaxInt).Width() <= m.width {
			shown = withMIG
		}
	}
	return m.gpuSummaryLine(s, shown, m.width).String()
}

// gpuSummaryLine is the summary line after its head, cut to width.
func (m *Model) gpuSummaryLine(s gpuListSummary, head string, width int) *draw.Line {
	ln := m.newLine(width)
	ln.Add(head, m.theme.Title)
	m.addUtilSummary(ln, s)
	if s.lost > 0 {
		ln.Add("  ", draw.Ink{}).Add(fmt.Sprintf("%d lost", s.lost), m.theme.Crit)
	}
	if s.worst != nil {
		k := m.theme.Warn
		if s.worst.Severity == timeline.Critical {
			k = m.theme.Crit
		}
		ln.Add("  ", draw.Ink{}).Add(strings.ToUpper(s.worst.Severity.String())+" "+s.worst.ID, k)
		// Its GPUs whole or not at all: "GPU0-" misleads.
		if set := " " + m.gpuNames.Of(s.worst.GPUs); len(s.worst.GPUs) > 0 && ln.Width()+len(set) <= m.width {
			ln.Add(set, m.theme.Dim)
		}
	}
	return ln
}

func trimPct(v float64) string { return strings.TrimSpace(draw.Pct(v)) }

// addUtilSummary adds the GPUs' utilisation range and idle count to a
// summary line (of one host's GPUs or of every host's), if any is known.
func (m *Model) addUtilSummary(ln *draw.Line, s gpuListSummary) {
	if s.known == 0 {
		return
	}
	ln.Add("  util lo ", m.theme.Dim).Add(trimPct(s.lo), m.theme.Util)
	ln.Add(" mean ", m.theme.Dim).Add(trimPct(s.mean), m.theme.Util)
	ln.Add(" hi ", m.theme.Dim).Add(trimPct(s.hi), m.theme.Util)
	k := draw.Ink{}
	if s.idle > 0 {
		k = m.theme.Warn
	}
	ln.Add("  ", draw.Ink{}).Add(fmt.Sprintf("%d idle", s.idle), k)
}
