package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/gputop-dev/gputop/timeline"
)

// withProgress adds a job's progress to a session: a point every 5 s at 50
// it/s, 25 it/s from half way, as the recording keeps them.
func withProgress(d sessionData) sessionData {
	out := d
	out.samples = append([]timeline.Sample(nil), d.samples...)
	start := out.samples[0].At
	half := out.samples[len(out.samples)-1].At.Sub(start) / 2
	done := 0.0
	for i := range out.samples {
		s := &out.samples[i]
		since := s.At.Sub(start)
		if i == 0 || since%(5*time.Second) != 0 {
			continue
		}
		rate := 50.0
		if since > half {
			rate = 25
		}
		done += rate * 5
		s.Progress = []timeline.Progress{{At: s.At, Done: done, Rate: rate, Unit: "it", Origin: "job"}}
	}
	return out
}

// A session with the job's progress has a job row under the GPUs, with the
// rate's sparkline and the rate at the cursor, at every size, its words
// whole; the rest of the screen keeps its panels.
func TestJobRowShowsTheRate(t *testing.T) {
	length := 3 * time.Minute
	d := withProgress(demoSession(t, "training", length))
	for _, size := range [][2]int{{80, 24}, {100, 32}, {120, 40}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := replayAt(t, d, length-10*time.Second, size[0], size[1])
			checkWordsWhole(t, m, "screen with a job row")
			m.render()
			screen := ansi.Strip(m.View())
			var row string
			for _, l := range strings.Split(screen, "\n") {
				if strings.HasPrefix(l, " job") {
					row = l
				}
			}
			if !strings.Contains(row, "25.0 it/s") {
				t.Errorf("no job row with the rate at the cursor (25 it/s):\n%s", screen)
			}
			if got := strings.Count(screen, "\n") + 1; got != size[1] {
				t.Errorf("%d rows on a screen of %d", got, size[1])
			}
		})
	}
}

func TestJobFigure(t *testing.T) {
	for v, want := range map[float64]string{49.64: "49.6", 1234: "1234", 45000: "45.0k", 2.5e6: "2.5M", 0.4: "0.40", math.NaN(): "N/A"} {
		if got := jobFigure(v); got != want {
			t.Errorf("jobFigure(%v) = %q, want %q", v, got, want)
		}
	}
}
