package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/layout"
	"github.com/gputop-dev/gputop/ui/playback"
)

// The phase band is drawn from the session's phases, computed once: at
// every zoom level and scroll position the phases are the same, and each
// column shows the phase that covers most of its time. Nothing is
// recomputed over the window on screen, so no phase appears or vanishes as
// the view moves.
func TestPhaseBandIsTheSameAtEveryZoomAndScroll(t *testing.T) {
	d := demoSession(t, "checkpoint", 8*time.Minute)
	src := &sliceSource{info: d.info}
	src.info.Kind = timeline.Replay
	m := New(Options{Source: src, Renderer: testRenderer(), ASCII: true, Plain: true})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(samplesMsg{samples: d.samples})
	m.Update(sourceDoneMsg{})
	phases := append([]timeline.Phase(nil), m.an.phases...)
	if len(phases) < 5 {
		t.Fatalf("the checkpoint demo should have busy and stalled phases: %v", phases)
	}
	letters := map[timeline.PhaseKind]byte{timeline.PhaseBusy: '=', timeline.PhaseStalled: '~', timeline.PhaseIdle: '.'}
	first, last := m.store.First(), m.store.Last()
	checked := 0
	for zoom := range len(playback.ZoomLevels) + 1 {
		m.play.Zoom = zoom
		for _, back := range []int{0, 1, 7, 40, 111} {
			press(m, "G")
			for range back {
				press(m, "left")
			}
			if !reflect.DeepEqual(m.an.phases, phases) {
				t.Fatalf("zoom %d, %d columns back: the phases changed", zoom, back)
			}
			band := phaseBandOf(t, m)
			from, to := m.play.Window(first, last)
			width := to.Sub(from) / time.Duration(len(band))
			for c := range band {
				if !strings.ContainsRune("=~.", rune(band[c])) {
					continue // a phase's name or a marker written over it
				}
				cs := from.Add(time.Duration(c) * width)
				want := mostOf(phases, cs, cs.Add(width))
				if want < 0 || band[c] != letters[timeline.PhaseKind(want)] {
					t.Fatalf("zoom %d, %d back, column %d (%s): %q, want the phase covering most of it (%d)\n%s",
						zoom, back, c, cs.Format(time.TimeOnly), band[c], want, band)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d columns checked", checked)
	}
}

// phaseBandOf is the phase band's columns on a screen drawn with --ascii
// and without colour: from where the sparklines start, as many as they
// have.
func phaseBandOf(t *testing.T, m *Model) string {
	t.Helper()
	start := m.lay.Label
	if m.lay.GPURows > 1 {
		start += layout.RowLabelWidth
	}
	for _, row := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(strings.TrimLeft(row, " "), "phase") {
			row += strings.Repeat(" ", start+m.lay.Spark)
			return row[start : start+m.lay.Spark]
		}
	}
	t.Fatalf("no phase band:\n%s", screen(m))
	return ""
}

// mostOf is the kind of the phase covering most of [from, to), -1 if none.
func mostOf(phases []timeline.Phase, from, to time.Time) int {
	best, kind := time.Duration(0), -1
	for _, p := range phases {
		lo, hi := p.Start, p.End
		if lo.Before(from) {
			lo = from
		}
		if hi.After(to) {
			hi = to
		}
		if d := hi.Sub(lo); d > best {
			best, kind = d, int(p.Kind)
		}
	}
	return kind
}

// Markers whose text is wide (CJK, emoji) keep the band in step with the
// sparklines: every tick sits in the column of its time, measured in
// cells, and the row is exactly as wide as the rows above it. Markers and
// phase names share the band: every marker keeps its tick, every phase its
// name, and a marker's text fills the room left, cut with an ellipsis.
func TestPhaseBandMarkersWithWideText(t *testing.T) {
	samples := fixtureSamples(120)
	marks := map[int]string{1: "評価 eval 🚀", 50: "チェックポイント保存中です、しばらくお待ちください", 52: "x", 90: "👩‍👩‍👧 family"}
	for i, text := range marks {
		samples[i].Markers = []timeline.Marker{{At: samples[i].At, Text: text}}
	}
	for _, w := range []int{80, 120, 200} {
		m := newTestModel(t, timeline.Live, samples, w, 40, Options{})
		rows := strings.Split(screen(m), "\n")
		var band, spark string
		for _, r := range rows {
			if strings.HasPrefix(strings.TrimLeft(r, " "), "phase") {
				band = r
			}
			if strings.HasPrefix(r, "▸GPU0") {
				spark = r
			}
		}
		start := m.lay.Label
		if m.lay.GPURows > 1 {
			start += layout.RowLabelWidth
		}
		from, to := m.play.Window(m.store.First(), m.store.Last())
		colWidth := to.Sub(from) / time.Duration(m.lay.Spark)
		var want []int
		for i := range marks {
			if at := samples[i].At; !at.Before(from) {
				want = append(want, start+min(int(at.Sub(from)/colWidth), m.lay.Spark-1))
			}
		}
		var got []int
		col := 0
		for g := uniseg.NewGraphemes(band); g.Next(); {
			if g.Str() == "┃" {
				got = append(got, col)
			}
			col += g.Width()
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%d columns: ticks at %v, want %v\n%s\n%s", w, got, want, spark, band)
		}
		if bw, sw := ansi.StringWidth(strings.TrimRight(band, " ")), start+m.lay.Spark; bw > sw || bw > w {
			t.Errorf("%d columns: the band is %d cells wide, the sparklines end at %d\n%s", w, bw, sw, band)
		}
		if !strings.Contains(band, "busy") {
			t.Errorf("%d columns: a marker hides the phase's name\n%s", w, band)
		}
		// The family emoji is one grapheme of two cells; the long text
		// has two cells before the next tick, too few for its first
		// character and a cut: the ellipsis alone says there is text.
		if !strings.Contains(band, "┃👩‍👩‍👧 family▬") {
			t.Errorf("%d columns: the marker's text should show whole where there is room\n%s", w, band)
		}
		if w == 200 && (!strings.Contains(band, "┃評価 eval 🚀▬") || !strings.Contains(band, "┃…▬┃x▬")) {
			t.Errorf("%d columns: the markers' text should show where there is room, cut with an ellipsis\n%s", w, band)
		}
	}
}

// A command line with wide characters or escape codes never widens or
// breaks its row.
func TestProcessCommandWithWideText(t *testing.T) {
	samples := fixtureSamples(60)
	for i := range samples {
		if samples[i].Processes != nil {
			samples[i].Processes[0].Command = "python 学習.py --tag 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀 \x1b[2J"
		}
	}
	m := newTestModel(t, timeline.Live, samples, 200, 60, Options{})
	got := screen(m)
	checkScreenFits(t, got, 200, 60)
	if !strings.Contains(got, "python 学習.py --tag…") || strings.Contains(m.View(), "\x1b[2J") {
		t.Fatalf("the command line:\n%s", got)
	}
}
