package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// TestNoTextEndsMidWord draws every panel (the GPUs, the hints and a
// hint opened, the process table, the help, a footer's answer) of every
// demo at 80x24, 100x32, 120x40 and 200x50, and fails on any word that the
// screen cut.
//
// Mid-word, precisely: the screen is drawn twice, as it is and with the
// fitter drawing every text whole past its room (draw.Fitter.Uncut). A row of
// the screen as it is ends mid-word if one of its words (what lies between
// spaces: "700W", "Gen5", "65.6/80.0GiB" are words) is neither a whole
// word of the texts the panels meant to draw nor ends in the ellipsis.
// "(99% of the 700W lim" fails on "lim"; "(99% of the…" passes. Under
// --ascii every character of every row is ASCII.
func TestNoTextEndsMidWord(t *testing.T) {
	scenarios := []string{"training", "input-bound", "imbalance", "cpu-fallback", "throttle", "checkpoint", "faults", "mig", "allocated"}
	length := 4 * time.Minute
	if testing.Short() {
		scenarios, length = []string{"checkpoint", "faults"}, 3*time.Minute
	}
	for _, sc := range scenarios {
		d := demoSession(t, sc, length)
		for _, size := range [][2]int{{80, 24}, {100, 32}, {120, 40}, {200, 50}} {
			for _, ascii := range []bool{false, true} {
				name := fmt.Sprintf("%s_%dx%d", sc, size[0], size[1])
				if ascii {
					name += "_ascii"
				}
				t.Run(name, func(t *testing.T) {
					m := replayAt(t, d, length-10*time.Second, size[0], size[1])
					if ascii {
						m = replayAtOpts(t, d, length-10*time.Second, size[0], size[1], Options{ASCII: true})
					}
					checkWordsWhole(t, m, "screen")
					for i := range m.an.shown {
						press(m, "h")
						checkWordsWhole(t, m, fmt.Sprintf("hint %d open", i+1))
					}
					m.Update(tea.KeyMsg{Type: tea.KeyEsc})
					press(m, "p")
					checkWordsWhole(t, m, "process table")
					press(m, "k")
					checkWordsWhole(t, m, "k refused")
					m.Update(tea.KeyMsg{Type: tea.KeyEsc})
					press(m, "t", "9", "9", ":", "9", "9")
					m.Update(tea.KeyMsg{Type: tea.KeyEnter})
					checkWordsWhole(t, m, "a time refused")
					press(m, "m")
					checkWordsWhole(t, m, "a key refused")
					press(m, "?")
					for range 12 {
						checkWordsWhole(t, m, "help")
						m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
					}
				})
			}
		}
	}
}

// replayAtOpts is replayAt with options (--ascii).
func replayAtOpts(t *testing.T, d sessionData, off time.Duration, w, h int, opts Options) *Model {
	t.Helper()
	src := &sliceSource{info: d.info}
	src.info.Kind = timeline.Replay
	opts.Source, opts.Renderer = src, testRenderer()
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: d.samples})
	m.Update(sourceDoneMsg{})
	press(m, "t")
	for _, r := range "+" + off.String() {
		press(m, string(r))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	return m
}

// checkWordsWhole fails on any row wider than the screen, and on any word
// cut without the ellipsis (see TestNoTextEndsMidWord).
func checkWordsWhole(t *testing.T, m *Model, what string) {
	t.Helper()
	m.render()
	drawn := ansi.Strip(m.View())
	var offered strings.Builder
	m.fit.Uncut, m.fit.Offered = true, &offered
	m.render()
	whole := ansi.Strip(m.View())
	m.fit.Uncut, m.fit.Offered = false, nil
	m.render()

	words := map[string]bool{}
	for _, w := range strings.Fields(whole + "\n" + offered.String()) {
		words[w] = true
	}
	for i, row := range strings.Split(drawn, "\n") {
		if m.ascii && !draw.IsASCII(row) {
			t.Errorf("%s: row %d is not ASCII under --ascii (a hint's °C is C): %q", what, i, row)
		}
		if n := ansi.StringWidth(row); n > m.width {
			t.Errorf("%s: row %d is %d wide on a screen of %d: %q", what, i, n, m.width, row)
		}
		for _, w := range strings.Fields(row) {
			if !words[w] && !strings.HasSuffix(w, m.glyph.Ellipsis) {
				t.Errorf("%s: row %d ends mid-word (%q is no whole word, and no ellipsis says so):\n%s",
					what, i, w, row)
			}
		}
	}
}
