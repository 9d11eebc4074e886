package hostrow

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// Row is one host's line as ui read it.
type Row struct {
	Name     string
	Selected bool
	// LabelWidth is the layout's label column; MeanLabel says the GPU
	// rows have labels of their own ("mean" is written in that column).
	LabelWidth int
	MeanLabel  bool
	// Spark is the sparkline of the window; Bars how many of its columns
	// lead up to its last one with data (the rest is a gap).
	Spark string
	Bars  int
	Figures
	// Owners says who holds the host's GPUs, in a few words ("pod
	// llm-train-0, job 4242", "3 owners"); last on the line, left out
	// where it does not fit.
	Owners string
}

// Figures are what the line says of the host at the cursor.
type Figures struct {
	// The host's GPUs at the cursor.
	GPUs, Busy int
	Mean, Lo   float64
	Power      float64 // NaN where no GPU gave one
	Worst      *timeline.Hint
	// Problem is why the host is not answering ("unreachable: …"), Gap
	// that its data stopped without one; Since when; Waiting that the
	// problem is a wait (connecting), not a failure.
	Problem string
	Gap     bool
	Since   time.Time
	Waiting bool
}

// Draw is the host's line:
// " node3   ▅▆▇▇▇  7/8 busy util  92% lo  12%  5.1kW WARN straggler-host"
func Draw(p draw.Pen, r Row) string {
	mark, labelInk := " ", p.Theme.Title
	if r.Selected {
		mark, labelInk = p.Glyph.Sel, p.Theme.Sel
	}
	ln := p.NewLine(p.Width)
	ln.Add(draw.PadRight(mark+p.Fit.FitWords(r.Name, 16, false), r.LabelWidth), labelInk)
	prefix := r.LabelWidth
	if r.MeanLabel {
		ln.Add(draw.PadRight("mean", layout.RowLabelWidth), p.Theme.Dim)
		prefix += layout.RowLabelWidth
	}
	ln.Pad(prefix)
	if r.Problem != "" || r.Gap {
		// The gap at the end of its sparkline is blank: the reason is
		// written there, from the last bar on. Early in an outage the gap
		// is narrow, and the reason is what the line is for: it takes the
		// last bars' place rather than be cut.
		need := 1 + len([]rune(r.Problem)) + len(" since 00:00:00")
		if r.Problem == "" {
			need = 1 + len("no data since 00:00:00")
		}
		bars := max(0, min(r.Bars, p.Width-ln.Width()-need))
		ln.Add(draw.CutRunes(r.Spark, bars), p.Theme.Util)
		problem(p, ln, r)
		return ln.String()
	}
	ln.Add(r.Spark, p.Theme.Util)
	fields := []draw.Field{
		{Text: draw.PadLeft(fmt.Sprintf("%d/%d busy", r.Busy, r.GPUs), 10)},
		{Text: "util " + draw.Pct(r.Mean), Ink: p.Theme.Util},
		{Text: "lo " + draw.Pct(r.Lo), Ink: p.Theme.Util},
		{Text: draw.PadLeft(Watts(r.Power), 6), Ink: p.Theme.Power},
	}
	if r.Worst != nil {
		k := p.Theme.Warn
		if r.Worst.Severity == timeline.Critical {
			k = p.Theme.Crit
		}
		fields = append(fields, draw.Field{Text: strings.ToUpper(r.Worst.Severity.String()) + " " + r.Worst.ID, Ink: k})
	}
	draw.FillRow(ln, fields, nil, p.Width)
	if r.Owners != "" && ln.Width()+1+len([]rune(r.Owners)) <= p.Width {
		// Last, where there is room, even where the worst hint had none.
		ln.Add(" ", draw.Ink{}).Add(r.Owners, p.Theme.Dim)
	}
	return ln.String()
}

// problem ends a host line with why it has no data and since when:
// "unreachable: ssh: connect to host node3 port 22: Connecti… since 09:01:40".
func problem(p draw.Pen, ln *draw.Line, r Row) {
	text := r.Problem
	k := p.Theme.Crit
	switch {
	case text == "":
		text, k = "no data", p.Theme.Warn
	case r.Waiting:
		k = p.Theme.Warn
	}
	since := ""
	if !r.Since.IsZero() {
		since = " since " + draw.Clock(r.Since, false)
	}
	room := p.Width - ln.Width() - 1 - len(since)
	if room < 8 {
		room, since = p.Width-ln.Width()-1, ""
	}
	ln.Add(" ", draw.Ink{}).Add(p.Fit.FitWords(text, room, false), k).Add(since, p.Theme.Dim)
}

// Watts is a host's GPU power: "640W", "5.1kW".
func Watts(v float64) string {
	if math.IsNaN(v) {
		return draw.NA
	}
	if v >= 1000 {
		return fmt.Sprintf("%.1fkW", v/1000)
	}
	return draw.Watts(v)
}
