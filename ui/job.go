package ui

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/work"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// The job row: the rate of the job's own progress (a tqdm bar under
// `gputop run`, `gputop mark "progress N"`), a sparkline in the GPUs'
// columns with the rate and the work done at the cursor, under the GPU
// list. It is there only once the store holds progress, so a screen of a
// session without it is the screen it always was.

// jobRateSpan is how far back the rate at the cursor is taken: the
// recording keeps a point every few seconds.
const jobRateSpan = 15 * time.Second

// noteJob notes the first progress: the screen is laid out again for the
// job row.
func (s *session) noteJob() (relayout bool) {
	if s.jobSeen || len(s.store.Progress()) == 0 {
		return false
	}
	s.jobSeen = true
	return true
}

// viewJob is the job row.
func (f *frame) viewJob() []string {
	if f.lay.Job == 0 {
		return nil
	}
	ps := f.store.Progress()
	unit := work.Unit(ps)
	ln := f.newLine(f.width)
	ln.Add(draw.PadRight(" job", f.lay.Label), f.theme.Title)
	if f.lay.GPURows > 1 {
		ln.Add(draw.PadRight("rate", layout.RowLabelWidth), f.theme.Dim)
	}
	cols := f.cols
	n := len(cols)
	span := f.to.Sub(f.from)
	hi := 0.0
	for i := range cols {
		lo := f.from.Add(span * time.Duration(i) / time.Duration(max(n, 1)))
		end := f.from.Add(span * time.Duration(i+1) / time.Duration(max(n, 1)))
		r, _ := work.Rate(near(ps, lo, end), unit, lo, end)
		cols[i] = timeline.Agg{Min: r, Mean: r, Max: r}
		hi = draw.MaxKnown(hi, r)
	}
	ln.Add(f.glyph.Spark(cols, 0, hi), f.theme.Util)
	rate, _ := work.Rate(near(ps, f.at.Add(-jobRateSpan), f.at), unit, f.at.Add(-jobRateSpan), f.at)
	ln.Add(" "+jobFigure(rate)+" "+unit+"/s", f.theme.Util)
	if done := jobDone(ps, unit, f.at); !math.IsNaN(done) {
		ln.Add(" "+jobFigure(done)+" "+unit, f.theme.Dim)
	}
	return []string{ln.String()}
}

// near is the readings that bear on [from, to]: those within it and one
// on either side.
func near(ps []timeline.Progress, from, to time.Time) []timeline.Progress {
	lo := sort.Search(len(ps), func(i int) bool { return !ps[i].At.Before(from) })
	hi := sort.Search(len(ps), func(i int) bool { return ps[i].At.After(to) })
	return ps[max(lo-1, 0):min(hi+1, len(ps))]
}

// jobDone is the work done by the last reading at or before at; NaN if
// none counts it.
func jobDone(ps []timeline.Progress, unit string, at time.Time) float64 {
	i := sort.Search(len(ps), func(i int) bool { return ps[i].At.After(at) })
	for i--; i >= 0; i-- {
		if ps[i].Unit == unit && !math.IsNaN(ps[i].Done) {
			return ps[i].Done
		}
	}
	return math.NaN()
}

// jobFigure is a rate or a count, short: "49.6", "1234", "12.3k", "N/A".
func jobFigure(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "N/A"
	case a >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
