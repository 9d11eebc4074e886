package accuracy

import (
	"fmt"
	"strconv"
	"strings"
)

// Published is what a docs/accuracy.md states: each case's verdict, each
// hint's precision and recall, and the false warnings an hour.
type Published struct {
	Right           map[string]bool
	Precision       map[string]float64
	Recall          map[string]float64
	WarningsPerHour float64
}

// Parse reads the figures back from a document Markdown wrote.
func Parse(doc string) Published {
	p := Published{Right: map[string]bool{}, Precision: map[string]float64{}, Recall: map[string]float64{}}
	section := ""
	for line := range strings.SplitSeq(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = h
			continue
		}
		if i := strings.Index(line, " an hour)."); i >= 0 && section == "Summary" {
			j := strings.LastIndex(line[:i], "(")
			p.WarningsPerHour, _ = strconv.ParseFloat(line[j+1:i], 64)
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 2 || !strings.HasPrefix(cells[0], " `") {
			continue
		}
		name := strings.Trim(cells[0], " `")
		switch {
		case section == "Every case":
			p.Right[name] = strings.TrimSpace(cells[1]) == "right"
		case section == "Every hint" && len(cells) >= 7:
			p.Recall[name], _ = strconv.ParseFloat(cells[3], 64)
			p.Precision[name], _ = strconv.ParseFloat(cells[6], 64)
		}
	}
	return p
}

// Regressions says, one line each, where outcomes fall short of what was
// published: a case read right that is now read wrong (with what went
// wrong), a hint's precision or recall lower, more false warnings an hour.
// Rounding is the document's: a change too small to show is none.
func Regressions(published Published, outcomes []Outcome) []string {
	var out []string
	for _, o := range outcomes {
		if published.Right[o.Case.Name] && !o.OK() {
			out = append(out, fmt.Sprintf("%s was read right and is now wrong: %s", o.Case.Name, strings.Join(o.Misses(), "; ")))
		}
	}
	t := Count(outcomes)
	for _, f := range t.Hints {
		if was, ok := published.Precision[f.ID]; ok && round2(f.Precision()) < was {
			out = append(out, fmt.Sprintf("%s: precision fell from %.2f to %.2f", f.ID, was, round2(f.Precision())))
		}
		if was, ok := published.Recall[f.ID]; ok && round2(f.Recall()) < was {
			out = append(out, fmt.Sprintf("%s: recall fell from %.2f to %.2f", f.ID, was, round2(f.Recall())))
		}
	}
	if now := round2(t.WarningsPerHour()); now > published.WarningsPerHour {
		out = append(out, fmt.Sprintf("false warnings on healthy controls rose from %.2f to %.2f an hour", published.WarningsPerHour, now))
	}
	return out
}

func round2(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 2, 64), 64)
	return v
}
