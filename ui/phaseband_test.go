package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
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
	press(m, " ")
	phases := append([]timeline.Phase(nil), m.an.phases...)
	if len(phases) < 5 {
		t.Fatalf("the checkpoint demo should have busy and stalled phases: %v", phases)
	}
	letters := map[timeline.PhaseKind]byte{timeline.PhaseBusy: 'B', timeline.PhaseStalled: 'S', timeline.PhaseIdle: 'I'}
	first, last := m.store.First(), m.store.Last()
	checked := 0
	for zoom := range len(zoomLevels) + 1 {
		m.play.zoom = zoom
		for _, back := range []int{0, 1, 7, 40, 111} {
			press(m, "G")
			for range back {
				press(m, "left")
			}
			if !reflect.DeepEqual(m.an.phases, phases) {
				t.Fatalf("zoom %d, %d columns back: the phases changed", zoom, back)
			}
			band := phaseBandOf(t, m)
			from, to := m.play.window(first, last)
			width := to.Sub(from) / time.Duration(len(band))
			for c := range band {
				if band[c] < 'A' || band[c] > 'Z' {
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
	start := m.lay.label
	if m.lay.gpuRows > 1 {
		start += rowLabelWidth
	}
	for _, row := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(strings.TrimLeft(row, " "), "phase") {
			row += strings.Repeat(" ", start+m.lay.spark)
			return row[start : start+m.lay.spark]
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
