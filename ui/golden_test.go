package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

var update = flag.Bool("update", false, "rewrite the golden screens")

// newTestModel feeds samples into a model sized w×h, as bubbletea would.
func newTestModel(t testing.TB, kind timeline.SourceKind, samples []timeline.Sample, w, h int, opts Options) *Model {
	t.Helper()
	opts.Source = &sliceSource{info: fixtureInfo(kind)}
	opts.Renderer = testRenderer()
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(samplesMsg{samples: samples})
	return m
}

// testRenderer draws in ANSI colours whatever the test's terminal.
func testRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(os.Stdout)
	r.SetColorProfile(termenv.ANSI)
	return r
}

// screen is the model's view as a person sees it: no escape sequences.
func screen(m *Model) string { return ansi.Strip(m.View()) }

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("screen %s differs from %s (go test ./ui -update rewrites it):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 60}} {
		for _, ascii := range []bool{false, true} {
			name := fmt.Sprintf("live_%dx%d", size[0], size[1])
			if ascii {
				name += "_ascii"
			}
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, timeline.Live, fixtureSamples(120), size[0], size[1], Options{ASCII: ascii})
				got := screen(m)
				checkScreenFits(t, got, size[0], size[1])
				checkGolden(t, name, got)
			})
		}
	}
}

func TestGoldenReplayScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := fmt.Sprintf("replay_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := newTestModel(t, timeline.Replay, fixtureSamples(120), size[0], size[1], Options{Speed: 4})
			m.Update(sourceDoneMsg{})
			press(m, "t", "+", "1", "m")
			m.Update(tea.KeyMsg{Type: tea.KeyEnter})
			got := screen(m)
			checkScreenFits(t, got, size[0], size[1])
			checkGolden(t, name, got)
		})
	}
}

// checkScreenFits fails if any row is wider than the terminal or there are
// more rows than it has: either would scroll or wrap the screen.
func checkScreenFits(t *testing.T, s string, w, h int) {
	t.Helper()
	rows := strings.Split(s, "\n")
	if len(rows) != h {
		t.Errorf("%d rows, terminal has %d", len(rows), h)
	}
	for i, r := range rows {
		if n := ansi.StringWidth(r); n > w {
			t.Errorf("row %d is %d wide, terminal is %d: %q", i, n, w, r)
		}
	}
}

func TestVisibleWidthAgreesWithAnsi(t *testing.T) {
	m := newTestModel(t, timeline.Live, fixtureSamples(120), 200, 60, Options{})
	for i, row := range strings.Split(m.View(), "\n") {
		if got, want := draw.VisibleWidth(row), ansi.StringWidth(row); got != want {
			t.Fatalf("row %d: visibleWidth %d, ansi.StringWidth %d: %q", i, got, want, row)
		}
	}
}

// Where a GPU block has several rows, each number sits on the row of the
// quantity it belongs to at every width, and a number whose row is not on
// screen says whose it is: the power limit, temperature and clock beside
// power, tensor activity beside SM, memory labelled "mem" on another row.
func TestValuesSitWithTheirQuantity(t *testing.T) {
	for _, size := range [][2]int{{100, 40}, {120, 40}, {160, 48}, {200, 50}, {200, 60}} {
		m := newTestModel(t, timeline.Live, fixtureSamples(120), size[0], size[1], Options{})
		if m.lay.GPURows < 2 {
			t.Fatalf("%dx%d: one row a GPU; the test needs blocks", size[0], size[1])
		}
		// The GPU blocks: from under the header to the phase band.
		for _, row := range strings.Split(screen(m), "\n")[1:] {
			if strings.HasPrefix(strings.TrimSpace(row), "phase") {
				break
			}
			rowLabel := strings.TrimSpace(string([]rune(row)[m.lay.Label : m.lay.Label+layout.RowLabelWidth]))
			homes := map[string]string{"of 700W": "pwr", "°C": "pwr", "MHz": "pwr", "tensor": "SM", "(": "util"}
			for text, home := range homes {
				if home == "pwr" && m.lay.GPURows < 3 {
					continue // no power row: its numbers spill into the others
				}
				if strings.Contains(row, text) && rowLabel != home && !(home == "SM" && rowLabel == "util") {
					t.Errorf("%dx%d: %q on the %s row:\n%s", size[0], size[1], text, rowLabel, row)
				}
			}
			if strings.Contains(row, "GiB") && rowLabel != "mem" && !strings.Contains(row, "mem ") {
				t.Errorf("%dx%d: memory on the %s row without saying so:\n%s", size[0], size[1], rowLabel, row)
			}
		}
	}
}
